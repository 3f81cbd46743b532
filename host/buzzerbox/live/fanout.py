"""Threads that write each live-stream change to every phone (on waitress).

Waking a thousand stream threads for every pad press costs a thousand GIL hand-overs:
~300 ms until the last phone has it on two cores (tests/bench/phones.py). So under
waitress a stream's thread only writes the response head and the first state, then
hands its connection (connection.py) to the `Fanout`: `threads` sender threads
(named bb-fanout-1, bb-fanout-2, ... in the system's lists), each writing every new
message to its share of the connections (a shard: each phone stays in one, so its
messages stay in order) and their keepalives, while the stream threads sleep until
their phone is gone or their time is up. Each change is one delta, framed once for
all (livestate.py): for every phone that had the one before, a sender's whole work
is one non-blocking send() of the same bytes (`send_all`), a few µs of CPU. A
connection whose phone has stopped reading (more than `backlog_limit` bytes unsent)
is skipped, never waited for; the next change or keepalive brings it up to date (the
deltas it missed, or the full state). A sender starts with the first phone of its
shard, not at start-up.

One sender is the default: socket.send() lets go of the GIL, so more senders could
run the kernel's part of their sends on other cores, but on the 2 shared cores
measured (tests/bench/README.md, "Which Pi") two gave no gain that stands out of the noise, for a
little more CPU; on a Pi's 4 cores it is not measured yet (`fanout_threads`).

With BUZZERBOX_FANOUT_ROUNDS naming a file, each sender appends a line per round
for tests/bench/phones.py: the version, the sender, the monotonic times of its first
and last send, and the phones it sent to.

This uses waitress internals (pinned in pyproject): the channel behind
environ["waitress.client_disconnected"], its write_soon() and total_outbufs_len. On
any other server (or without the fanout) sse.py's one-thread-per-stream path runs.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from typing import Any

from buzzerbox.live.connection import Connection, Payloads, chunk
from buzzerbox.live.livestate import LiveState
from buzzerbox.live.sse import keepalive_frame

#: how often a sender looks for phones that hung up (s)
HANGUP_CHECK_S = 0.5
#: the senders' names in the system (`top -H`, /proc/<pid>/task/*/comm): bb-fanout-<n>
THREAD_NAME = "bb-fanout"
#: the most sender threads
MAX_THREADS = 8
#: a file each round's times are appended to (for the bench), if set
ROUNDS_ENV = "BUZZERBOX_FANOUT_ROUNDS"


def name_thread(name: str) -> None:
    """Give the calling thread `name` in the system's lists too (Linux; else nothing)."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/comm", "w") as comm:
            comm.write(name[:15])
    except OSError:
        pass


def check_threads(threads: int) -> None:
    """Refuse a count of sender threads out of range (ValueError, saying what is allowed)."""
    if not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"fanout_threads {threads} is not allowed: it is 1 to {MAX_THREADS}")


