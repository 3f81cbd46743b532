"""How a sender writes and watches the phones' sockets while waitress may close one at
any time and the kernel hands its number to the next socket or file (live/shard.py,
`own_copy`, `Shard`): the sender works on numbers of its own, copied only while they
are still the phone's, so a phone gone never costs a phone still there its stream (a
thousand phones coming and going did so once: tests/faults/test_phone_party.py)."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from buzzerbox.live.connection import Connection
from buzzerbox.live.fanout import Fanout
from buzzerbox.live.shard import Shard, own_copy


@dataclass
class Channel:
    """What a sender reads of waitress's channel: its socket, the peer it accepted, and
    whether waitress still has it open (waitress says False before it closes it)."""

    socket: Any  # a socket.socket, or a number as read (`Read`)
    addr: Any
    connected: bool = True
    total_outbufs_len: int = 0

    def close(self) -> None:  # as waitress's: its socket is dropped once closed
        self.connected = False
        self.socket.close()
        self.socket = None


@dataclass
class Phones:
    """Phones on real TCP connections: the box's end in a Channel, the phone's kept here."""

    listener: socket.socket = field(default_factory=socket.socket)
    ends: list[socket.socket] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)

    def open(self) -> tuple[Channel, socket.socket]:
        phone = socket.create_connection(self.listener.getsockname())
        box_end, addr = self.listener.accept()
        box_end.setblocking(False)
        self.ends += [box_end, phone]
        return Channel(box_end, addr), phone

    def close(self) -> None:
        for end in [*self.ends, self.listener]:
            end.close()


@pytest.fixture
def phones() -> Iterator[Phones]:
    made = Phones()
    yield made
    made.close()


def stream(channel: Channel) -> Connection:
    connection = Connection(channel, chunked=False, is_admin=False, version=0)
    connection.queued = False
    return connection


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


def test_a_phone_that_hangs_up_is_found_and_one_still_there_is_not(phones: Phones) -> None:
    shard = Shard()
    (a, a_phone), (b, _) = phones.open(), phones.open()
    first, second = stream(a), stream(b)
    shard.join(first)
    shard.join(second)
    shard.look_for_hangups()
    assert first.is_open and second.is_open
    a_phone.close()
    shard.look_for_hangups()
    assert not first.is_open and first.closed.is_set()
    assert second.is_open


def test_a_socket_closed_before_its_phone_joined_is_not_copied_and_ends_its_stream(
    phones: Phones,
) -> None:
    shard = Shard()
    a, _ = phones.open()
    left = stream(a)
    a.close()  # waitress closed it (the phone left at once) before the sender took it
    shard.join(left)  # no error: the sender's thread and the stream's go on
    assert left.fd == -1
    shard.look_for_hangups()
    assert not left.is_open


def test_a_phone_reset_before_it_joined_is_not_copied_and_is_found_gone(
    phones: Phones,
) -> None:
    shard = Shard()
    a, a_phone = phones.open()
    reset = stream(a)
    a_phone.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    a_phone.close()  # a reset: its peer is gone, waitress (not reading) does not know
    shard.join(reset)
    assert reset.fd == -1 and a.connected
    shard.look_for_hangups()
    assert not reset.is_open and reset.closed.is_set()


@dataclass
class Read:
    """A socket as the sender read it before waitress closed it: its number, which the
    kernel has given to something else by now."""

    number: int

    def fileno(self) -> int:
        return self.number


def test_a_number_given_to_the_next_phone_or_a_file_is_not_copied_for_the_phone_gone(
    phones: Phones, tmp_path: Any
) -> None:
    (a, _), (b, _) = phones.open(), phones.open()
    before = open_fds()
    assert own_copy(Read(b.socket.fileno()), a.addr) == -1  # b's peer, not a's
    with open(tmp_path / "log", "wb") as file:
        assert own_copy(Read(file.fileno()), a.addr) == -1  # a file: no peer
    assert own_copy(Read(os.sysconf("SC_OPEN_MAX") - 1), a.addr) == -1  # closed
    assert open_fds() == before  # no copy left open
    copy = own_copy(b.socket, b.addr)
    assert copy >= 0
    os.close(copy)


def test_the_senders_copy_is_closed_when_its_phone_leaves(phones: Phones) -> None:
    shard = Shard()
    before = open_fds()
    a, _ = phones.open()
    phone = stream(a)
    shard.join(phone)
    assert phone.fd >= 0 and phone.fd not in before and phone.fd != a.socket.fileno()
    shard.leave(phone)
    assert phone.fd == -1
    assert open_fds() == before | {a.socket.fileno(), phones.ends[-1].fileno()}


def test_a_round_reaches_every_phone_in_step_and_lets_a_reset_one_go(phones: Phones) -> None:
    shard = Shard()
    pairs = [phones.open() for _ in range(5)]
    connections = [stream(channel) for channel, _ in pairs]
    for connection in connections:
        shard.join(connection)
    shard.sort(0)
    reset = pairs[2][1]
    reset.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    reset.close()  # a reset, not a goodbye: the box's next write fails
    fell = Fanout.send_steady(shard.fds[0], b"data: one\n\n")
    assert fell == [(shard.steady[0].index(connections[2]), -1)]
    there = [c.fd for c in connections if c is not connections[2]]
    assert Fanout.send_steady(there, b"data: two\n\n") == []  # every one took it all
    for i, (_, phone) in enumerate(pairs):
        if i != 2:
            phone.settimeout(5)
            got = b""
            while len(got) < 11:
                got += phone.recv(100)
            assert got.startswith(b"data: one\n\n")
