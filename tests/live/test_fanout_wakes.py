"""When a fanout sender (live/fanout.py) wakes: it waits on one epoll set of its phones'
sockets and the stream's bell, with one timer for all its streams, so between games it
wakes once a keepalive and for nothing else (issue 40: a box at rest with a TV and 10
phones open). Its waits are watched here (each one's timeout, and what woke it), on its
own clock, set by the test: a timeout is exact, and no test waits for one to pass."""

from __future__ import annotations

import queue
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from buzzerbox.live import fanout as fanout_module
from buzzerbox.live import shard as shard_module
from buzzerbox.live.connection import LAST_CHUNK, Connection, chunk
from buzzerbox.live.fanout import LONGEST_WAIT_S, Fanout
from buzzerbox.live.shard import Poller, own_copy
from buzzerbox.live.sse import Stream, keepalive_frame

from live.test_hangups import Phones, read_some  # type: ignore[import-not-found]

KEEPALIVE_S = 30.0
#: no stream ends in these tests unless it says so
NEVER = 1e12


class Clock:
    """The sender's time.monotonic(), as the test sets it."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


class Waits:
    """A sender's waits on its poller, in order: ("wait", its timeout in s) as it begins,
    ("woke", the numbers ready) as it ends (the pollers made while it watches: one here,
    a fanout of one sender's)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.seen: queue.Queue[tuple[str, Any]] = queue.Queue()
        seen = self.seen

        class Watched(Poller):
            def __init__(self) -> None:
                super().__init__()
                real = self.poll

                def poll(timeout: float) -> list[tuple[int, int]]:
                    seen.put(("wait", timeout))
                    ready: list[tuple[int, int]] = real(timeout)
                    seen.put(("woke", sorted(fd for fd, _ in ready)))
                    return ready

                self.poll = poll

        monkeypatch.setattr(shard_module, "Poller", Watched)

    def next(self) -> tuple[str, Any]:
        return self.seen.get(timeout=10)

    def until_waiting(self) -> float:
        """The timeout of the next wait that begins (those before it passed over)."""
        while True:
            what, value = self.next()
            if what == "wait":
                return float(value)


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> Waits:
    return Waits(monkeypatch)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    made = Clock()
    monkeypatch.setattr(fanout_module, "time", made)
    return made


@pytest.fixture
def phones() -> Iterator[Phones]:
    made = Phones()
    yield made
    made.close()


def nothing(latest: Any, is_admin: bool) -> str | None:
    return None


def phone_of(
    fanout: Fanout, phones: Phones, *, ends_at: float = NEVER
) -> tuple[Connection, socket.socket]:
    """A phone's stream handed to the fanout, as live/handover.py does (chunked, at the
    stream's version)."""
    box_end, addr, phone = phones.open()
    fd = own_copy(box_end, addr)
    box_end.close()
    connection = Connection(fd, True, False, fanout.stream.version, ends_at)
    fanout.add(connection)
    return connection, phone


def when_done(connection: Connection) -> threading.Event:
    told = threading.Event()
    connection.when_done(told.set)
    return told


def test_a_sender_with_nothing_due_waits_for_the_keepalive_and_a_hang_up_wakes_it(
    clock: Clock, phones: Phones, waits: Waits
) -> None:
    fanout = Fanout(Stream(nothing), keepalive_s=KEEPALIVE_S)
    connection, phone = phone_of(fanout, phones)
    fd, done = connection.fd, when_done(connection)
    assert waits.until_waiting() == KEEPALIVE_S  # no look every half second
    phone.close()
    assert waits.next() == ("woke", [fd])  # its socket, not a timer
    assert done.wait(10) and not connection.is_open and fanout.loads == [0]
    fanout.close()


def test_a_new_version_wakes_the_sender_at_once_and_puts_the_keepalive_off(
    clock: Clock, phones: Phones, waits: Waits
) -> None:
    stream = Stream(nothing)
    fanout = Fanout(stream, keepalive_s=2.0)
    _, phone = phone_of(fanout, phones)
    assert waits.until_waiting() == 2.0
    clock.now = 1.5
    stream.push("delta", "[]")
    message = chunk(b"id: 1.%s\nevent: delta\ndata: []\n\n" % stream.boot.encode())
    assert read_some(phone, len(message)) == message
    # every phone heard something at 1.5: the next keepalive is due 2 s after, at 3.5
    assert waits.until_waiting() == 2.0
    fanout.close()


def test_the_keepalive_goes_to_the_phones_in_step_in_one_pass(
    clock: Clock, phones: Phones, waits: Waits, monkeypatch: pytest.MonkeyPatch
) -> None:
    fanout = Fanout(Stream(nothing), keepalive_s=0.001)
    passes: queue.Queue[tuple[list[int], bytes]] = queue.Queue()
    real = Fanout.send_steady

    def send_steady(fds: list[int], payload: bytes) -> list[tuple[int, int]]:
        passes.put((list(fds), payload))
        return real(fds, payload)

    monkeypatch.setattr(fanout, "send_steady", send_steady)
    opened = [phone_of(fanout, phones) for _ in range(3)]
    waits.until_waiting()  # the sender has begun (at 0 on its clock)
    keepalive = chunk(keepalive_frame(0.001))
    clock.now = 1.0  # due (the sender's waits are of 1 ms, real): the keepalive goes
    while True:
        fds, payload = passes.get(timeout=10)
        if payload == keepalive:
            break
    assert sorted(fds) == sorted(c.fd for c, _ in opened)  # all three in one call
    for _, phone in opened:
        assert read_some(phone, len(keepalive)).endswith(keepalive)
    fanout.close()


def test_what_a_phone_sends_on_its_stream_is_read_away_not_taken_for_a_hang_up(
    clock: Clock, phones: Phones, waits: Waits
) -> None:
    fanout = Fanout(Stream(nothing), keepalive_s=KEEPALIVE_S)
    connection, phone = phone_of(fanout, phones)
    assert waits.until_waiting() == KEEPALIVE_S
    phone.sendall(b"GET /api/events HTTP/1.1\r\n\r\n")  # nothing is asked of it there
    assert waits.next() == ("woke", [connection.fd])
    assert waits.until_waiting() == KEEPALIVE_S  # read: its socket no longer wakes it
    assert connection.is_open and fanout.loads == [1]
    with pytest.raises(BlockingIOError):
        connection.socket.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    fanout.close()


def test_a_streams_end_is_on_the_senders_one_timer(
    clock: Clock, phones: Phones, waits: Waits
) -> None:
    fanout = Fanout(Stream(nothing), keepalive_s=KEEPALIVE_S)
    ending, phone = phone_of(fanout, phones, ends_at=5.0)
    done = when_done(ending)
    assert waits.until_waiting() == 5.0  # its end, before the keepalive
    clock.now = 5.0
    fanout.stream.push(None, "")  # wakes the sender now, rather than in 5 real seconds
    assert read_some(phone, len(LAST_CHUNK) + 1) == LAST_CHUNK  # then the end
    assert done.wait(10) and fanout.loads == [0]
    assert waits.until_waiting() == KEEPALIVE_S  # no stream left to end
    fanout.close()


def test_a_keepalive_further_off_than_epoll_can_wait_is_waited_for_in_parts(
    clock: Clock, phones: Phones, waits: Waits
) -> None:
    fanout = Fanout(Stream(nothing), keepalive_s=1e9)  # epoll: "timeout is too large"
    connection, phone = phone_of(fanout, phones)
    fd, done = connection.fd, when_done(connection)
    assert waits.until_waiting() == LONGEST_WAIT_S
    phone.close()  # the sender is still there to let it go
    assert waits.next() == ("woke", [fd])
    assert done.wait(10)
    fanout.close()
