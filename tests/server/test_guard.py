"""The guard's bookkeeping on its own (server/guard.py): who counts as one address, and
the deadlines of bodies. Its work on real connections: tests/faults/
test_slow_clients.py, test_uploads.py and tests/mqtt/test_hub_guard.py."""

from __future__ import annotations

from types import SimpleNamespace

from buzzerbox.errors import Words
from buzzerbox.server.address import address_key
from buzzerbox.server.guard import Guard


def test_an_ipv6_64_is_one_address_and_a_mapped_ipv4_is_its_ipv4() -> None:
    assert address_key("2001:db8:1:2::5") == address_key("2001:db8:1:2:ffff::9")
    assert address_key("2001:db8:1:2::5") != address_key("2001:db8:1:3::5")
    assert address_key("::ffff:10.0.0.7") == "10.0.0.7"
    assert address_key("fe80::1%eth0") == address_key("fe80::2")
    assert address_key("::1") == "::1"
    assert address_key("not an address") == "not an address"


def body_on_its_way(*, chunked: bool, length: int) -> SimpleNamespace:
    """A channel whose request's head came at 100 s and whose body is on its way, to
    /api/phones/press (1 KiB at most)."""
    request = SimpleNamespace(headers_finished=True, chunked=chunked, content_length=length)
    return SimpleNamespace(request=request, started_at=100.0, body_most=(Words("a press"), 1024))


def test_a_stalled_chunked_body_has_a_sized_ones_deadline() -> None:
    """Issue 39, item 8: a stalled chunked body was cut after 30 s (waitress's idle
    time; the guard's deadline took the largest body: 138 s), a sized one after 11 s.
    A chunked body's size is now the most its endpoint takes."""
    guard = Guard()
    sized = guard.deadline(body_on_its_way(chunked=False, length=1024))
    chunked = guard.deadline(body_on_its_way(chunked=True, length=0))
    assert sized == chunked == 100.0 + guard.limits.body_s + 1024 / guard.limits.min_rate
