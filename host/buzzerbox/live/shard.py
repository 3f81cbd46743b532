"""One fanout sender's share of the phones (fanout.py): the phones in step, by the
numbers of their sockets (the fanout's own copies, `own_copy`), the rest, and the epoll
set the sender waits on (`Poller`): it tells which phones hung up, and the stream's
`Bell` that a new version rings."""

from __future__ import annotations

import contextlib
import math
import os
import select
import socket
import sys
import threading
from typing import Any

from buzzerbox.live.connection import Connection


class Poller:
    """The sockets a sender watches for hang-ups, by the numbers of its own copies of
    them (`own_copy`), and its `Bell`: an epoll set where there is one (Linux: the
    box's), else a poll set. `unwatch` of a number not watched is no error; `poll(s)`
    waits up to `s` seconds (0: a look) and gives the (number, events) ready."""

    def __init__(self) -> None:
        epoll = getattr(select, "epoll", None)
        if epoll is not None:
            self._set: Any = epoll()
            self._events = select.EPOLLIN | select.EPOLLRDHUP
            self.poll = self._set.poll
        else:
            self._set = select.poll()
            self._events = select.POLLIN
            self.poll = self._poll_ms

    def _poll_ms(self, timeout: float) -> list[tuple[int, int]]:
        return self._set.poll(timeout * 1000)  # type: ignore[no-any-return]

    def watch(self, fd: int) -> None:
        self._set.register(fd, self._events)

    def unwatch(self, fd: int) -> None:
        with contextlib.suppress(OSError, KeyError, ValueError):
            self._set.unregister(fd)


#: what an eventfd is written, to ring it (a pipe takes it as well)
ONE = (1).to_bytes(8, sys.byteorder)


class Bell:
    """What wakes a sender waiting on its `Poller`: a new version of the stream
    (`Stream.listen`). An eventfd where there is one (Linux), else a pipe; `ring` never
    blocks, and rings that come before the sender looks are one."""

    def __init__(self) -> None:
        eventfd = getattr(os, "eventfd", None)
        if eventfd is not None:
            self.fd = self._write_fd = eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        else:
            self.fd, self._write_fd = os.pipe()
            os.set_blocking(self.fd, False)
            os.set_blocking(self._write_fd, False)

    def ring(self) -> None:
        with contextlib.suppress(BlockingIOError):  # rung already, not looked at yet
            os.write(self._write_fd, ONE)

    def hush(self) -> None:
        """Take back the rings so far (the sender looks at the stream after this)."""
        with contextlib.suppress(BlockingIOError):
            os.read(self.fd, 4096)


def own_copy(sock: Any, peer: Any) -> int:
    """A number of the sender's own for the phone's socket (os.dup), or -1.

    waitress may close the socket at any time (its thread, not the sender's) and the
    kernel then gives its number to the next socket or file: the socket's own number,
    kept, could be a stranger's by the time it is written or watched (a thousand phones
    coming and going ended phones' streams so once: tests/live/test_hangups.py). A copy
    keeps its number (and the socket: waitress then closes its own, live/handover.py)
    until the sender closes it (`Shard.leave`). The number is copied only if it is still
    this phone's: the copy's peer is `peer`, the one waitress accepted (its channel's
    `addr`); a socket closed by then, no file left, or another peer give -1, and the
    stream ends there (the browser comes back). `sock` is the socket object the stream
    began with (waitress's channel drops its own once closed)."""
    number = sock.fileno()
    if number < 0:
        return -1
    try:
        copy = os.dup(number)
    except OSError:
        return -1
    try:
        probe = socket.socket(fileno=copy)
        try:
            held = probe.getpeername()
        finally:
            probe.detach()
    except OSError:
        held = None
    if held is None or held != peer:
        os.close(copy)
        return -1
    return copy


