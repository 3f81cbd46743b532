"""How a sender finds the phones that hung up (live/fanout.py, `Shard`, `Poller`): one
poll of the sockets it watches by number, while waitress may close a phone's socket
at any time and the kernel hands its number to the next phone. A number reused is the
newest phone's, a socket closed before its phone joined is not watched, and neither
ends the stream of a phone still there (a thousand phones coming and going did so
once: tests/faults/test_phone_party.py)."""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from buzzerbox.live.connection import Connection
from buzzerbox.live.fanout import Poller, Shard


@dataclass
class Channel:
    """What a sender reads of waitress's channel to find a hang-up: its socket, and
    whether waitress still has it open (waitress says False before it closes it)."""

    socket: socket.socket
    connected: bool = True

    def close(self) -> None:
        self.connected = False
        self.socket.close()


@dataclass
class Phones:
    """Phones on socket pairs: the box's end in a Channel, the phone's end kept here."""

    ends: list[socket.socket] = field(default_factory=list)

    def open(self) -> tuple[Channel, socket.socket]:
        box_end, phone_end = socket.socketpair()
        self.ends += [box_end, phone_end]
        return Channel(box_end), phone_end


@pytest.fixture
def phones() -> Iterator[Phones]:
    made = Phones()
    yield made
    for end in made.ends:
        end.close()


def stream(channel: Channel) -> Connection:
    return Connection(channel, chunked=True, is_admin=False, version=0)


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


def test_a_socket_closed_before_its_phone_joined_is_not_watched_and_ends_its_stream(
    phones: Phones,
) -> None:
    shard = Shard()
    a, _ = phones.open()
    left = stream(a)
    a.close()  # waitress closed it (the phone left at once) before the sender took it
    shard.join(left)  # no error: the sender's thread and the stream's go on
    assert left.fd == -1 and left.fd not in shard.by_fd
    shard.look_for_hangups()
    assert not left.is_open


def test_a_number_reused_by_the_next_phone_is_the_next_phones(phones: Phones) -> None:
    shard = Shard()
    a, _ = phones.open()
    gone = stream(a)
    number = a.socket.fileno()
    a.close()  # waitress closes it; the kernel gives its number to the next socket
    b, b_phone = phones.open()
    if b.socket.fileno() != number:  # the pair took it the other way round: swap roles
        b = Channel(phones.ends[-1])
        b_phone = phones.ends[-2]
    assert b.socket.fileno() == number
    there = stream(b)
    shard.join(gone)  # the stream of the phone gone reaches its sender late
    shard.join(there)
    assert shard.by_fd[number] is there
    shard.look_for_hangups()
    assert not gone.is_open  # its channel says waitress closed it
    assert there.is_open
    shard.leave(gone)  # the stream of the phone gone ends late: the new phone stays watched
    assert shard.by_fd[number] is there
    b_phone.close()
    shard.look_for_hangups()
    assert not there.is_open


def test_a_number_that_is_no_socket_now_is_not_watched() -> None:
    poller = Poller()
    here, _ = socket.socketpair()
    assert poller.watch(here.fileno())
    assert poller.watch(here.fileno())  # watched already: handed to the newest, no error
    here.close()
    _.close()
    with tempfile.TemporaryFile() as file:
        assert not poller.watch(file.fileno())  # a socket's number taken by a file
    unused = os.sysconf("SC_OPEN_MAX") - 1  # closed: no file has this number
    assert not poller.watch(unused)
    poller.unwatch(unused)  # not watched: no error
    poller.unwatch(-1)
