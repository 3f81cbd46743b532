"""One phone's live stream as the fanout (fanout.py) owns it: its socket (the fanout's
own copy of it, shard.py `own_copy`; waitress has let go of the connection, see
live/handover.py), its framing, what it has not taken yet, the version it has, when it
ends; and `Payloads`, what the streams at each version need, worked out once per round.

The fanout's common case is one non-blocking write of bytes framed once for every
phone, to its socket's number (fanout.py, `send_steady`); the rest goes through here:
what it needs of a stream is kept on the stream once, as plain attributes
(`__slots__`), and it takes no lock per phone (a stream's `lock` is its sender's, held
for a whole round; see fanout.py). What a phone's socket does not take at once waits
here (`pending`), and goes first, as the phone reads; a phone that has more than the
fanout's `backlog_limit` waiting is left behind until it reads, never queued further.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable

from buzzerbox.live.sse import Stream

#: the end of a chunked body (HTTP/1.1): the last chunk, empty
LAST_CHUNK = b"0\r\n\r\n"
#: the most of what a phone sent on its stream read away at a time (`has_left`)
READ_AWAY = 4096
#: one lock for every stream's `when_done`/`done` (taken for a moment, rarely)
_DONE_LOCK = threading.Lock()


class Connection:
    """One phone's stream as the fanout writes to it: framing, backlog, the version sent."""

    __slots__ = (
        "_done",
        "_when_done",
        "closed",
        "ends_at",
        "fd",
        "is_admin",
        "is_chunked",
        "is_open",
        "lock",
        "pending",
        "shard",
        "socket",
        "version",
    )

    def __init__(
        self, fd: int, chunked: bool, is_admin: bool, version: int, ends_at: float
    ) -> None:
        #: the fanout's socket object for its own number of the phone's socket
        self.socket = socket.socket(fileno=fd)
        self.socket.setblocking(False)
        self.fd = fd
        self.is_chunked = chunked
        self.is_admin = is_admin
        self.version = version
        #: when the stream ends (time.monotonic()): the browser comes back by itself
        self.ends_at = ends_at
        self.is_open = True
        #: what the phone's socket did not take yet: sent first, as it reads
        self.pending = b""
        #: held to write or close it: its sender's lock (Fanout.add), the same for its shard
        self.lock = threading.Lock()
        self.closed = threading.Event()
        self.shard = 0  # which of the fanout's threads writes it (fanout.py)
        self._when_done: list[Callable[[], None]] = []
        self._done = False

    def catch_up(self, payloads: Payloads, backlog_limit: int) -> None:
        """Bring the phone to the stream's latest version (the deltas since its version, or
        the full state); a phone that has not read what it was sent is left behind for
        now (the next change or keepalive brings it up to date, never a queue). The
        caller holds the lock, as for every method here but `when_done`."""
        if not self.is_open or len(self.pending) > backlog_limit:
            return
        version, data = payloads.get(self.version, self.is_admin, self.is_chunked)
        if version > self.version:
            self.version = version
            self.write(data)

    def keepalive(self, payloads: Payloads, backlog_limit: int, message: bytes) -> None:
        """The keepalive (livestate.py), or what the phone missed."""
        if self.version < payloads.stream.version:
            self.catch_up(payloads, backlog_limit)
        elif self.is_open and not self.pending:
            self.write(chunk(message) if self.is_chunked else message)

    def write(self, data: bytes) -> bool:
        """Write stream bytes, framed, after what waits; False when the phone is gone.
        What the socket does not take now waits (`pending`) for the phone to read."""
        if self.pending:
            self.pending += data
            return self.flush()
        try:
            sent = self.socket.send(data)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:  # reset, or closed by the phone: it is gone
            self.gone()
            return False
        if sent < len(data):
            self.pending = data[sent:]
        return True

    def flush(self) -> bool:
        """Send what waits, as much as the socket takes; False when the phone is gone."""
        try:
            sent = self.socket.send(self.pending)
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:
            self.gone()
            return False
        self.pending = self.pending[sent:]
        return True

    def gone(self) -> None:
        self.is_open = False
        self.closed.set()

    def end(self) -> None:
        """The stream's time is up: its last chunk (where nothing waits: else the phone
        is not reading, and the close says it as well), and it is over."""
        if self.is_open and self.is_chunked and not self.pending:
            with contextlib.suppress(OSError):
                self.socket.send(LAST_CHUNK)
        self.gone()

    def has_left(self) -> bool:
        """Whether the phone closed its end, asked at the hand-over and of a socket the
        sender's poller found ready: what a phone sent on its stream (nothing is asked of
        it there) is read and let go, or the socket would stay ready and wake the sender
        again and again."""
        try:
            return bool(self.socket.recv(READ_AWAY, socket.MSG_DONTWAIT) == b"")
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return True

    def when_done(self, callback: Callable[[], None]) -> None:
        """Call `callback` once the fanout has let the phone go (now, if it has)."""
        with _DONE_LOCK:
            if not self._done:
                self._when_done.append(callback)
                return
        callback()

    def done(self) -> None:
        """The fanout let the phone go (its socket is closed): tell who asked, once."""
        with _DONE_LOCK:
            callbacks, self._when_done, self._done = self._when_done, [], True
        for callback in callbacks:
            callback()


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