class Shard:
    """One sender's connections. Those in step (at the sender's version, open, nothing of
    theirs waiting) are kept apart, by framing, as their sockets' numbers, so a round's
    common case is one send() each, in C (`Fanout.send_steady`), reading nothing of the
    stream; their versions are the shard's (`at`) until `sync` writes them back. The rest
    catch up one by one. An epoll set of the sockets tells which phones may have hung up.

    A socket is closed when its connection leaves, and its number may then be the next
    file's: the lists are sorted again (`dirty`) before any round writes them."""

    def __init__(self) -> None:
        self.members: set[Connection] = set()
        #: held for a round, and to add, end or leave a connection: its connections' `lock`
        self.lock = threading.Lock()
        #: in step at version `at`: [not chunked, chunked] (Connection.is_chunked), the
        #: connections and the numbers of their sockets, in the same order
        self.steady: tuple[list[Connection], list[Connection]] = ([], [])
        self.fds: tuple[list[int], list[int]] = ([], [])
        self.at = -1
        self.others: list[Connection] = []
        #: the lists above need sorting again (a phone came, went or fell out of step)
        self.dirty = True
        self.poller = Poller()
        self.by_fd: dict[int, Connection] = {}
        #: the earliest `ends_at` of its connections (time.monotonic()), inf with none
        self.next_end = math.inf
        self.thread: threading.Thread | None = None

    def join(self, connection: Connection) -> None:
        """The caller holds the lock."""
        self.members.add(connection)
        self.poller.watch(connection.fd)
        self.by_fd[connection.fd] = connection
        self.next_end = min(self.next_end, connection.ends_at)
        self.dirty = True

    def leave(self, connection: Connection) -> None:
        """The caller holds the lock: no round is writing the socket it closes."""
        self.members.discard(connection)
        fd, connection.fd = connection.fd, -1
        connection.is_open = False
        if fd >= 0:
            self.poller.unwatch(fd)
            del self.by_fd[fd]
            connection.socket.close()
        self.dirty = True

    def sync(self) -> None:
        """Write the version of the connections in step back to each of them (never
        back: one may have caught up further on its own since)."""
        at = self.at
        for steady in self.steady:
            for c in steady:
                if c.version < at:
                    c.version = at

    def sort(self, version: int) -> None:
        """Put each connection in step at `version` with the others of its framing."""
        self.sync()
        self.steady, self.fds, self.others = ([], []), ([], []), []
        for c in self.members:
            if c.version == version and c.is_open and not c.pending:
                self.step(c)
            else:
                self.others.append(c)
        self.at = version
        self.dirty = False

    def step(self, c: Connection) -> None:
        """Count `c` (at the shard's version) among those in step."""
        self.steady[c.is_chunked].append(c)
        self.fds[c.is_chunked].append(c.fd)

    @property
    def waiting(self) -> bool:
        """Whether a phone has part of a message still to take (`Connection.pending`)."""
        return any(c.pending for c in self.members)

    def flush(self) -> None:
        """Send what waits for each phone, as much as its socket takes now."""
        for c in self.members:
            if c.pending and c.is_open:
                c.flush()
                self.dirty = True  # one that took it all is in step again

    def look_for_hangups(
        self, now: float | None = None, ready: list[tuple[int, int]] | None = None
    ) -> list[Connection]:
        """The streams that are over, let go (the caller tells them `done` once it holds
        the lock no more): phones that hung up, and, given `now` (time.monotonic()), the
        streams whose time is up (`ends_at`), which get their last chunk. `ready` is what
        the sender's wait on the poller gave (only those sockets are looked at); without
        it, one look (epoll_wait() with no wait) for them all."""
        for fd, _ in self.poller.poll(0) if ready is None else ready:
            held = self.by_fd.get(fd)
            if held is not None and held.is_open and held.has_left():
                held.gone()
        ending = now is not None and now >= self.next_end
        end = now if ending and now is not None else -math.inf
        over = [c for c in self.members if not c.is_open or c.ends_at <= end]
        for c in over:
            if c.is_open:
                c.end()
            self.leave(c)
        if ending or over:  # (one that left by `Fanout.remove` may have been the next)
            self.next_end = min((c.ends_at for c in self.members), default=math.inf)
        return over
