"""Issue 28, item 6: the admin's lane is reachable whatever the backlog. Waitress
accepts far beyond the guard's limit (so the guard sees every connection, evicts the
old silent ones and serves the admin on its lane), and accepts every waiting
connection in one turn of its loop, not one a turn. tests/bench/attack.py measures
the admin's latency under 3,000 silent connections."""

from __future__ import annotations

import socket
from types import SimpleNamespace

from buzzerbox.server.guard import Guard
from buzzerbox.server.listen import bind, connection_limit, make_server, server_options


def test_waitress_accepts_beyond_the_guards_limit() -> None:
    guard = Guard()
    options = server_options(1000, guard)
    assert options["connection_limit"] >= 3000 + connection_limit(1000) + guard.limits.lane


def test_one_turn_accepts_every_waiting_connection() -> None:
    sock = bind("127.0.0.1", 0)
    server = make_server(lambda environ, start: [], sock, 4)
    port = server.socket.getsockname()[1]
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
    try:
        before = len(server.active_channels)
        server.handle_accept()  # what the loop calls once when the socket is readable
        assert len(server.active_channels) - before == 20
    finally:
        for client in clients:
            client.close()
        for channel in list(server.active_channels.values()):
            channel.close()
        server.close()


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
