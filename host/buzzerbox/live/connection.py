"""One phone's live stream as the fanout (fanout.py) writes it: its waitress channel
and socket, its framing, its backlog, the version it has; and `Payloads`, what the
streams at each version need, worked out once per round.

The fanout's common case is one non-blocking write of bytes framed once for every
phone, to the sender's own copy of its socket's number (fanout.py, `send_steady`;
shard.py, `own_copy`); the rest goes through here: what it needs of a stream is kept on the
stream once, as plain attributes (`__slots__`) and the socket's bound `send`; it reads
waitress's channel only while something of this stream may be queued there (`queued`),
and it takes no lock per phone (a stream's `lock` is its sender's, held for a whole
round; see fanout.py).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from typing import Any

from buzzerbox.live.sse import Stream


class Connection:
    """One phone's stream as the fanout writes to it: framing, backlog, the version sent."""

    __slots__ = (
        "channel",
        "closed",
        "fd",
        "is_admin",
        "is_chunked",
        "is_open",
        "lock",
        "queued",
        "shard",
        "sock_send",
        "socket",
        "version",
    )

    def __init__(self, channel: Any, chunked: bool, is_admin: bool, version: int) -> None:
        self.channel = channel
        self.socket = channel.socket
        self.sock_send: Callable[[bytes], int] = self.socket.send  # bound once
        #: its sender's own copy of the socket's number (shard.py, `own_copy`), else -1
        self.fd = -1
        self.is_chunked = chunked
        self.is_admin = is_admin
        self.version = version
        self.is_open = True
        #: held to write or close it: its sender's lock (Fanout.add), the same for its shard
        self.lock = threading.Lock()
        self.closed = threading.Event()
        #: waitress may hold bytes of it not yet sent (the head, at first): look there
        self.queued = True
        self.shard = 0  # which of the fanout's threads writes it (fanout.py)

    def catch_up(self, payloads: Payloads, backlog_limit: int) -> None:
        """Bring the phone to the stream's latest version (the deltas since its version, or
        the full state); a phone that has not read what it was sent is left behind for
        now (the next change or keepalive brings it up to date, never a queue). The
        caller holds the lock, as for every method here but `close`."""
        if not self.is_open or self.channel.total_outbufs_len > backlog_limit:
            return
        version, data = payloads.get(self.version, self.is_admin, self.is_chunked)
        if version > self.version:
            self.version = version
            self.write(data)

    def keepalive(self, payloads: Payloads, backlog_limit: int, message: bytes) -> None:
        """The keepalive (livestate.py), or what the phone missed."""
        if self.version < payloads.stream.version:
            self.catch_up(payloads, backlog_limit)
        elif self.is_open and self.channel.total_outbufs_len <= backlog_limit:
            self.write(chunk(message) if self.is_chunked else message)

    def write(self, data: bytes) -> bool:
        """Write stream bytes, framed; False when the phone is gone.

        Straight to the socket when waitress has nothing queued for it (no buffer
        copies, and the server's loop is not woken); what the socket does not take
        now is queued in waitress, which sends it when the phone reads."""
        channel = self.channel
        try:
            with channel.outbuf_lock:
                if not channel.total_outbufs_len and channel.connected:
                    try:
                        sent = self.sock_send(data)
                    except BlockingIOError:
                        sent = 0
                    if sent == len(data):
                        return True
                    data = data[sent:]
            channel.write_soon(data)
            self.queued = True
        except Exception:  # ClientDisconnected, or a socket error: the phone is gone
            self.gone()
            return False
        return True

    def gone(self) -> None:
        self.is_open = False
        self.closed.set()

    def is_hung_up(self) -> bool:
        """The phone closed its end (waitress reads nothing while the stream runs): asked
        only of a socket the fanout's poll found readable (fanout.py, `Shard`)."""
        sock = getattr(self.channel, "socket", None)
        if sock is None or not self.channel.connected:
            return True
        try:
            return bool(sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"")
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return True


def chunk(data: bytes) -> bytes:
    """One chunk of an HTTP/1.1 chunked body."""
    return b"%X\r\n%s\r\n" % (len(data), data)


class Payloads:
    """What the streams at each version need, worked out once per round of the fanout
    (most phones are at the same version: one delta, framed once, for all of them)."""

    def __init__(self, stream: Stream) -> None:
        self.stream = stream
        self._made: dict[tuple[int, bool, bool], tuple[int, bytes]] = {}

    def get(self, version: int, is_admin: bool, chunked: bool) -> tuple[int, bytes]:
        key = (version, is_admin, chunked)
        made = self._made.get(key)
        if made is None:
            latest, data = self.stream.catch_up(version, is_admin)
            made = self._made[key] = (latest, chunk(data) if chunked and data else data)
        return made
