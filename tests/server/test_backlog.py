"""Issue 28, item 6: the admin's lane is reachable whatever the backlog. Waitress
accepts far beyond the guard's limit (so the guard sees every connection, evicts the
old silent ones and serves the admin on its lane), and accepts every waiting
connection in one turn, not one a turn. Issue 39, item 7: a connection that sends
nothing is never handed to the server (TCP_DEFER_ACCEPT), and one from an address over
its caps is refused as it is accepted, with no channel built for it.
tests/bench/attack.py measures the admin's latency under 3,000 silent connections."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

from buzzerbox.server.guard import Guard, Limits
from buzzerbox.server.listen import bind, connection_limit, make_server, server_options


def test_waitress_accepts_beyond_the_guards_limit() -> None:
    guard = Guard()
    options = server_options(1000, guard)
    assert options["connection_limit"] >= 3000 + connection_limit(1000) + guard.limits.lane


@contextmanager
def served(guard: Guard | None = None) -> Iterator[Any]:
    """A guarded waitress server (not run: the test calls its accept) on 127.0.0.1."""
    server = make_server(lambda environ, start: [], bind("127.0.0.1", 0), 4, guard=guard)
    try:
        yield server
    finally:
        for channel in list(server.active_channels.values()):
            channel.close()
        server.close()


def client(server: Any, source: str = "127.0.0.1", first: bytes = b"G") -> socket.socket:
    """A connection to `server` from `source` that has sent `first`."""
    sock = socket.socket()
    sock.bind((source, 0))
    sock.connect(server.socket.getsockname())
    sock.sendall(first)
    return sock


def test_one_turn_accepts_every_waiting_connection() -> None:
    with served() as server:
        clients = [client(server) for _ in range(20)]
        before = len(server.active_channels)
        server.handle_accept()  # what the loop calls once when the socket is readable
        assert len(server.active_channels) - before == 20
        for one in clients:
            one.close()


def test_a_connection_that_sends_nothing_is_not_handed_to_the_server() -> None:
    with served() as server:
        silent = [client(server, first=b"") for _ in range(20)]
        server.handle_accept()
        assert len(server.active_channels) == 0  # they wait in the kernel, not in the box
        for one in silent[:5]:
            one.sendall(b"GET")
        server.handle_accept()
        assert len(server.active_channels) == 5
        for one in silent:
            one.close()


def test_an_address_over_its_caps_is_refused_as_it_is_accepted() -> None:
    """It opened `opens_burst` in a row (a driven clock: no time passes): refused with
    one write, no channel built for it; then `opens_per_s` a second."""
    now = [100.0]
    guard = Guard(Limits(opens_burst=5, opens_per_s=2.0), clock=lambda: now[0])
    with served(guard) as server:
        fast = [client(server, "127.0.9.1") for _ in range(8)]
        other = client(server, "127.0.9.2")
        server.handle_accept()
        assert len(server.active_channels) == 6  # 5 of the fast address's, the other's
        for refused in fast[5:]:
            answer = refused.recv(4096)
            assert answer.startswith(b"HTTP/1.1 503") and b"too many new connections" in answer
        now[0] += 1.0  # 2 more a second
        late = [client(server, "127.0.9.1") for _ in range(3)]
        server.handle_accept()
        assert len(server.active_channels) == 8
        assert late[2].recv(4096).startswith(b"HTTP/1.1 503")
        assert guard.dropped["opens"] == 4
        for one in [*fast, *late, other]:
            one.close()


class Victim:
    """A connection that has waited long for a request (what the guard evicts)."""

    connected, requests, will_close, closed = True, (), False, False

    def handle_close(self) -> None:
        self.closed = True


def channel(address: str) -> SimpleNamespace:
    return SimpleNamespace(address=address, is_lane=False, counted=False)


def test_a_crowded_address_evicts_no_one_for_its_new_connections() -> None:
    now = [100.0]
    guard = Guard(clock=lambda: now[0])
    guard.limit = 2
    crowd = [channel("10.0.0.9") for _ in range(6)]
    for one in crowd[:4]:  # no one to evict yet: over the limit, lane ones
        guard.opened(one)
    victim = Victim()
    guard._victims = [(0.0, victim)]  # waited 100 s
    for one in crowd[4:]:
        guard.opened(one)
    assert not victim.closed  # the crowded address's new ones evict no one
    assert [one.is_lane for one in crowd] == [False, False, True, True, True, True]
    newcomer = channel("10.0.0.10")
    guard.opened(newcomer)  # a phone from another address evicts the old silent one
    assert victim.closed and not newcomer.is_lane
