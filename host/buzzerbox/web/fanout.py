"""One thread writes each live-stream message to every phone (on waitress).

Waking a thousand stream threads for every pad press costs a thousand GIL hand-overs:
~300 ms until the last phone has it on two cores (tests/bench/phones.py). So under
waitress a stream's thread only writes the response head and the first state, then
hands its connection to the `Fanout`: one thread that writes each new message to
every connection (and the keepalive comments), while the stream threads sleep until
their phone is gone or their time is up. A connection whose phone has stopped reading
(more than `backlog_limit` bytes unsent) is skipped, never waited for; the next
keepalive brings it up to date.

This uses waitress internals (pinned in pyproject): the channel behind
environ["waitress.client_disconnected"], its write_soon() and total_outbufs_len. On
any other server (or without the fanout) sse.py's one-thread-per-stream path runs.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

from buzzerbox.web.sse import Hub, Message

#: how often the fanout looks for phones that hung up (s)
HANGUP_CHECK_S = 0.5


class Connection:
    """One phone's stream as the fanout writes to it: framing, backlog, the last sent."""

    def __init__(self, channel: Any, chunked: bool, is_admin: bool, version: int) -> None:
        self.channel = channel
        self.is_chunked = chunked
        self.is_admin = is_admin
        self.version = version
        self.is_open = True
        self.lock = threading.Lock()
        self.closed = threading.Event()

    def deliver(self, message: Message, backlog_limit: int) -> bool:
        """Write `message` if it is newer than the last sent; False if skipped."""
        with self.lock:
            if not self.is_open or message.version <= self.version:
                return True
            if self.channel.total_outbufs_len > backlog_limit:
                return False
            self.version = message.version
            return self.write(message.for_(self.is_admin))

    def keepalive(self, latest: Message, backlog_limit: int) -> None:
        """The comment that keeps the line open, or the latest state if it was skipped."""
        with self.lock:
            if not self.is_open or self.channel.total_outbufs_len > backlog_limit:
                return
            if latest.version > self.version:
                self.version = latest.version
                self.write(latest.for_(self.is_admin))
            else:
                self.write(b": keepalive\n\n")

    def write(self, data: bytes) -> bool:
        """Write raw stream bytes (caller holds the lock); False when the phone is gone.

        Straight to the socket when waitress has nothing queued for it (no buffer
        copies, and the server's loop is not woken); what the socket does not take
        now is queued in waitress, which sends it when the phone reads."""
        if self.is_chunked:
            data = b"%X\r\n%s\r\n" % (len(data), data)
        channel = self.channel
        try:
            with channel.outbuf_lock:
                if not channel.total_outbufs_len and channel.connected:
                    try:
                        sent = channel.socket.send(data)
                    except BlockingIOError:
                        sent = 0
                    if sent == len(data):
                        return True
                    data = data[sent:]
            channel.write_soon(data)
        except Exception:  # ClientDisconnected, or a socket error: the phone is gone
            self.is_open = False
            self.closed.set()
            return False
        return True

    def close(self) -> None:
        with self.lock:
            self.is_open = False
        self.closed.set()

    def is_hung_up(self) -> bool:
        """The phone closed its end (waitress reads nothing while the stream runs)."""
        sock = getattr(self.channel, "socket", None)
        if sock is None or not self.channel.connected:
            return True
        try:
            return bool(sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"")
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return True


class Fanout:
    """The thread that writes every new message of the hub to every connection."""

    def __init__(self, hub: Hub, keepalive_s: float = 15.0, backlog_limit: int = 64 * 1024) -> None:
        self.hub = hub
        self.keepalive_s = keepalive_s
        self.backlog_limit = backlog_limit
        self._connections: set[Connection] = set()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="sse-fanout", daemon=True)
        self._thread.start()

    def add(self, connection: Connection) -> None:
        with self._lock:
            self._connections.add(connection)

    def remove(self, connection: Connection) -> None:
        connection.close()
        with self._lock:
            self._connections.discard(connection)

    def _run(self) -> None:
        version = self.hub.latest.version
        keepalive_at = time.monotonic() + self.keepalive_s
        while True:  # a daemon thread, for the life of the server
            message = self.hub.wait_newer(version, min(HANGUP_CHECK_S, self.keepalive_s))
            with self._lock:
                connections = list(self._connections)
            for connection in connections:  # a phone that hung up gives its place back
                if connection.is_hung_up():
                    connection.close()
            if message is None:
                if time.monotonic() < keepalive_at:
                    continue
                keepalive_at = time.monotonic() + self.keepalive_s
                latest = self.hub.latest
                for connection in connections:
                    connection.keepalive(latest, self.backlog_limit)
                continue
            version = message.version
            for connection in connections:
                connection.deliver(message, self.backlog_limit)


def waitress_channel(environ: dict[str, Any]) -> Any | None:
    """The waitress channel serving this request, if the server is waitress."""
    probe = environ.get("waitress.client_disconnected")
    channel = getattr(probe, "__self__", None)
    if channel is None or not hasattr(channel, "write_soon"):
        return None
    return channel


def handed_over(
    fanout: Fanout,
    channel: Any,
    environ: dict[str, Any],
    head: bytes,
    is_admin: bool,
    version: int,
    max_stream_s: float,
) -> Iterator[bytes]:
    """A stream's body under waitress: the head through waitress, the rest by the fanout.
    The stream's thread sleeps until the phone is gone or the stream's time is up."""
    yield head  # waitress writes the response head and this first chunk
    chunked = environ.get("SERVER_PROTOCOL") == "HTTP/1.1"
    connection = Connection(channel, chunked, is_admin, version)
    fanout.add(connection)
    try:
        connection.deliver(fanout.hub.latest, 1 << 62)  # what came since the head was made
        connection.closed.wait(max_stream_s)
    finally:
        fanout.remove(connection)
