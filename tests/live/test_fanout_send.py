"""The fanout's one-send loop (fanout.py, `Fanout.send_steady`): live/_sendall.c's C loop,
which the README's test command builds, and the Python reference beside it that a box
runs where it was not built, held to the same answers on real sockets: which phones
did not take all of a round's bytes, and what each took."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator

import pytest
from buzzerbox.live import fanout
from buzzerbox.live.fanout import Fanout

Send = Callable[[list[int], bytes], list[tuple[int, int]]]
Pairs = list[tuple[socket.socket, socket.socket]]


def c_loop() -> Send:
    """The fanout's C loop (`fanout.c_loop`), which the README's test command builds."""
    loop = fanout.c_loop()
    assert loop is not None, "live/_sendall.c was not built: pip install -e . needs a C compiler"
    return loop


@pytest.fixture(params=["c", "python"])
def send(request: pytest.FixtureRequest) -> Send:
    return c_loop() if request.param == "c" else Fanout.send_steady_python


@pytest.fixture
def pairs() -> Iterator[Pairs]:
    """Five (box end, phone end) stream socket pairs, the box's ends non-blocking."""
    made = [socket.socketpair() for _ in range(5)]
    for box, _ in made:
        box.setblocking(False)
    yield made
    for box, phone in made:
        box.close()
        phone.close()


def read_all(sock: socket.socket) -> bytes:
    sock.setblocking(False)
    out = b""
    while True:
        try:
            got = sock.recv(65536)
        except BlockingIOError:
            return out
        if not got:
            return out
        out += got


def test_the_c_loop_is_built_and_is_the_fanouts() -> None:
    assert fanout.FAST
    assert fanout.SEND_ALL is c_loop()


def test_every_phone_that_takes_it_all_gets_it_once(send: Send, pairs: Pairs) -> None:
    fds = [box.fileno() for box, _ in pairs]
    assert send(fds, b"data: one\n\n") == []
    assert send(fds, b"data: two\n\n") == []
    assert [read_all(phone) for _, phone in pairs] == [b"data: one\n\ndata: two\n\n"] * 5


def test_no_phones_is_no_work(send: Send) -> None:
    assert send([], b"data: one\n\n") == []


def test_a_full_phone_takes_part_then_nothing_and_the_others_still_get_it(
    send: Send, pairs: Pairs
) -> None:
    full, phone = pairs[2]
    full.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    fds = [box.fileno() for box, _ in pairs]
    payload = b"x" * 200_000  # more than a small buffer holds
    fell = dict(send(fds, payload))
    assert 2 in fell and 0 < fell[2] < len(payload)
    taken = {i: fell.get(i, len(payload)) for i in range(5)}
    again = dict(send([full.fileno()], b"y" * 1000))
    assert again == {0: 0}  # the buffer is full: nothing taken, no error
    for i, (_, other) in enumerate(pairs):
        if i != 2:
            got = b""
            while len(got) < taken[i]:
                got += other.recv(262144)
            assert got == payload[: taken[i]]
    assert len(read_all(phone)) <= fell[2]


def test_a_phone_that_hung_up_is_an_error_and_the_loop_goes_on_after_it(
    send: Send, pairs: Pairs
) -> None:
    _, gone = pairs[1]
    gone.close()
    fds = [box.fileno() for box, _ in pairs]
    assert send(fds, b"data: one\n\n") == [(1, -1)]
    assert send(fds, b"data: two\n\n") == [(1, -1)]  # no signal stops the box
    assert read_all(pairs[4][1]) == b"data: one\n\ndata: two\n\n"


def test_a_number_no_longer_open_is_an_error_not_a_crash(send: Send, pairs: Pairs) -> None:
    spare = os.dup(pairs[0][0].fileno())
    os.close(spare)
    fds = [pairs[0][0].fileno(), spare, pairs[3][0].fileno()]
    assert send(fds, b"data: one\n\n") == [(1, -1)]
    assert read_all(pairs[3][1]) == b"data: one\n\n"


def test_the_c_loop_refuses_what_is_not_a_list_of_numbers() -> None:
    send_all = c_loop()
    with pytest.raises(ValueError, match=r"fds\[1\] is -1: a file number is 0 to"):
        send_all([0, -1], b"x")
    with pytest.raises(TypeError):
        send_all((0, 1), b"x")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        send_all([0, "1"], b"x")  # type: ignore[list-item]
    with pytest.raises(TypeError):
        send_all([0], "text")  # type: ignore[arg-type]
    with pytest.raises(OverflowError):
        send_all([1 << 80], b"x")
