"""How a sender owns, writes and watches the phones' sockets once waitress has let go of
them (live/handover.py): a number of its own for each (live/shard.py, `own_copy`, copied
only while it is still the phone's, so a phone gone never costs a phone still there its
stream: a thousand phones coming and going did so once, tests/faults/test_phone_party.py),
what a phone does not take waiting on its connection, the end of a stream whose time is
up, and the places given back when the fanout lets a phone go."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from buzzerbox.live.connection import LAST_CHUNK, Connection
from buzzerbox.live.fanout import Fanout
from buzzerbox.live.shard import Shard, own_copy

RESET = b"\x01\x00\x00\x00\x00\x00\x00\x00"  # SO_LINGER on, 0 s: close() sends a reset


@dataclass
class Phones:
    """Phones on real TCP connections: the box's end (as waitress accepted it), the
    phone's, and the peer address waitress saw."""

    listener: socket.socket = field(default_factory=socket.socket)
    ends: list[socket.socket] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)

    def open(self) -> tuple[socket.socket, Any, socket.socket]:
        phone = socket.create_connection(self.listener.getsockname())
        box_end, addr = self.listener.accept()
        box_end.setblocking(False)
        self.ends += [box_end, phone]
        return box_end, addr, phone

    def close(self) -> None:
        for end in [*self.ends, self.listener]:
            end.close()


@pytest.fixture
def phones() -> Iterator[Phones]:
    made = Phones()
    yield made
    made.close()


def handed(box_end: socket.socket, addr: Any, *, ends_in: float = 600.0) -> Connection:
    """The fanout's connection for a phone, as handover.py makes it (waitress's own
    number closed after: the connection stays open on the copy)."""
    fd = own_copy(box_end, addr)
    assert fd >= 0
    box_end.close()
    return Connection(
        fd, chunked=True, is_admin=False, version=0, ends_at=time.monotonic() + ends_in
    )


def open_fds() -> set[int]:
    """The process's open file numbers (not the one the listing itself had open)."""
    listed = {int(name) for name in os.listdir("/proc/self/fd")}
    return {fd for fd in listed if is_open(fd)}


def is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def read_some(phone: socket.socket, at_least: int) -> bytes:
    phone.settimeout(5)
    got = b""
    while len(got) < at_least:
        more = phone.recv(65536)
        if not more:
            break
        got += more
    return got


def test_a_stream_stays_open_on_the_fanouts_copy_after_waitress_closes_its_own(
    phones: Phones,
) -> None:
    box_end, addr, phone = phones.open()
    connection = handed(box_end, addr)  # waitress's number is closed now
    assert connection.write(b"data: one\n\n")
    assert read_some(phone, 11) == b"data: one\n\n"
    connection.socket.close()


def test_a_phone_that_hangs_up_is_found_and_one_still_there_is_not(phones: Phones) -> None:
    shard = Shard()
    (a, a_addr, a_phone), (b, b_addr, _) = phones.open(), phones.open()
    first, second = handed(a, a_addr), handed(b, b_addr)
    shard.join(first)
    shard.join(second)
    assert shard.look_for_hangups(time.monotonic()) == []
    a_phone.close()
    assert shard.look_for_hangups(time.monotonic()) == [first]
    assert not first.is_open and first.closed.is_set() and first.fd == -1
    assert second.is_open and shard.members == {second}
    shard.leave(second)


def test_a_phone_reset_or_gone_before_it_was_copied_is_not_copied(phones: Phones) -> None:
    box_end, addr, phone = phones.open()
    phone.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, RESET)
    phone.close()  # a reset: its peer is gone, waitress (not reading) does not know
    assert own_copy(box_end, addr) == -1  # its stream ends: the browser comes back
    other, other_addr, _ = phones.open()
    other.close()  # waitress closed it before the stream could copy it
    assert own_copy(other, other_addr) == -1


@dataclass
class Read:
    """A socket as the stream read it before waitress closed it: its number, which the
    kernel has given to something else by now."""

    number: int

    def fileno(self) -> int:
        return self.number


