"""The HTTP server the box and the hub run on: waitress, sized for every live stream.

A live stream on the hub holds one of waitress's worker threads, so the pool may grow
to the screens (`max_phones` streams) plus a reserve for ordinary requests (threads.py
starts them as they are needed), and the live stream refuses connections beyond
`max_phones` so the reserve stays free. The box's streams hold none: once its head is
written, a phone's connection is the fanout's (detach.py, live/handover.py), and a
viewer's stream is served on waitress's loop, no worker woken for it (loop.py). poll()
instead of select() lifts the 1024 file descriptor limit; a low output watermark keeps
a hub's screen that stopped reading from piling up its memory.
See tests/bench/phones.py for the measured latencies.

The guard (guard.py) bounds what a client may hold: the time to send a request's
head and body, connections and streams per address, request bodies in memory (the
body limit is waitress's own `max_request_body_size`, so nothing larger is read,
and `inbuf_overflow` keeps bodies off the disk); it keeps a lane of connections
beyond the limit for the admin. Waitress itself accepts far more (ACCEPT_LIMIT) so
that the guard sees every connection: at waitress's own limit it stops accepting, and
no lane helps a connection the server never accepts. See tests/bench/attack.py.
"""

from __future__ import annotations

import resource
import socket
from typing import Any

from waitress.server import create_server

from buzzerbox.server import detach, loop
from buzzerbox.server.guard import Guard
from buzzerbox.server.threads import OnDemandDispatcher

#: threads beyond the live streams, for the API, the pages and the exports
RESERVE_THREADS = 32
#: connections waitress accepts at most (the guard's limit and lane are far below): a
#: waitress at its connection_limit stops accepting, and the admin's connection would
#: wait in the kernel's backlog behind silent ones the guard never sees (issue 28,
#: item 6); accepted, the guard evicts the old silent ones and serves the admin
ACCEPT_LIMIT = 8192
#: file descriptors kept for the box's own files (logs, databases, serial ports)
SPARE_FDS = 128


def connection_limit(max_phones: int, reserve: int = RESERVE_THREADS) -> int:
    """Connections served at once (the guard's lane comes on top)."""
    return max_phones + reserve + 64


def accept_limit(max_phones: int, lane: int, reserve: int = RESERVE_THREADS) -> int:
    """waitress's connection_limit: ACCEPT_LIMIT, as the file limit allows (never below
    the guard's limit and lane): the box's own files and the fanout's copy of every
    phone's socket (live/shard.py, `own_copy`) come off it."""
    least = connection_limit(max_phones, reserve) + lane
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    room = ACCEPT_LIMIT if soft == resource.RLIM_INFINITY else soft - SPARE_FDS - max_phones
    return max(least, min(ACCEPT_LIMIT, room))


def server_options(
    max_phones: int, guard: Guard, *, reserve: int = RESERVE_THREADS, ident: str = "buzzerbox"
) -> dict[str, Any]:
    limits = guard.limits
    return {
        "threads": max_phones + reserve,
        "connection_limit": accept_limit(max_phones, limits.lane, reserve),
        "backlog": 2048,
        "asyncore_use_poll": True,
        "channel_timeout": limits.idle_s,
        "cleanup_interval": 1,
        "max_request_header_size": 16 * 1024,
        "max_request_body_size": limits.max_body,
        "inbuf_overflow": limits.max_body + 1,  # bodies stay in memory (the guard caps it)
        "outbuf_high_watermark": 256 * 1024,
        "outbuf_overflow": 512 * 1024,
        "ident": ident,
        "expose_tracebacks": False,
    }


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def make_server(
    app: Any,
    sock: socket.socket,
    max_phones: int,
    *,
    reserve: int = RESERVE_THREADS,
    ident: str = "buzzerbox",
    guard: Guard | None = None,
    on_loop: tuple[str, loop.Wants] | None = None,
) -> Any:
    """A waitress server on a bound socket, for `max_phones` live streams and `reserve`
    threads for everything else (started as requests come), guarded by `guard` (the
    app's, to share its counts); the requests `on_loop` names (a path, and whether the
    app serves a request for it without waiting) are served on its loop (loop.py)."""
    guard = guard or Guard()
    options = server_options(max_phones, guard, reserve=reserve, ident=ident)
    threads = OnDemandDispatcher(options["threads"])
    server = create_server(app, sockets=[sock], _dispatcher=threads, **options)
    guard.install(server, connection_limit(max_phones, reserve))
    detach.install(server)  # a live stream's connection goes to the fanout (detach.py)
    if on_loop is not None:
        loop.install(server, *on_loop)
    return server
