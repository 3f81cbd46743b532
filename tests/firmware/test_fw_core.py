"""The board's logic (padboard.core): PIO pairs and host bytes in, frames out."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .fwbench import BOARD_ID, Frame, crc16, fw

core = fw("core")
probes = fw("probes")
config = fw("config")

PADS = config.LAYOUTS["pads24"]["pads"]
PROBE = config.PROBE_GPIO
MASK32 = 2**32 - 1


class FakeTimer:
    """Pairs as the edge timer pushes them: all 30 GPIO levels and -t mod 2**32."""

    def __init__(self) -> None:
        self.t = 0
        self.levels = (1 << 30) - 1  # pulled up, probe included
        self.pairs: list[tuple[int, int]] = [(self.levels, 0)]
        self.drop_probes = False

    def set(self, gpio: int, level: int, t: int) -> None:
        assert t >= self.t
        self.t = t
        self.levels = self.levels | 1 << gpio if level else self.levels & ~(1 << gpio)
        self.pairs.append((self.levels, -t & MASK32))

    def press(self, ch: int, t: int) -> None:
        self.set(PADS[ch], 0, t)

    def release(self, ch: int, t: int) -> None:
        self.set(PADS[ch], 1, t)

    def probe(self) -> None:
        if not self.drop_probes:
            self.set(PROBE, 1 - (self.levels >> PROBE & 1), self.t)

    def feed(self, board: Any) -> None:
        for pins, counter in self.pairs:
            board.feed(pins, counter)
        self.pairs.clear()


class Board:
    def __init__(self, **kw: Any) -> None:
        self.timer = FakeTimer()
        self.leds: list[tuple[int, int]] = []
        self.b = core.PadBoard(
            BOARD_ID,
            PADS,
            PROBE,
            self.timer.probe,
            set_led=lambda output, level: self.leds.append((output, level)),
            **{"led_count": 2, **kw},
        )
        self.timer.feed(self.b)

    def send(self, payload: str) -> None:
        raw = payload.encode()
        for byte in raw + b"*%04X\r\n" % crc16(raw):
            self.b.rx(byte)

    def sync(self) -> None:
        self.timer.feed(self.b)

    def frames(self) -> list[Frame]:
        out = []
        while (data := self.b.next_frame()) is not None:
            assert data.endswith(b"\n") and len(data) <= 128
            payload, _, crc = data[:-1].rpartition(b"*")
            assert crc == b"%04X" % crc16(payload)
            kind, *fields = payload.decode().split(" ")
            out.append(Frame(kind, tuple(fields)))
        return out


@pytest.fixture
def board() -> Board:
    return Board()


def test_hello_comes_first_with_seq_0(board: Board) -> None:
    (hello,) = board.frames()
    assert hello == Frame("HELLO", ("0", "1", BOARD_ID, "0.1.0", "1000000", "24"))
    board.send("HELLO?")
    (again,) = board.frames()
    assert again.seq == 1 and again.fields[1:] == hello.fields[1:]


def test_presses_are_edges_with_the_pio_time(board: Board) -> None:
    board.frames()
    board.timer.press(3, 1000)
    board.timer.press(23, 1001)  # channel 23 is GPIO 26
    board.timer.release(3, 9000)
    board.sync()
    assert [(f.type, f.fields[1:]) for f in board.frames()] == [
        ("EDGE", ("3", "1", "1000")),
        ("EDGE", ("23", "1", "1001")),
        ("EDGE", ("3", "0", "9000")),
    ]


def test_a_tick_carries_the_probe_time_after_every_earlier_edge(board: Board) -> None:
    board.frames()
    board.timer.press(0, 500)
    board.timer.release(0, 800)  # inside the window: deferred to 5500
    board.timer.t = 7000
    board.b.tick(10)
    board.sync()
    frames = board.frames()
    assert [(f.type, f.fields[1:]) for f in frames] == [
        ("EDGE", ("0", "1", "500")),
        ("EDGE", ("0", "0", "5500")),
        ("TICK", ("7000",)),
    ]
    assert [f.seq for f in frames] == [1, 2, 3]


def test_sync_is_answered_with_the_time_its_line_completed(board: Board) -> None:
    board.frames()
    board.timer.t = 1234
    board.send("SYNC 42")
    board.timer.t = 2000
    board.send("SYNC 4294967295")
    board.timer.press(5, 2100)
    board.sync()
    # answers go first; each is followed by a TICK at its probe's time (the later
    # TICK says what the earlier did): a host waiting for this board's watermark asks
    # with a SYNC (host/buzzerbox/pads/board/session.py ask_watermark)
    assert [(f.type, f.fields[1:]) for f in board.frames()] == [
        ("SYNC", ("42", "1234")),
        ("SYNC", ("4294967295", "2000")),
        ("TICK", ("2000",)),
        ("EDGE", ("5", "1", "2100")),
    ]


def test_too_many_syncs_in_flight_are_refused(board: Board) -> None:
    board.frames()
    board.timer.drop_probes = True
    for token in range(9):
        board.send(f"SYNC {token}")
    (err,) = board.frames()
    assert err.type == "ERR" and err.fields[1] == "7"


def test_led_sets_an_output_or_says_there_is_none(board: Board) -> None:
    board.frames()
    board.send("LED 1 1")
    board.send("LED 0 0")
    board.send("LED 2 1")
    board.send("LED 1 2")
    assert board.leds == [(1, 1), (0, 0)]
    errs = board.frames()
    assert [f.fields[1] for f in errs] == ["5", "6"]
    assert " ".join(errs[0].fields[2:]) == "output 2 does not exist: this board has outputs 0-1"


def test_debounce_sets_the_window_within_its_range(board: Board) -> None:
    board.frames()
    board.send("DEBOUNCE 1000001")
    (err,) = board.frames()
    assert err.fields[1:3] == ("6", "DEBOUNCE")
    board.send("DEBOUNCE 0")
    for i in range(4):
        board.timer.set(PADS[2], i % 2, 100 + i)
    board.sync()
    assert [f.fields[-1] for f in board.frames()] == ["100", "101", "102", "103"]


def test_bad_lines_get_errors_and_empty_ones_are_ignored(board: Board) -> None:
    board.frames()
    for byte in b"\r\n\nSYNC 1*0000\nNOPE*89AB\n" + b"x" * 300 + b"\n":
        board.b.rx(byte)
    board.send("FLASH 1")
    assert [f.fields[1] for f in board.frames()] == ["1", "1", "2", "3"]


def test_a_host_that_does_not_read_loses_edges_counted_by_lost(board: Board) -> None:
    b = board.b
    for i in range(200):
        board.timer.set(PADS[i % 24], (i // 24) % 2, 10_000 * (i + 1))
        board.sync()
        if i % 10 == 0:
            b.tick(i)
            board.sync()
    assert b.pending() <= 64 + 1
    board.send("HELLO?")  # answers still fit
    frames = board.frames()
    assert [f.seq for f in frames] == list(range(len(frames)))
    lost = sum(f.int(1) for f in frames if f.type == "LOST")
    edges = [f for f in frames if f.type == "EDGE"]
    assert lost > 0 and len(edges) + lost == 200
    # the answers go ahead of the EDGEs waiting (after the LOST): the boot's HELLO, this one
    assert [f.type for f in frames[:3]] == ["LOST", "HELLO", "HELLO"]


def test_waiting_ticks_merge_into_the_latest(board: Board) -> None:
    for ms in range(0, 1000, 10):
        board.timer.t = ms * 1000
        board.b.tick(ms)
        board.sync()
    assert [(f.type, f.fields[1:]) for f in board.frames()] == [
        ("HELLO", ("1", BOARD_ID, "0.1.0", "1000000", "24")),
        ("TICK", ("990000",)),
    ]


def test_lost_pairs_count_the_edges_they_held_and_every_sync_is_answered(board: Board) -> None:
    board.frames()
    board.b.tick(10)
    board.send("SYNC 7")
    board.timer.press(2, 100)
    board.timer.press(5, 120)
    board.timer.release(5, 130)
    board.timer.press(9, 140)
    board.timer.pairs.clear()  # the DMA ring overran: all of them lost, probes too
    board.b.lost_pairs(6)
    board.timer.press(11, 200)
    board.sync()  # the first pair after the gap: the probes are made again
    board.sync()
    # pads 2, 9 and 11 changed level meanwhile: at least those 3 edges were lost
    assert [(f.type, f.fields[1:]) for f in board.frames()] == [
        ("LOST", ("3",)),
        ("SYNC", ("7", "200")),  # an answer goes before the TICKs waiting
        ("TICK", ("200",)),
        ("TICK", ("200",)),
    ]
    board.timer.release(2, 9000)
    board.sync()
    assert [(f.type, f.fields[1:]) for f in board.frames()] == [("EDGE", ("2", "0", "9000"))]


def test_skipped_pairs_count_their_pad_changes_and_every_sync_is_answered(
    board: Board,
) -> None:
    board.frames()
    board.send("SYNC 8")
    board.timer.press(2, 100)
    board.timer.press(5, 120)
    board.timer.release(5, 6000)
    skipped = board.timer.pairs[:]  # the board skips them unread (a flood)
    board.timer.pairs.clear()
    pads = board.b.pad_mask()
    changes = sum(bin((a ^ b) & pads).count("1") for (a, _), (b, _) in zip(
        [(board.b.pins(), 0), *skipped[:-1]], skipped, strict=True
    ))
    board.timer.t = 7000  # the board notices now: its probe is made again
    board.b.skipped(skipped[-1][0], changes)
    board.sync()
    board.timer.release(2, 9000)
    board.sync()
    assert [(f.type, f.fields[1:]) for f in board.frames()] == [
        ("LOST", ("3",)),
        ("SYNC", ("8", "7000")),
        ("TICK", ("7000",)),
        ("EDGE", ("2", "0", "9000")),
    ]


def test_the_sync_channel_keeps_its_short_window_whatever_debounce_says() -> None:
    board = Board(sync_ch=23, debounce_us=200_000)
    board.frames()
    for start in (10_000, 1_010_000):  # two 60 ms pulses, a second apart
        board.timer.press(23, start)
        board.timer.press(3, start)
        board.timer.release(23, start + 60_000)
        board.timer.release(3, start + 60_000)
    board.sync()
    board.timer.t = 2_000_000
    board.b.tick(10**6)
    board.sync()
    edges = [f.fields[1:] for f in board.frames() if f.type == "EDGE"]
    assert [e for e in edges if e[0] == "23"] == [
        ("23", "1", "10000"),
        ("23", "0", "70000"),
        ("23", "1", "1010000"),
        ("23", "0", "1070000"),
    ]
    # a pad in the same board waits out its 200 ms window: its release is late
    assert ("3", "0", "210000") in edges


def test_a_tick_probe_that_never_comes_back_is_given_up(board: Board) -> None:
    board.frames()
    board.timer.drop_probes = True
    board.b.tick(10)
    board.b.tick(20)  # still waiting: no second probe
    board.timer.drop_probes = False
    board.b.tick(30)
    board.sync()
    assert board.frames() == []
    board.timer.t = 99
    board.b.tick(10 + probes.STALE_MS)
    board.sync()
    assert [f.type for f in board.frames()] == ["TICK"]


def test_seq_wraps_to_zero() -> None:
    board = Board()
    board.b._seq = MASK32
    board.send("HELLO?")
    assert [f.seq for f in board.frames()] == [MASK32, 0]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 23), st.integers(0, 3000), st.booleans()),
        max_size=60,
    ),
    st.integers(0, 8000),
)
def test_edge_and_tick_times_never_go_back_and_levels_end_right(
    steps: list[tuple[int, int, bool]], window: int
) -> None:
    board = Board(debounce_us=window)
    board.frames()
    t = 0
    level = [1] * 24
    for ch, dt, tick in steps:
        t += dt
        level[ch] ^= 1
        board.timer.set(PADS[ch], level[ch], t)
        if tick:
            board.b.tick(t)
        board.sync()
    board.timer.t = t + window + 1
    board.b.tick(10**9)
    board.sync()
    frames = board.frames()
    times = [f.int(-1) for f in frames if f.type in ("EDGE", "TICK")]
    assert times == sorted(times)
    pressed = [0] * 24
    for f in frames:
        if f.type == "EDGE":
            ch, state = f.int(1), f.int(2)
            assert state != pressed[ch]  # edges alternate per channel
            pressed[ch] = state
    assert pressed == [1 - lv for lv in level]