def test_a_number_given_to_the_next_phone_or_a_file_is_not_copied_for_the_phone_gone(
    phones: Phones, tmp_path: Any
) -> None:
    (_, a_addr, _), (b, b_addr, _) = phones.open(), phones.open()
    before = open_fds()
    assert own_copy(Read(b.fileno()), a_addr) == -1  # b's peer, not a's
    with open(tmp_path / "log", "wb") as file:
        assert own_copy(Read(file.fileno()), a_addr) == -1  # a file: no peer
    assert own_copy(Read(os.sysconf("SC_OPEN_MAX") - 1), a_addr) == -1  # closed
    assert open_fds() == before  # no copy left open
    copy = own_copy(b, b_addr)
    assert copy >= 0
    os.close(copy)


def test_the_socket_is_closed_when_its_phone_leaves(phones: Phones) -> None:
    shard = Shard()
    before = open_fds()
    box_end, addr, phone = phones.open()
    connection = handed(box_end, addr)
    shard.join(connection)
    assert connection.fd not in before
    shard.leave(connection)
    assert connection.fd == -1 and not connection.is_open
    assert open_fds() == before | {phone.fileno()}
    assert read_some(phone, 1) == b""  # the box closed it: the phone sees the end


def test_a_stream_whose_time_is_up_ends_with_its_last_chunk(phones: Phones) -> None:
    shard = Shard()
    box_end, addr, phone = phones.open()
    ending = handed(box_end, addr, ends_in=10.0)
    shard.join(ending)
    assert shard.look_for_hangups(time.monotonic()) == []
    assert shard.look_for_hangups(time.monotonic() + 10.0) == [ending]
    assert read_some(phone, len(LAST_CHUNK) + 1) == LAST_CHUNK  # then the end
    assert not ending.is_open and ending.fd == -1


def test_what_a_phone_does_not_take_waits_and_goes_first_as_it_reads(phones: Phones) -> None:
    box_end, addr, phone = phones.open()
    slow = handed(box_end, addr)
    slow.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    big = b"x" * 300_000
    assert slow.write(big) and slow.pending  # more than the kernel holds for it
    assert slow.write(b"y")  # after what waits, never before it
    got = b""
    phone.settimeout(5)
    while len(got) < len(big) + 1:
        got += phone.recv(65536)
        slow.flush()
    assert got == big + b"y" and slow.pending == b""
    slow.socket.close()


def test_the_places_are_given_back_once_when_the_fanout_lets_the_phone_go(
    phones: Phones,
) -> None:
    box_end, addr, _ = phones.open()
    connection = handed(box_end, addr)
    told: list[str] = []
    connection.when_done(lambda: told.append("first"))
    assert told == []  # not while the fanout has it
    connection.done()
    connection.done()  # once
    connection.when_done(lambda: told.append("after"))  # at once: it is over
    assert told == ["first", "after"]
    connection.socket.close()


def test_a_round_reaches_every_phone_in_step_and_lets_a_reset_one_go(phones: Phones) -> None:
    shard = Shard()
    opened = [phones.open() for _ in range(5)]
    connections = [handed(box_end, addr) for box_end, addr, _ in opened]
    for connection in connections:
        shard.join(connection)
    shard.sort(0)
    reset = opened[2][2]
    reset.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, RESET)
    reset.close()  # a reset, not a goodbye: the box's next write fails
    fell = Fanout.send_steady(shard.fds[1], b"data: one\n\n")
    assert fell == [(shard.steady[1].index(connections[2]), -1)]
    there = [c.fd for c in connections if c is not connections[2]]
    assert Fanout.send_steady(there, b"data: two\n\n") == []  # every one took it all
    for i, (_, _, phone) in enumerate(opened):
        if i != 2:
            assert read_some(phone, 11).startswith(b"data: one\n\n")
    for connection in connections:
        shard.leave(connection)
