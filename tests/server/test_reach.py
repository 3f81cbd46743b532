"""Where phones reach the box (server/reach.py): the interfaces' addresses, the default
route's first, never loopback; a page's code for the address it was opened through.
The namespaced network (tests/net) runs the same on a real veth pair."""

from __future__ import annotations

import socket
import threading

import pytest
from buzzerbox.server import reach
from buzzerbox.server.reach import Reach, page_url, phone_addresses

ADAPTERS = [
    ("lo", "127.0.0.1"),
    ("lo", "::1"),
    ("docker0", "172.17.0.1"),
    ("eth0", "169.254.10.1"),
    ("wlan0", "192.168.1.23"),
    ("wlan0", "fe80::1%wlan0"),
    ("wlan0", "fd00:77::23"),
    ("eth1", "10.0.0.2"),
]


def test_the_default_route_s_address_comes_first_and_loopback_never() -> None:
    got = phone_addresses("0.0.0.0", ADAPTERS, default=("192.168.1.23", None))
    assert got == ["192.168.1.23", "10.0.0.2", "172.17.0.1", "169.254.10.1"]


def test_without_a_default_route_the_addresses_come_in_order_link_local_last() -> None:
    got = phone_addresses("0.0.0.0", ADAPTERS, default=(None, None))
    assert got == ["10.0.0.2", "172.17.0.1", "192.168.1.23", "169.254.10.1"]


def test_a_default_route_by_an_address_not_on_the_list_changes_nothing() -> None:
    assert phone_addresses("0.0.0.0", ADAPTERS, default=("8.8.8.8", None))[0] == "10.0.0.2"


def test_listening_on_ipv6_adds_the_routable_ipv6_addresses_never_link_local() -> None:
    got = phone_addresses("::", ADAPTERS, default=(None, "fd00:77::23"))
    assert got[-1] == "fd00:77::23"
    assert "fe80::1" not in got and "::1" not in got
    assert reach.url("fd00:77::23", 8000) == "http://[fd00:77::23]:8000/"


def test_only_loopback_is_no_network() -> None:
    assert phone_addresses("0.0.0.0", [("lo", "127.0.0.1"), ("lo", "::1")], default=()) == []


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.1.1", "::1", "localhost"])
def test_a_loopback_host_is_reached_by_no_phone(host: str) -> None:
    assert phone_addresses(host, ADAPTERS, default=()) == []


def test_a_host_named_is_that_one() -> None:
    assert phone_addresses("10.0.0.2", ADAPTERS, default=()) == ["10.0.0.2"]


def test_the_host_name_is_never_looked_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Debian's /etc/hosts maps the host name to 127.0.1.1: the old lookup found only that."""

    def no_lookup(*args: object) -> object:
        raise AssertionError("the addresses come from the interfaces")

    monkeypatch.setattr(socket, "getaddrinfo", no_lookup)
    monkeypatch.setattr(socket, "gethostbyname", no_lookup)
    assert phone_addresses("0.0.0.0", ADAPTERS, default=(None, None))


def test_the_route_source_is_an_address_of_this_machine_or_none() -> None:
    source = reach.route_source()
    mine = {a for _, a in reach.interface_addresses()}
    assert source is None or source in mine


def test_the_console_lists_the_addresses_or_says_no_network() -> None:
    found = Reach("0.0.0.0", 8000, look=lambda host: ["192.168.1.23", "10.0.0.2"])
    assert found.console_lines() == ["open http://192.168.1.23:8000/", "open http://10.0.0.2:8000/"]
    alone = Reach("0.0.0.0", 8000, look=lambda host: []).console_lines()
    assert alone[0] == "open http://127.0.0.1:8000/ (on this machine only)"
    assert alone[1].startswith("no network: phones cannot reach this box")
    local = Reach("127.0.0.1", 8000).console_lines()
    assert local[1] == "no network: phones cannot reach this box (it listens on this machine only)"


def test_the_mdns_name_follows_the_addresses_while_there_are_any() -> None:
    found: list[str] = ["10.0.0.2"]
    named = Reach("0.0.0.0", 80, names=["http://buzzerbox.local/"], look=lambda h: found)
    assert named.phone_urls() == ["http://10.0.0.2/", "http://buzzerbox.local/"]
    found.clear()
    gone = Reach("0.0.0.0", 80, names=["http://buzzerbox.local/"], look=lambda h: found)
    assert gone.phone_urls() == []


def test_addresses_are_looked_up_again_once_they_are_old() -> None:
    now = [0.0]
    found: list[str] = []
    looked: list[str] = []

    def look(host: str) -> list[str]:
        looked.append(host)
        return list(found)

    box = Reach("0.0.0.0", 8000, look=look, fresh_s=5.0, clock=lambda: now[0])
    assert box.phone_urls() == []
    found.append("192.168.1.23")  # the wifi came up
    now[0] = 4.9
    assert box.phone_urls() == [] and len(looked) == 1
    now[0] = 5.0
    assert box() == ["http://192.168.1.23:8000/"] and len(looked) == 2


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("192.168.1.23:8000", "http://192.168.1.23:8000/"),
        ("buzzerbox.local", "http://buzzerbox.local/"),
        ("[fd00:77::23]:8000", "http://[fd00:77::23]:8000/"),
        ("127.0.0.1:8000", "http://10.0.0.2:8000/"),  # the box's own screen
        ("localhost:8000", "http://10.0.0.2:8000/"),
        ("[::1]:8000", "http://10.0.0.2:8000/"),
        ("evil.example/path", "http://10.0.0.2:8000/"),  # no Host header
        (None, "http://10.0.0.2:8000/"),
    ],
)
def test_a_page_s_code_is_for_the_address_it_was_opened_through(
    host: str | None, expected: str
) -> None:
    assert page_url(host, ["http://10.0.0.2:8000/"]) == expected


def test_a_page_opened_on_loopback_with_no_network_gets_no_code() -> None:
    assert page_url("127.0.0.1:8000", []) is None


def test_a_change_of_address_is_followed_and_told() -> None:
    """Wifi that comes up after the start: `follow` calls back with the new addresses."""
    found: list[str] = []
    told: list[list[str]] = []
    came = threading.Event()

    def changed(urls: list[str]) -> None:
        told.append(urls)
        came.set()

    box = Reach("0.0.0.0", 8000, look=lambda host: list(found), fresh_s=0.01)
    stop = box.follow(changed)
    try:
        found.append("192.168.1.23")
        assert came.wait(10)
    finally:
        stop()
    assert told[0] == ["http://192.168.1.23:8000/"]
