"""A live stream under waitress: its head through waitress, then its connection the
fanout's (fanout.py), and its thread free.

`handed_over` is the stream's body. It yields the head (waitress writes it after the
response's status line and headers); then, on the same thread, it sends what waitress
holds of it as far as the socket takes it now and takes the rest (server/detach.py,
`take_unsent`: never waiting for the phone, so a viewer's stream may be opened on
waitress's loop itself, server/loop.py), takes a number of the fanout's own for the
socket (shard.py, `own_copy`), gives the fanout the connection with what the phone has
still to take of its head waiting first (`Connection.pending`, sent as the phone reads),
and ends: waitress ends its side of the request without a last chunk and closes its own
number for the socket, and its thread goes back to serve requests. A live phone is then
its socket and its place in the fanout, no thread (tests/bench/footprint.py measures
what that saves).

A stream's places, among the phones (`Clients`) and in its address's share (the
guard's), are given back when its body is closed. Waitress closes the body as soon as
its side of the request is over, so `HeldOpen` puts that off until the fanout lets the
phone go (it hung up, its time is up: `Connection.when_done`). A phone that hung up
before the fanout could copy its socket's number has its stream end there; one that
does not read its head is as a phone that stopped reading: the first to give way when
the box is full (server/streams.py), its stream over at its time.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import Any, Protocol

from buzzerbox.live.connection import Connection, Payloads
from buzzerbox.live.fanout import Fanout
from buzzerbox.live.shard import own_copy
from buzzerbox.server.detach import detach, take_unsent


class Handover:
    """What the stream's body and its `HeldOpen` share: the connection, once the fanout
    has it."""

    def __init__(self) -> None:
        self.connection: Connection | None = None

    def taken(self) -> tuple[socket.socket, int] | None:
        """The stream's socket once the fanout has it, and the bytes it keeps for the
        phone (server/streams.py's give-way looks there, not at waitress's)."""
        connection = self.connection
        if connection is None:
            return None
        return connection.socket, len(connection.pending)


def handed_over(
    fanout: Fanout,
    channel: Any,
    environ: dict[str, Any],
    head: bytes,
    is_admin: bool,
    version: int,
    max_stream_s: float,
    handover: Handover,
) -> Iterator[bytes]:
    """A stream's body under waitress: the head through waitress, then the connection
    the fanout's, and the iteration over (its thread free)."""
    yield head  # waitress writes the response head and this first chunk
    detach(channel)  # waitress writes nothing more of it, and closes its own number
    sock = channel.socket  # the one the stream began with (waitress drops it once closed)
    rest = take_unsent(channel)
    if rest is None:
        return  # the socket failed: the stream ends
    fd = own_copy(sock, channel.addr)
    if fd < 0:
        return  # hung up already
    chunked = environ.get("SERVER_PROTOCOL") == "HTTP/1.1"
    connection = Connection(fd, chunked, is_admin, version, time.monotonic() + max_stream_s)
    connection.pending = rest  # what the phone has still to take of its head: first
    if connection.has_left():  # left at once: its places back now, not once it is a sender's
        connection.socket.close()
        return
    handover.connection = connection
    try:
        fanout.add(connection)
        with connection.lock:  # its sender's: not in the middle of a round
            connection.catch_up(Payloads(fanout.stream), 1 << 62)  # what came since the head
    except BaseException:
        fanout.remove(connection)  # the fanout keeps no stream gone half-way
        raise


class Closable(Protocol):
    def __iter__(self) -> Iterator[bytes]: ...

    def close(self) -> None: ...


class HeldOpen:
    """A stream's response body (`body`, whose `close` gives its places back), closed by
    waitress at once when its side of the request is over: once the fanout has the
    phone, that close waits until the fanout lets the phone go."""

    def __init__(self, body: Closable, handover: Handover) -> None:
        self.body = body
        self.handover = handover

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.body)

    def close(self) -> None:
        connection = self.handover.connection
        if connection is None:
            self.body.close()
        else:
            connection.when_done(self.body.close)
