"""Issue 28, item 6: the admin's lane is reachable whatever the backlog. Waitress
accepts far beyond the guard's limit (so the guard sees every connection, evicts the
old silent ones and serves the admin on its lane), and accepts every waiting
connection in one turn of its loop, not one a turn. tests/bench/attack.py measures
the admin's latency under 3,000 silent connections."""

from __future__ import annotations

import socket

from buzzerbox.web.guard import Guard
from buzzerbox.web.server import bind, connection_limit, make_server, server_options


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
