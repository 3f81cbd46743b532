"""A SYNC answered at once (issue 36 item 4): the board stamps the line's arrival on
its microsecond timer and answers from the last SYNC probe's pair (probes.py), before
any probe of its own; fastsync.py's viper answer equals protocol's frame byte for
byte, and refuses nothing protocol.parse_command would read; a line armed but for
its "\\n" is answered when that lands, and not again when it is read."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from .fwbench import BOARD_ID, Frame, crc16, fw, run_micropython
from .test_fw_core import PADS, PROBE, FakeTimer

core = fw("core")
protocol = fw("protocol")

MASK30 = (1 << 30) - 1


def line(payload: str, crc: str | None = None) -> bytes:
    raw = payload.encode()
    return raw + b"*" + (crc or "%04X" % crc16(raw)).encode()


# (line, seq, lo, hi, mark, arrived): lines the viper answers, and lines it leaves
LINES = [
    (line("SYNC 0"), 0, 5, 0, 0, 0),
    (line("SYNC 42"), 7, 999_999_990, 0, 100, 120),  # the time carries into 10**9
    (line("SYNC 999999999"), 999_999_999, 3, 8191, 0, 0),
    (line("SYNC 12345", "%04x" % crc16(b"SYNC 12345")), 3, 10, 2, 1 << 29, 5),  # lower case
    (line("SYNC 77"), 1, 50, 1, MASK30 - 9, 10),  # the timer wrapped: 20 us on
    (line("SYNC 77"), 1, 50, 1, 10, MASK30 - 9),  # arrived before the mark: -20 us
    (line("SYNC 4294967295"), 1, 0, 0, 0, 0),  # 10 digits: protocol's
    (line("SYNC 07"), 1, 0, 0, 0, 0),  # a leading zero: protocol's ERR
    (line("SYNC 1", "0000"), 1, 0, 0, 0, 0),  # a wrong crc
    (line("SYNC  1"), 1, 0, 0, 0, 0),
    (line("SYNC 1 2"), 1, 0, 0, 0, 0),
    (line("SYNCX1"), 1, 0, 0, 0, 0),
    (b"SYNC 1", 1, 0, 0, 0, 0),
    (line("SYNC 5"), 1_000_000_000, 0, 0, 0, 0),  # a seq of 10 digits: protocol's
    (line("SYNC 5"), 1, 0, 8192, 0, 0),  # a time past 95 days: protocol's
]
VIPER = """
import array
from padboard.fastsync import sync_answer, WORDS
cases = %r
buf = bytearray(100)
out = []
for text, seq, lo, hi, mark, arrived in cases:
    w = array.array("i", [30, seq, lo, hi, mark, arrived])
    assert len(w) == WORDS
    end = sync_answer(text, buf, w)
    out.append(bytes(buf[30:end]) if end > 0 else end)
print(repr(out))
"""


def test_the_viper_answer_is_the_protocol_frame(tmp_path: Path) -> None:
    got = ast.literal_eval(run_micropython(VIPER % (LINES,), tmp_path))
    for (text, seq, lo, hi, mark, arrived), answer in zip(LINES, got, strict=True):
        try:
            token = protocol.parse_command(text)[1]
        except protocol.CommandError:
            token = None
        d = (arrived - mark) & MASK30
        t = lo + hi * 10**9 + (d - (1 << 30) if d >= 1 << 29 else d)
        if answer == -1:  # left to protocol: a line it reads otherwise, or a field too large
            assert token is None or token >= 10**9 or seq >= 10**9 or t >= 8192 * 10**9, text
        else:
            assert answer == protocol.frame(f"SYNC {seq} {token} {t}"), text


class TimedTimer(FakeTimer):
    """The edge timer and the microsecond timer on one crystal: a probe returns the
    timer's ticks_us (mod 2**30) at its toggle; the board clock runs `offset` ahead."""

    offset = 5_000

    def probe(self) -> int:  # type: ignore[override]
        super().probe()
        return (self.t - self.offset) & MASK30


def board_with_timer(**kw: Any) -> tuple[Any, TimedTimer]:
    timer = TimedTimer()
    board = core.PadBoard(
        BOARD_ID, PADS, PROBE, timer.probe, led_count=2, ticks_diff=ticks_diff, **kw
    )
    for pins, counter in timer.pairs:
        board.feed(pins, counter)
    timer.pairs.clear()
    return board, timer


def ticks_diff(a: int, b: int) -> int:
    d = (a - b) & MASK30
    return d - (1 << 30) if d >= 1 << 29 else d


