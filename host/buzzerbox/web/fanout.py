"""One thread writes each live-stream change to every phone (on waitress).

Waking a thousand stream threads for every pad press costs a thousand GIL hand-overs:
~300 ms until the last phone has it on two cores (tests/bench/phones.py). So under
waitress a stream's thread only writes the response head and the first state, then
hands its connection to the `Fanout`: one thread that writes each new message to
every connection (and the keepalives), while the stream threads sleep until
their phone is gone or their time is up. Each change is one delta, framed once for
all (livestate.py): for every phone that had the one before, the fanout's whole work
is one non-blocking send() of the same bytes (`Fanout.send_all`), a few µs of CPU.
A connection whose phone has stopped reading (more than `backlog_limit` bytes unsent)
is skipped, never waited for; the next change or keepalive brings it up to date (the
deltas it missed, or the full state).

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

from buzzerbox.web.livestate import Hub
from buzzerbox.web.sse import keepalive_frame

#: how often the fanout looks for phones that hung up (s)
HANGUP_CHECK_S = 0.5
#: the fanout thread's name in the system (`top -H`, /proc/<pid>/task/*/comm)
THREAD_NAME = "bb-fanout"


def name_thread(name: str) -> None:
    """Give the calling thread `name` in the system's lists too (Linux; else nothing)."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/comm", "w") as comm:
            comm.write(name[:15])
    except OSError:
        pass


class Connection:
    """One phone's stream as the fanout writes to it: framing, backlog, the version sent."""

    def __init__(self, channel: Any, chunked: bool, is_admin: bool, version: int) -> None:
        self.channel = channel
        self.socket = channel.socket
        self.is_chunked = chunked
        self.is_admin = is_admin
        self.version = version
        self.is_open = True
        self.lock = threading.Lock()
        self.closed = threading.Event()

    def catch_up(self, payloads: Payloads, backlog_limit: int) -> None:
        """Bring the phone to the hub's latest version (the deltas since its version, or
        the full state); a phone that has not read what it was sent is left behind for
        now (the next change or keepalive brings it up to date, never a queue)."""
        with self.lock:
            if not self.is_open or self.channel.total_outbufs_len > backlog_limit:
                return
            version, data = payloads.get(self.version, self.is_admin, self.is_chunked)
            if version > self.version:
                self.version = version
                self.write(data)

    def keepalive(self, payloads: Payloads, backlog_limit: int, message: bytes) -> None:
        """The keepalive (livestate.py), or what the phone missed."""
        if self.version < payloads.hub.version:
            self.catch_up(payloads, backlog_limit)
            return
        with self.lock:
            if self.is_open and self.channel.total_outbufs_len <= backlog_limit:
                self.write(chunk(message) if self.is_chunked else message)

    def send(self, data: bytes, version: int) -> None:
        """The fanout's fast path: `data` (framed) brings this phone from the version it
        has to `version`. One non-blocking send() when waitress has nothing queued for
        it (nothing else writes a stream's socket while the fanout has it; `remove`
        takes the lock before the stream's thread ends the response); else `write`."""
        with self.lock:
            if not self.is_open:
                return
            self.version = version
            if self.channel.total_outbufs_len or not self.channel.connected:
                self.write(data)
                return
            try:
                sent = self.socket.send(data)
            except BlockingIOError:
                sent = 0
            except OSError:  # reset, or closed by waitress: the phone is gone
                self.gone()
                return
            if sent != len(data):
                self.write(data[sent:])

    def write(self, data: bytes) -> bool:
        """Write stream bytes, framed (caller holds the lock); False when the phone is gone.

        Straight to the socket when waitress has nothing queued for it (no buffer
        copies, and the server's loop is not woken); what the socket does not take
        now is queued in waitress, which sends it when the phone reads."""
        channel = self.channel
        try:
            with channel.outbuf_lock:
                if not channel.total_outbufs_len and channel.connected:
                    try:
                        sent = self.socket.send(data)
                    except BlockingIOError:
                        sent = 0
                    if sent == len(data):
                        return True
                    data = data[sent:]
            channel.write_soon(data)
        except Exception:  # ClientDisconnected, or a socket error: the phone is gone
            self.gone()
            return False
        return True

    def gone(self) -> None:
        self.is_open = False
        self.closed.set()

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


def chunk(data: bytes) -> bytes:
    """One chunk of an HTTP/1.1 chunked body."""
    return b"%X\r\n%s\r\n" % (len(data), data)


class Payloads:
    """What the streams at each version need, worked out once per round of the fanout
    (most phones are at the same version: one delta, framed once, for all of them)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self._made: dict[tuple[int, bool, bool], tuple[int, bytes]] = {}

    def get(self, version: int, is_admin: bool, chunked: bool) -> tuple[int, bytes]:
        key = (version, is_admin, chunked)
        made = self._made.get(key)
        if made is None:
            latest, data = self.hub.catch_up(version, is_admin)
            made = self._made[key] = (latest, chunk(data) if chunked and data else data)
        return made


class Fanout:
    """The thread that writes every change of the hub to every connection."""

    def __init__(self, hub: Hub, keepalive_s: float = 2.0, backlog_limit: int = 64 * 1024) -> None:
        self.hub = hub
        self.keepalive_s = keepalive_s
        self.keepalive = keepalive_frame(keepalive_s)
        self.backlog_limit = backlog_limit
        self._connections: set[Connection] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, connection: Connection) -> None:
        with self._lock:
            self._connections.add(connection)
            if self._thread is None:  # started by the first phone, not at start-up
                self._thread = threading.Thread(target=self._run, name="sse-fanout", daemon=True)
                self._thread.start()

    def remove(self, connection: Connection) -> None:
        connection.close()
        with self._lock:
            self._connections.discard(connection)

    def _run(self) -> None:
        name_thread(THREAD_NAME)
        version = self.hub.version
        keepalive_at = time.monotonic() + self.keepalive_s
        check_at = time.monotonic() + HANGUP_CHECK_S
        while True:  # a daemon thread, for the life of the server
            latest = self.hub.wait_newer(version, min(HANGUP_CHECK_S, self.keepalive_s))
            with self._lock:
                connections = list(self._connections)
            if time.monotonic() >= check_at:  # not on every change: a syscall per phone
                check_at = time.monotonic() + HANGUP_CHECK_S
                for connection in connections:  # a phone that hung up gives its place back
                    if connection.is_hung_up():
                        connection.close()
            payloads = Payloads(self.hub)
            if latest == version:
                if time.monotonic() < keepalive_at:
                    continue
                keepalive_at = time.monotonic() + self.keepalive_s
                for connection in connections:
                    connection.keepalive(payloads, self.backlog_limit, self.keepalive)
                continue
            self.send_all(connections, payloads, version, latest)
            version = latest

    def send_all(
        self, connections: list[Connection], payloads: Payloads, before: int, latest: int
    ) -> None:
        """Bring every connection to `latest`: those at `before` (nearly all of them)
        get the deltas since, framed once, by one send() each; the others catch up."""
        limit = self.backlog_limit
        data = self.hub.deltas(before, latest)
        framed = b"" if data is None else chunk(data)
        for connection in connections:
            if connection.version != before or data is None:
                if connection.version < latest:
                    connection.catch_up(payloads, limit)
            elif connection.channel.total_outbufs_len > limit:
                continue  # not reading: left behind for now, as catch_up leaves it
            else:
                connection.send(framed if connection.is_chunked else data, latest)


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
        connection.catch_up(Payloads(fanout.hub), 1 << 62)  # what came since the head
        connection.closed.wait(max_stream_s)
    finally:
        fanout.remove(connection)
