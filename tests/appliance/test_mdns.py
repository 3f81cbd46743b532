"""The scoreboard by mDNS, its URL and QR code; no packet leaves the machine."""

from __future__ import annotations

import pytest
import segno
from buzzerbox.appliance import mdns
from buzzerbox.appliance.errors import MdnsError
from zeroconf import ServiceInfo


class FakeZeroconf:
    """A Registrar that records what was registered, like zeroconf.Zeroconf would."""

    def __init__(self) -> None:
        self.registered: list[ServiceInfo] = []
        self.updated: list[ServiceInfo] = []
        self.unregistered: list[ServiceInfo] = []
        self.closed = False

    def register_service(
        self, info: ServiceInfo, ttl: int | None = None, allow_name_change: bool = False
    ) -> None:
        assert allow_name_change
        self.registered.append(info)

    def update_service(self, info: ServiceInfo) -> None:
        self.updated.append(info)

    def unregister_service(self, info: ServiceInfo) -> None:
        self.unregistered.append(info)

    def close(self) -> None:
        self.closed = True


def test_urls_leave_out_port_80() -> None:
    ann = mdns.Announcement("buzzerbox", 80, ("192.168.1.23",))
    assert ann.url == "http://buzzerbox.local/"
    assert ann.address_urls == ["http://192.168.1.23/"]
    other = mdns.Announcement("table-2", 8000, ("10.0.0.5", "169.254.3.4"))
    assert other.url == "http://table-2.local:8000/"
    assert other.address_urls == ["http://10.0.0.5:8000/", "http://169.254.3.4:8000/"]


@pytest.mark.parametrize("name", ["", "Box", "-box", "box-", "a.b", "x" * 64, "box_1"])
def test_names_must_be_dns_labels(name: str) -> None:
    with pytest.raises(MdnsError, match="is not allowed"):
        mdns.Announcement(name)


def test_ports_are_checked() -> None:
    with pytest.raises(MdnsError, match="port 0 is not allowed"):
        mdns.Announcement(port=0)


def test_local_addresses_skip_loopback_and_put_link_local_last() -> None:
    adapters = [
        ("lo", "127.0.0.1"),
        ("eth0", "169.254.10.1"),
        ("wlan0", "192.168.1.23"),
        ("wlan0", "fe80::1"),
        ("usb0", "10.0.0.2"),
        ("eth1", "192.168.1.23"),
    ]
    assert mdns.local_addresses(adapters) == ("10.0.0.2", "192.168.1.23", "169.254.10.1")


def test_local_addresses_of_this_host_are_ipv4() -> None:
    for address in mdns.local_addresses():
        assert address.count(".") == 3
        assert not address.startswith("127.")


def test_a_name_taken_by_another_box_gets_a_number() -> None:
    taken = {"buzzerbox.local.": {"10.0.0.9"}, "buzzerbox-2.local.": {"10.0.0.8"}}
    assert mdns.choose_name("buzzerbox", ["10.0.0.2"], lambda n: taken.get(n, set())) == (
        "buzzerbox-3"
    )
    # our own address answering (avahi, hostname buzzerbox) is not a conflict, nor its
    # loopback's (avahi answers with 127.0.0.1 from lo too: seen in tests/realstack)
    mine = {"buzzerbox.local.": {"10.0.0.2", "127.0.0.1", "::1"}}
    assert mdns.choose_name("buzzerbox", ["10.0.0.2"], lambda n: mine.get(n, set())) == (
        "buzzerbox"
    )
    with pytest.raises(MdnsError, match="all taken"):
        mdns.choose_name("buzzerbox", [], lambda n: {"10.9.9.9"}, lambda: ())


def test_an_address_this_host_got_after_the_box_looked_is_its_own() -> None:
    """At boot the box may look up its addresses before DHCP gave it one; avahi then
    answers for the host name with that address (tests/realstack saw a box alone on its
    network take `table-07-2`): it is this host's, not another's."""
    avahi = {"table-07.local.": {"10.0.2.15", "127.0.0.1"}}

    def resolve(name: str) -> set[str]:
        return avahi.get(name, set())

    later = ("10.0.2.15", "fe80::5054:ff:fe12:3456")
    assert mdns.choose_name("table-07", [], resolve, lambda: later) == "table-07"
    assert mdns.choose_name("table-07", [], resolve, lambda: ()) == "table-07-2"


def test_advertiser_registers_the_host_name_and_withdraws_it() -> None:
    zc = FakeZeroconf()
    ann = mdns.Announcement("buzzerbox", 80, ("192.168.1.23",))
    with mdns.Advertiser(ann, registrar=lambda: zc, resolve=lambda _: lambda n: set()) as got:
        assert got == ann
        (info,) = zc.registered
        assert info.server == "buzzerbox.local."
        assert info.port == 80
        assert info.type == "_http._tcp.local."
        assert info.name == "buzzerbox scoreboard._http._tcp.local."
        assert info.parsed_addresses() == ["192.168.1.23"]
        assert info.properties[b"path"] == b"/"
        assert not zc.closed
    assert zc.unregistered == [info]
    assert zc.closed


def test_advertiser_follows_new_addresses_under_the_same_service_name() -> None:
    zc = FakeZeroconf()
    adv = mdns.Advertiser(
        mdns.Announcement("table-2", 8000, ()),
        registrar=lambda: zc,
        resolve=lambda _: lambda n: set(),
    )
    assert adv.refresh(("10.0.0.2",)) is False  # not started: nothing to follow
    adv.start()
    assert adv.refresh(()) is False
    assert adv.refresh(("10.0.0.2",)) is True
    (info,) = zc.updated
    assert info.name == zc.registered[0].name == "buzzerbox table-2._http._tcp.local."
    assert info.parsed_addresses() == ["10.0.0.2"]
    assert adv.announcement.address_urls == ["http://10.0.0.2:8000/"]
    adv.stop()
    adv.stop()  # twice is harmless
    assert zc.unregistered == [info]


def test_advertiser_closes_zeroconf_when_no_name_is_free() -> None:
    zc = FakeZeroconf()
    adv = mdns.Advertiser(
        mdns.Announcement(), registrar=lambda: zc, resolve=lambda _: lambda n: {"10.9.9.9"}
    )
    with pytest.raises(MdnsError):
        adv.start()
    assert zc.closed
    assert zc.registered == []


def decode_terminal_qr(text: str) -> list[list[bool]]:
    """Half blocks back to modules: True = dark. The terminal shows dark as blank."""
    rows: list[list[bool]] = []
    for line in text.splitlines():
        top = [ch in " ▄" for ch in line]
        bottom = [ch in " ▀" for ch in line]
        rows += [top, bottom]
    return rows


def test_the_qr_code_printed_is_the_urls() -> None:
    url = "http://buzzerbox.local/"
    text = mdns.qr_text(url)
    qr = segno.make(url, error="m")
    border = 4
    size = int(qr.symbol_size(border=border)[0])
    decoded = decode_terminal_qr(text)
    assert len(decoded[0]) == size
    expected = [[bool(m) for m in row] for row in qr.matrix]
    got = [row[border : size - border] for row in decoded[border : border + len(expected)]]
    assert got == expected


def test_banner_gives_the_url_the_qr_code_and_the_addresses() -> None:
    ann = mdns.Announcement("buzzerbox", 80, ("192.168.1.23",))
    text = mdns.banner(ann)
    assert text.startswith("buzzerbox scoreboard: http://buzzerbox.local/\n")
    assert mdns.qr_text(ann.url).rstrip("\n") in text
    assert "http://192.168.1.23/" in text
    assert "connect the box" in mdns.banner(mdns.Announcement())
