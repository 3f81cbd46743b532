"""Threads that write each live-stream change to every phone (on waitress).

Waking a thousand stream threads for every pad press costs a thousand GIL hand-overs:
~300 ms until the last phone has it on two cores (tests/bench/phones.py), and keeping
a thread for every phone costs its memory (35 KB a phone, issue 40). So under waitress
a stream's thread only writes the response head and the first state, then hands its
connection over (handover.py) to the `Fanout` and goes back to serve requests: a live
phone is its socket and its place here, no thread. `threads` sender threads (named
bb-fanout-1, bb-fanout-2, ... in the system's lists) each write every new message to
their share of the connections (a shard: each phone stays in one, so its messages stay
in order), their keepalives, and the end of each stream when its time is up. Each
change is one delta, framed once for all (sse.py): for every phone that had the
one before, a sender's whole work is one non-blocking write of the same bytes, a few
µs of CPU, nearly all of it the kernel's. A sender keeps those phones in step apart
(shard.py, `Shard.steady`), by their sockets' numbers (its own copies, `own_copy`), and
writes them all in one call (`send_steady`): live/_sendall.c's loop of send()s with
the GIL let go once, as the one-send limit server does, or where that was not built,
the Python reference beside it, a map() of os.write in C (`send_steady_python`); the
others catch up one by one (`send_others`). A sender waits on one epoll set
(shard.py, `Poller`) of its phones' sockets and the stream's `Bell`, which every new
version rings, with one timer for all its streams: the next thing due, the keepalive
(`keepalive_s` after the last thing every phone was sent, written as a change is: once
framed, by C's loop), the next stream's end, or, while a phone is still taking a
message, a look at it `FLUSH_S` later. So a phone that hangs up is let go as soon as
its socket says so, and between games a sender wakes once a keepalive, for nothing
else (tests/live/test_fanout_wakes.py). What a phone's socket does not take waits on
its connection and goes first (connection.py); a phone that has stopped reading (more
than `backlog_limit` bytes waiting) is skipped, never waited for; the next change or
keepalive once it reads brings it up to date (the deltas it missed, or the full
state). A sender starts with the first phone of its shard, not at start-up. When a
stream is over (hung up, or its time up), the fanout closes its socket and tells the
stream (`Connection.when_done`): its place among the phones and its address's stream
slot are given back then (handover.py).

One sender is the default: its loop lets go of the GIL (the C loop once a round, the
Python one at each write), so more senders could run the kernel's part of their
writes on other cores, but on the 2 shared cores measured (tests/bench/README.md) two
were slower, for more CPU (with the Python loop); on a Pi's 4 cores it is not
measured yet (`fanout_threads`). With the GIL let go for the whole round, the box's
other threads (the pad boards' readers, the rules, the log) run beside it rather than
in its gaps, and a round no longer waits for the GIL between two phones.

With BUZZERBOX_FANOUT_ROUNDS naming a file, each sender appends a line per round
for tests/bench/phones.py: the version, the sender, the monotonic times of its first
and last send, and the phones it sent to.

On any other server than waitress (or without the fanout) sse.py's
one-thread-per-stream path runs.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from itertools import islice, repeat

from buzzerbox.live.connection import Connection, Payloads, chunk
from buzzerbox.live.shard import Bell, Shard
from buzzerbox.live.sse import Stream, keepalive_frame
from buzzerbox.threadname import name_thread

#: one non-blocking send of the bytes to each of the numbers: the places that did not take it all
SendAll = Callable[[list[int], bytes], list[tuple[int, int]]]


def c_loop() -> SendAll | None:
    """live/_sendall.c's loop (pyproject: an optional extension), or None where it could
    not be built (no C compiler or Python headers): the box runs the Python one then."""
    try:
        from buzzerbox.live._sendall import send_all
    except ImportError:
        return None
    return send_all


#: the loop the fanout writes the phones in step with: C where it was built
SEND_ALL = c_loop()
#: the fanout writes with live/_sendall.c's loop (else in Python)
FAST = SEND_ALL is not None
#: what `buzzerbox serve` says where it is not
SLOW_LOOP = (
    "the phones are written by the Python loop, about 1 µs more per phone and event: "
    "live/_sendall.c was not built (pip install needs a C compiler and Python's headers, "
    "on Debian: apt install gcc python3-dev, then the install again)"
)

#: the longest a sender waits at once (s): epoll's timeout has a limit (ms in an int)
LONGEST_WAIT_S = 3600.0
#: how soon a sender looks again at a phone still taking a message (s)
FLUSH_S = 0.05
#: the senders' names in the system (`top -H`, /proc/<pid>/task/*/comm): bb-fanout-<n>
THREAD_NAME = "bb-fanout"
#: the most sender threads
MAX_THREADS = 8
#: a file each round's times are appended to (for the bench), if set
ROUNDS_ENV = "BUZZERBOX_FANOUT_ROUNDS"


def check_threads(threads: int) -> None:
    """Refuse a count of sender threads out of range (ValueError, saying what is allowed)."""
    if not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"fanout_threads {threads} is not allowed: it is 1 to {MAX_THREADS}")


class Fanout:
    """The threads that write every change of the stream to every connection."""

    def __init__(
        self,
        stream: Stream,
        keepalive_s: float = 2.0,
        backlog_limit: int = 64 * 1024,
        threads: int = 1,
    ) -> None:
        check_threads(threads)
        self.stream = stream
        self.keepalive_s = keepalive_s
        self.keepalive = keepalive_frame(keepalive_s)
        self.keepalives = (self.keepalive, chunk(self.keepalive))  # [is_chunked]
        self.backlog_limit = backlog_limit
        self._shards = [Shard() for _ in range(threads)]
        self._lock = threading.Lock()  # to choose a shard and start its thread
        rounds = os.environ.get(ROUNDS_ENV)
        self._rounds = os.open(rounds, os.O_WRONLY | os.O_APPEND | os.O_CREAT) if rounds else -1

    @property
    def threads(self) -> int:
        return len(self._shards)

    @property
    def loads(self) -> list[int]:
        """How many phones each sender thread has."""
        return [len(shard.members) for shard in self._shards]

    def connections(self) -> list[Connection]:
        """The streams the fanout writes now."""
        out: list[Connection] = []
        for shard in self._shards:
            with shard.lock:
                out.extend(shard.members)
        return out

    def add(self, connection: Connection) -> None:
        """Give the connection to the sender with the fewest (started with its first)."""
        with self._lock:
            number = min(range(len(self._shards)), key=lambda n: len(self._shards[n].members))
            shard = self._shards[number]
            connection.shard = number
            connection.lock = shard.lock
            with shard.lock:
                shard.join(connection)
            if shard.thread is None:  # started by a phone, not at start-up
                shard.thread = threading.Thread(
                    target=self._run, args=(shard, number), name=f"sse-fanout-{number + 1}",
                    daemon=True,
                )  # fmt: skip
                shard.thread.start()

    def remove(self, connection: Connection) -> None:
        """Let the phone go now (its socket closed), and say so (`Connection.done`)."""
        shard = self._shards[connection.shard]
        with shard.lock:  # not in the middle of a round: nothing more is sent to it
            connection.gone()
            shard.leave(connection)
        connection.done()

    def close(self) -> None:
        """End every stream (its last chunk; the browsers come back to the next box)."""
        for shard in self._shards:
            with shard.lock:
                over = list(shard.members)
                for connection in over:
                    connection.end()
                    shard.leave(connection)
            for connection in over:
                connection.done()

    def _run(self, shard: Shard, number: int) -> None:
        """A sender's life: it waits on its poller (its phones' sockets and the stream's
        `Bell`) until a phone hangs up, a new version comes, or something is due (the
        keepalive, the next stream's end, a look at a phone still taking a message),
        and not otherwise: at rest it wakes once a keepalive."""
        name_thread(f"{THREAD_NAME}-{number + 1}")
        bell = Bell()
        shard.poller.watch(bell.fd)
        self.stream.listen(bell.ring)
        version = self.stream.version
        keepalive_at = time.monotonic() + self.keepalive_s
        while True:  # a daemon thread, for the life of the server
            now = time.monotonic()
            due = min(keepalive_at, shard.next_end)
            if shard.waiting:  # a phone is still taking a message: look again soon
                due = min(due, now + FLUSH_S)
            ready = shard.poller.poll(min(max(due - now, 0.0), LONGEST_WAIT_S))
            if ready and any(fd == bell.fd for fd, _ in ready):
                bell.hush()  # before the version is read: a later one rings again
            latest = self.stream.version
            with shard.lock:  # no stream thread adds or writes a connection now
                now = time.monotonic()
                if shard.waiting:
                    shard.flush()
                if latest != version:
                    started = time.monotonic()
                    self.send_all(shard, version, latest)
                    phones = len(shard.members)
                    keepalive_at = now + self.keepalive_s  # each phone heard something
                elif now >= keepalive_at:
                    keepalive_at = now + self.keepalive_s
                    self.send_keepalives(shard, version)
                over = shard.look_for_hangups(now, ready)
            for connection in over:  # their places given back, no sender's lock held
                connection.done()
            if latest != version:
                if self._rounds >= 0:
                    ended = time.monotonic()
                    line = f"{latest} {number + 1} {started:.6f} {ended:.6f} {phones}\n"
                    os.write(self._rounds, line.encode())
                version = latest

    def send_all(self, shard: Shard, before: int, latest: int) -> None:
        """Bring the shard's connections to `latest`: those in step at `before` (nearly
        all of them) get the deltas since, framed once, by one non-blocking send() each;
        the others catch up. The caller holds the shard's lock."""
        if shard.dirty:
            shard.sort(before)
        data = self.stream.deltas(before, latest)
        payloads = Payloads(self.stream)
        if data is None:  # the ring lost them (a sender far behind): each catches up
            shard.sync()
            for c in shard.members:
                c.catch_up(payloads, self.backlog_limit)
            shard.dirty = True
            return
        framings = (data, chunk(data))  # [is_chunked]
        self.write_steady(shard, framings, latest)
        if shard.others:
            self.send_others(shard.others, payloads, framings, before, latest)
            caught = [
                c for c in shard.others if c.version == latest and c.is_open and not c.pending
            ]
            for c in caught:  # in step from now on
                shard.others.remove(c)
                shard.step(c)

    def send_keepalives(self, shard: Shard, version: int) -> None:
        """The keepalive to every phone in step at `version` (the sender's), framed once
        and written as a change is (`send_steady`, C's loop); the others catch up or get
        it one by one (`Connection.keepalive`). The caller holds the shard's lock."""
        if shard.dirty:
            shard.sort(version)
        self.write_steady(shard, self.keepalives, version)
        if shard.others:
            payloads = Payloads(self.stream)
            for c in shard.others:
                c.keepalive(payloads, self.backlog_limit, self.keepalive)
            shard.dirty = True  # some may have caught up, some be waiting now

    def write_steady(self, shard: Shard, framings: tuple[bytes, bytes], version: int) -> None:
        """One non-blocking write of `framings[is_chunked]` to each phone in step, which
        are at `version` after it; one that did not take it all falls out of step (what
        it did not take waits on it), one whose socket failed is gone."""
        for framing, fds, steady in zip(framings, shard.fds, shard.steady, strict=True):
            for i, sent in self.send_steady(fds, framing) if fds else ():
                c = steady[i]  # out of step: sorted again next round
                c.version = version
                if sent < 0:  # reset, or closed by the phone: it is gone
                    c.gone()
                else:  # the rest waits on the connection, sent as the phone reads
                    c.pending = framing[sent:]
                shard.dirty = True
        shard.at = version

    @staticmethod
    def send_steady(fds: list[int], payload: bytes) -> list[tuple[int, int]]:
        """One non-blocking write of `payload` to each of `fds`: which of them (by place)
        did not take it all, with what they took (0: its buffer was full, -1: an error).
        live/_sendall.c's loop where it was built (`FAST`), else `send_steady_python`.
        Nothing else writes these sockets while the fanout has them (`remove` takes the
        lock before the stream's thread ends the response)."""
        if SEND_ALL is not None:
            return SEND_ALL(fds, payload)
        return Fanout.send_steady_python(fds, payload)

    @staticmethod
    def send_steady_python(fds: list[int], payload: bytes) -> list[tuple[int, int]]:
        """`send_steady` in Python, its reference: the loop over a thousand phones is
        map()'s, in C, no Python code per phone while every phone takes the bytes (a
        socket that cannot raises, and the loop goes on after it); each write lets go of
        the GIL and takes it back, and another thread may take it in between (measured:
        tests/bench/README.md)."""
        n = len(payload)
        sent: list[int] = []
        while len(sent) < len(fds):
            try:
                sent.extend(map(os.write, islice(fds, len(sent), None), repeat(payload)))
            except BlockingIOError:  # its buffer is full: nothing taken
                sent.append(0)
            except OSError:
                sent.append(-1)
        if sent.count(n) == len(sent):
            return []
        return [(i, took) for i, took in enumerate(sent) if took != n]

    def send_others(
        self,
        others: list[Connection],
        payloads: Payloads,
        framings: tuple[bytes, bytes],
        before: int,
        latest: int,
    ) -> None:
        """The connections not in step: after what waits of theirs, or skipped while they
        do not read (more than `backlog_limit` waiting), or caught up from where they are."""
        limit = self.backlog_limit
        for c in others:
            if not c.is_open or c.version >= latest or len(c.pending) > limit:
                continue  # gone, there already, or not reading: left behind for now
            if c.version != before:
                c.catch_up(payloads, limit)
                continue
            c.version = latest
            c.write(framings[c.is_chunked])