def send(board: Any, timer: TimedTimer, payload: str, at: int) -> int:
    """`payload`'s line arriving at board time `at`; what rx gave for its "\\n"."""
    timer.t = at
    board.arrived_us = (at - timer.offset) & MASK30
    got = 0
    for byte in line(payload) + b"\n":
        got = board.rx(byte)
    return int(got)


def frames(board: Any) -> list[Frame]:
    out = []
    while (data := board.next_frame()) is not None:
        kind, *fields = data[:-1].rpartition(b"*")[0].decode().split(" ")
        out.append(Frame(kind, tuple(fields)))
    return out


def feed(board: Any, timer: TimedTimer) -> None:
    for pins, counter in timer.pairs:
        board.feed(pins, counter)
    timer.pairs.clear()


def test_the_first_sync_waits_for_its_probe_and_the_next_is_answered_at_once() -> None:
    board, timer = board_with_timer()
    frames(board)
    assert send(board, timer, "SYNC 1", 10_000) == 0  # no reference yet: its probe
    timer.t = 10_400  # the probe's pair comes later, the stamp stays the line's
    feed(board, timer)
    assert [(f.type, f.fields[1:]) for f in frames(board)] == [
        ("SYNC", ("1", "10000")),
        ("TICK", ("10000",)),
    ]
    assert send(board, timer, "SYNC 2", 50_000) == -1  # answered now: it leads the queue
    assert [(f.type, f.fields[1:]) for f in frames(board)] == [("SYNC", ("2", "50000"))]
    board.after_sync()  # its probe: the TICK after the answer
    timer.t = 50_900
    feed(board, timer)
    assert [(f.type, f.fields[1:]) for f in frames(board)] == [("TICK", ("50000",))]


def test_an_answer_goes_before_the_edges_waiting() -> None:
    board, timer = board_with_timer()
    frames(board)
    send(board, timer, "SYNC 1", 10_000)
    feed(board, timer)
    frames(board)
    timer.press(3, 20_000)
    feed(board, timer)
    send(board, timer, "SYNC 2", 20_100)
    assert [(f.type, f.fields[1:]) for f in frames(board)] == [
        ("SYNC", ("2", "20100")),
        ("EDGE", ("3", "1", "20000")),
    ]


def test_a_stale_reference_is_not_used() -> None:
    board, timer = board_with_timer()
    frames(board)
    send(board, timer, "SYNC 1", 10_000)
    feed(board, timer)
    frames(board)
    board.tick(core_reference_ms() + 1)
    feed(board, timer)
    frames(board)
    assert send(board, timer, "SYNC 2", 70_000_000) == 0  # waits for its own probe


def core_reference_ms() -> int:
    return int(fw("probes").REFERENCE_MS)


def reference(text: bytes, buf: bytearray, w: Any) -> int:
    """fastsync.sync_answer's verdict on a line, by protocol (test_the_viper_answer_...)."""
    try:
        token = protocol.parse_command(text)[1]
    except protocol.CommandError:
        return -1
    return int(w[0]) + 30 if text.startswith(b"SYNC ") and token < 10**9 else -1


@pytest.mark.parametrize(
    ("payload", "armed"),
    [("SYNC 5", True), ("SYNC 07", False), ("SYNC 4294967295", False), ("LED 0 1", False)],
)
def test_a_line_is_armed_only_if_it_is_a_sync_answered_at_once(payload: str, armed: bool) -> None:
    board, timer = board_with_timer(sync_answer=reference)
    assert not board.arm()  # no reference yet
    send(board, timer, "SYNC 1", 10_000)
    feed(board, timer)
    for byte in line(payload):
        board.rx(byte)
    assert board.arm() is armed
    board.rx(10)
    assert board.arm() is False  # a line read whole: nothing waits for a "\n"


def test_a_sync_answered_ahead_is_not_answered_again_when_its_line_is_read() -> None:
    written: list[tuple[bytes, int]] = []

    def viper(text: bytes, buf: bytearray, w: Any) -> int:
        written.append((text, w[1]))
        return int(w[0]) + 30

    board, timer = board_with_timer(sync_answer=viper)
    send(board, timer, "SYNC 1", 10_000)
    feed(board, timer)
    assert [f.seq for f in frames(board)] == [0, 1, 2]  # HELLO, its answer, the TICK
    for byte in line("SYNC 9"):
        board.rx(byte)
    assert board.arm()
    assert board.sync_ahead(bytearray(128), 40, 123) == 70  # its "\n" landed
    assert written[-1] == (line("SYNC 9"), 3)  # numbered now, the next frame out
    assert board.rx(10) == 0  # the line, read now: answered already
    assert [f.type for f in frames(board)] == []