class Fanout:
    """The threads that write every change of the hub to every connection."""

    def __init__(
        self,
        hub: LiveState,
        keepalive_s: float = 2.0,
        backlog_limit: int = 64 * 1024,
        threads: int = 1,
    ) -> None:
        check_threads(threads)
        self.hub = hub
        self.keepalive_s = keepalive_s
        self.keepalive = keepalive_frame(keepalive_s)
        self.backlog_limit = backlog_limit
        self._shards: list[set[Connection]] = [set() for _ in range(threads)]
        #: each sender's lock, held for a round: its connections' `lock`
        self._shard_locks = [threading.Lock() for _ in range(threads)]
        self._lock = threading.Lock()
        self._threads: list[threading.Thread | None] = [None] * threads
        rounds = os.environ.get(ROUNDS_ENV)
        self._rounds = os.open(rounds, os.O_WRONLY | os.O_APPEND | os.O_CREAT) if rounds else -1

    @property
    def threads(self) -> int:
        return len(self._shards)

    @property
    def loads(self) -> list[int]:
        """How many phones each sender thread has."""
        with self._lock:
            return [len(shard) for shard in self._shards]

    def connections(self) -> list[Connection]:
        """The streams the fanout writes now."""
        with self._lock:
            return [connection for shard in self._shards for connection in shard]

    def add(self, connection: Connection) -> None:
        """Give the connection to the sender with the fewest (started with its first)."""
        with self._lock:
            shard = min(range(len(self._shards)), key=lambda n: len(self._shards[n]))
            connection.shard = shard
            connection.lock = self._shard_locks[shard]
            self._shards[shard].add(connection)
            if self._threads[shard] is None:  # started by a phone, not at start-up
                thread = threading.Thread(
                    target=self._run, args=(shard,), name=f"sse-fanout-{shard + 1}", daemon=True
                )
                self._threads[shard] = thread
                thread.start()

    def remove(self, connection: Connection) -> None:
        connection.close()
        with self._lock:
            self._shards[connection.shard].discard(connection)

    def _run(self, shard: int) -> None:
        name_thread(f"{THREAD_NAME}-{shard + 1}")
        mine, lock = self._shards[shard], self._shard_locks[shard]
        version = self.hub.version
        keepalive_at = time.monotonic() + self.keepalive_s
        check_at = time.monotonic() + HANGUP_CHECK_S
        while True:  # a daemon thread, for the life of the server
            latest = self.hub.wait_newer(version, min(HANGUP_CHECK_S, self.keepalive_s))
            with self._lock:
                connections = list(mine)
            with lock:  # its connections' lock: no stream thread writes or ends them now
                if time.monotonic() >= check_at:  # not on every change: a syscall per phone
                    check_at = time.monotonic() + HANGUP_CHECK_S
                    for connection in connections:  # a phone that hung up gives its place
                        if connection.is_hung_up():
                            connection.gone()
                payloads = Payloads(self.hub)
                if latest == version:
                    if time.monotonic() < keepalive_at:
                        continue
                    keepalive_at = time.monotonic() + self.keepalive_s
                    for connection in connections:
                        connection.keepalive(payloads, self.backlog_limit, self.keepalive)
                    continue
                started = time.monotonic()
                self.send_all(connections, payloads, version, latest)
            if self._rounds >= 0:
                ended = time.monotonic()
                line = f"{latest} {shard + 1} {started:.6f} {ended:.6f} {len(connections)}\n"
                os.write(self._rounds, line.encode())
            version = latest

    def send_all(
        self, connections: list[Connection], payloads: Payloads, before: int, latest: int
    ) -> None:
        """Bring every connection to `latest`: those at `before` (nearly all of them)
        get the deltas since, framed once, by one non-blocking send() each; the others
        catch up. The caller holds the connections' lock. The loop is kept tight (it
        runs a thousand times per change): a stream's own attributes, and waitress's
        channel only while it may hold some of the stream's bytes."""
        limit = self.backlog_limit
        data = self.hub.deltas(before, latest)
        framings = (b"", b"") if data is None else (data, chunk(data))  # [is_chunked]
        for c in connections:
            if c.version != before or not c.is_open or data is None:
                if c.version < latest:
                    c.catch_up(payloads, limit)
                continue
            payload = framings[c.is_chunked]
            if c.queued:  # waitress may still hold some: after them, or skipped
                channel = c.channel
                if channel.total_outbufs_len or not channel.connected:
                    if channel.total_outbufs_len <= limit:  # else not reading: left behind
                        c.version = latest
                        c.write(payload)
                    continue
                c.queued = False
            # nothing queued in waitress: straight to the socket (nothing else writes
            # it while the fanout has it; `remove` takes the lock before the stream's
            # thread ends the response)
            try:
                sent = c.sock_send(payload)
            except BlockingIOError:
                sent = 0
            except OSError:  # reset, or closed by waitress: the phone is gone
                c.gone()
                continue
            c.version = latest
            if sent != len(payload):
                c.write(payload[sent:])


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
        with connection.lock:  # its sender's: not in the middle of a round
            connection.catch_up(Payloads(fanout.hub), 1 << 62)  # what came since the head
        connection.closed.wait(max_stream_s)
    finally:
        fanout.remove(connection)
