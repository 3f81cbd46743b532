"""How fast one address may open connections, decided when the server accepts them.

A crowd of addresses can keep the server busy without holding much: every connection
costs the server an accept, a channel, a read and a parse, and a crowd that opens a
new one for each the server closes fills the kernel's queue of connections waiting
to be accepted. A newcomer (the admin) then waits behind them, or its SYN is dropped
and retried 1, 3 and 7 s later (issue 39, items 3 and 7). So an address may open
`opens_burst` connections in a row and then `opens_per_s` a second; the guard refuses
the rest as it accepts them, before it builds anything for them (guard.py). An address
whose connection the server had to cut (too slow, or made to give way to the memory
budget: held.py) starts again from an empty bucket: a crowd that opens a new
connection for each one cut opens `opens_per_s` a second, not as fast as it can.

The server's accept (`accept_all`, which replaces waitress's `handle_accept`) takes
every connection waiting in one turn of its loop, and refuses those the guard says
no to with one write, then close: no channel is built for them. And on Linux the
kernel hands the server no connection before its first byte has come
(`defer_accept`: TCP_DEFER_ACCEPT, up to the head time): a connection that sends
nothing costs the server nothing (3,000 silent ones took the admin's p95 to 377-568
ms, issue 39, item 7).

`Door` is the bookkeeping alone (a token bucket per address, on an injected clock).
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Callable
from typing import Any

#: connections accepted at most in one turn of the server's loop: all that the kernel
#: keeps waiting (listen.py's backlog), so that none is dropped there
ACCEPT_BURST = 2048


def defer_accept(sock: socket.socket, seconds: float) -> None:
    """The kernel keeps a connection to `sock` until its first byte (at most `seconds`;
    Linux only: elsewhere nothing changes)."""
    if hasattr(socket, "TCP_DEFER_ACCEPT"):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_DEFER_ACCEPT, max(1, int(seconds)))


def accept_all(server: Any, refusal_for: Callable[[str], bytes | None]) -> None:
    """Accept what waits on a waitress `server`, up to ACCEPT_BURST, not one a loop: a
    loop over thousands of connections is slow, and the admin's would wait behind the
    ones reconnecting (issue 28, item 6). A connection whose host `refusal_for` gives
    an answer gets it and is closed; the others become waitress channels as in its
    own `handle_accept`."""
    for _ in range(ACCEPT_BURST):
        pair = server.accept()
        if pair is None:
            return  # none waiting
        conn, addr = pair
        refused = refusal_for(str(addr[0]) if addr else "")
        if refused is not None:
            with contextlib.suppress(OSError):
                conn.setblocking(False)
                conn.send(refused)
            conn.close()
            continue
        try:
            server.set_socket_options(conn)
        except OSError:  # gone already
            conn.close()
            continue
        server.channel_class(server, conn, server.fix_addr(addr), server.adj, server._map)


class Door:
    """A token bucket per address: `burst` openings, refilled at `per_s` a second."""

    def __init__(
        self, per_s: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.per_s = per_s
        self.burst = burst
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # address -> (tokens, at)

    def may_open(self, address: str) -> bool:
        """Whether `address` may open one more connection now (it is counted if so)."""
        now = self.clock()
        tokens, at = self._buckets.get(address, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - at) * self.per_s)
        if tokens < 1.0:
            self._buckets[address] = (tokens, now)
            return False
        self._buckets[address] = (tokens - 1.0, now)
        return True

    def charge(self, address: str) -> None:
        """A connection of `address` was cut: its bucket is empty now."""
        now = self.clock()
        tokens, at = self._buckets.get(address, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - at) * self.per_s)
        self._buckets[address] = (min(tokens, 0.0), now)

    def forget_rested(self) -> None:
        """Forget the addresses whose buckets are full again (they are as new)."""
        now = self.clock()
        rested = [
            address
            for address, (tokens, at) in self._buckets.items()
            if tokens + (now - at) * self.per_s >= self.burst
        ]
        for address in rested:
            del self._buckets[address]

    def __len__(self) -> int:
        return len(self._buckets)
