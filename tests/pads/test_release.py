"""Release hysteresis: a resting hand that shifts its weight on a pile zone is one
card; a real lift and a new press are two. On GPIO pads and on board pads alike,
with press times never moved, and the sync wire's input never held back."""

from __future__ import annotations

import pytest
from buzzerbox.pads.board.session import BoardSession
from buzzerbox.pads.errors import PadMapError
from buzzerbox.pads.fakes.padboard import BoardClock, FakeBoard
from buzzerbox.pads.fakes.pins import SHIFTS_MS, ClockedMockFactory, drive_pin, resting_hand
from buzzerbox.pads.fakes.wires import Wire, edges, run_wires
from buzzerbox.pads.padmap import parse_pad_map
from buzzerbox.pads.sources import PadSources
from buzzerbox.pads.timeline.arbiter import GPIO, Arbiter, Edge
from buzzerbox.pads.timeline.debounce import Debouncer
from buzzerbox.testing import ManualClock


def board_output(trace: list[tuple[int, int]], window_us: int) -> list[tuple[int, int]]:
    """What a board (leading-edge debounce of `window_us`) sends for a contact trace."""
    deb: Debouncer[int] = Debouncer(window_us)
    deb.add(0, 0)
    out: list[tuple[int, int]] = []
    for t, state in trace:
        out += [(t2, s) for _, s, t2 in deb.settle(t)]
        out += [(t2, s) for s, t2 in deb.edge(0, state, t)]
    return out + [(t2, s) for _, s, t2 in deb.settle(1 << 62)]


def test_the_debouncer_holds_a_release_and_drops_it_with_its_re_press() -> None:
    deb: Debouncer[str] = Debouncer(0)
    deb.add("pile", 0, release_us=120_000)
    deb.add("stop", 0)
    assert deb.edge("pile", 1, 1_000) == [(1, 1_000)]
    assert deb.edge("pile", 0, 50_000) == []  # held
    assert deb.state("pile") == 1 and deb.earliest_open() == 50_000
    assert deb.edge("pile", 1, 90_000) == []  # back within the hold: a flicker
    assert deb.flickers == 1 and deb.earliest_open() is None
    assert deb.edge("pile", 0, 200_000) == []
    assert deb.settle(319_999) == []
    assert deb.settle(320_000) == [("pile", 0, 200_000)]  # at its own time
    assert deb.edge("pile", 1, 600_000) == [(1, 600_000)]
    assert deb.edge("stop", 1, 1_000) == [(1, 1_000)]
    assert deb.edge("stop", 0, 1_500) == [(0, 1_500)]  # no hold for a stop pad
    with pytest.raises(ValueError, match="release hold -1"):
        deb.add("x", 0, release_us=-1)


def test_a_press_inside_the_window_still_cancels_a_shorter_hold() -> None:
    deb: Debouncer[str] = Debouncer(30_000)
    deb.add("p", 0, release_us=20_000)
    assert deb.edge("p", 1, 0) == [(1, 0)]
    assert deb.edge("p", 0, 100_000) == []  # window opens at the release; held
    assert deb.edge("p", 1, 110_000) == []  # inside the window: pending
    assert deb.settle(125_000) == []  # the hold is over, but a press waits in the window
    assert deb.settle(130_000) == []  # the window closes: the press cancels the release
    assert deb.state("p") == 1 and deb.flickers == 1


GPIO_MAP = """seats = 2
piles = 1
[gpio]
debounce_us = 5000
[[pad]]
id = "p0-s0"
role = "pile"
seat = 0
pile = 0
gpio = 17
[[pad]]
id = "s1-stop"
role = "stop"
seat = 1
gpio = 22
"""


def drive(
    factory: ClockedMockFactory, src: PadSources, pin: int, trace: list[tuple[int, int]]
) -> list[Edge]:
    out: list[Edge] = []
    drive_pin(factory, pin, trace, lambda: out.extend(edges(src.poll(0))))
    return out


def test_gpio_a_resting_hand_is_one_card_and_a_lift_makes_two(
    mock_factory: ClockedMockFactory, clock: ManualClock
) -> None:
    pad_map = parse_pad_map(GPIO_MAP)
    with PadSources(pad_map, gpio_factory=mock_factory, clock=clock, gpio_margin_us=2_000) as src:
        t0 = clock()
        out = drive(mock_factory, src, 17, resting_hand())
        assert out == [Edge(GPIO, 17, "p0-s0", 1, t0)]  # one card, at the first contact
        assert src.gpio is not None and src.gpio.flickers == len(SHIFTS_MS)
        lift = clock()
        out = drive(mock_factory, src, 17, [(0, 0), (300_000, 1)])  # a real lift
        assert out == [
            Edge(GPIO, 17, "p0-s0", 0, lift),
            Edge(GPIO, 17, "p0-s0", 1, lift + 300_000),
        ]
        t1 = clock()
        out = drive(mock_factory, src, 22, [(0, 1), (20_000, 0), (60_000, 1)])
        assert [(e.state, e.t_us - t1) for e in out] == [(1, 0), (0, 20_000), (1, 60_000)]


BOARD_MAP = """seats = 2
piles = 1
[[board]]
id = "pico-e6614103e7000001"
alias = "a"
channels = 8
[[pad]]
id = "p0-s0"
role = "pile"
seat = 0
pile = 0
board = "a"
ch = 0
[[pad]]
id = "s1-stop"
role = "stop"
seat = 1
board = "a"
ch = 1
"""


def board_wire(clock: ManualClock, arbiter: Arbiter, board_id: str) -> Wire:
    pad_map = parse_pad_map(BOARD_MAP.replace("pico-e6614103e7000001", board_id))
    board = FakeBoard(board_id, clock=BoardClock(clock, offset_us=5_000_000), channels=8)
    board.boot()
    session = BoardSession(
        f"loop://{board_id}",
        arbiter,
        pad_name=lambda b, ch: pad.id if (pad := pad_map.at(b, ch)) else f"{b}:{ch}",
        release_us=pad_map.release_us,
    )
    wire = Wire(clock, board, session, latency_us=150)
    wire.open()
    return wire


def play(
    clock: ManualClock, wires: list[Wire], wire: Wire, ch: int, sent: list[tuple[int, int]]
) -> list[Edge]:
    """The board sends these (µs from now, state) edges, ticking every 10 ms between."""
    start, out = clock(), []
    for t, state in sent:
        out += edges(
            run_wires(clock, wires, start + t - clock(), step_us=10_000)
            if start + t > clock()
            else []
        )
        clock.advance(start + t - clock())
        wire.to_host(wire.board.edge(ch, state))
    return out + edges(run_wires(clock, wires, 400_000))


def test_board_a_resting_hand_is_one_card_and_a_lift_makes_two(clock: ManualClock) -> None:
    arbiter = Arbiter()
    w = board_wire(clock, arbiter, "pico-a1")
    run_wires(clock, [w], 100_000)
    sent = board_output(resting_hand(), 30_000)
    # the board's window follows the contact: every shift is a release and a re-press
    assert [s for _, s in sent] == [1] + [0, 1] * len(SHIFTS_MS)
    t0 = clock()
    out = play(clock, [w], w, 0, sent)
    assert [(e.pad, e.state) for e in out] == [("p0-s0", 1)]
    assert abs(out[0].t_us - t0) < 1_000  # the press at its own time (clock mapping only)
    assert w.session.flickers == len(SHIFTS_MS)
    out = play(clock, [w], w, 0, [(0, 0), (300_000, 1)])
    assert [(e.pad, e.state) for e in out] == [("p0-s0", 0), ("p0-s0", 1)]
    assert 299_000 < out[1].t_us - out[0].t_us < 301_000


def test_board_releases_wait_in_order_and_stop_and_sync_are_never_held(clock: ManualClock) -> None:
    arbiter = Arbiter()
    a, b = board_wire(clock, arbiter, "pico-a1"), board_wire(clock, arbiter, "pico-b1")
    wires = [a, b]
    run_wires(clock, wires, 100_000)
    a.to_host(a.board.press(0))
    run_wires(clock, wires, 200_000)
    lifted = clock()
    a.to_host(a.board.release(0))  # a real lift on board a ...
    clock.advance(10_000)
    b.to_host(b.board.press(1))  # ... and a stop on board b 10 ms later
    out = edges(run_wires(clock, wires, 100_000))
    assert out == []  # the lift is not final yet, so nothing after it is
    out = edges(run_wires(clock, wires, 50_000))
    assert [(e.board, e.pad, e.state) for e in out] == [
        ("pico-a1", "p0-s0", 0),
        ("pico-b1", "s1-stop", 1),
    ]
    assert abs(out[0].t_us - lifted) < 1_000
    b.to_host(b.board.release(1))  # a stop release is final at the next tick
    clock.advance(5_000)
    pulse = clock()
    a.to_host(a.board.press(7))  # the sync wire's input: no pad, no hold
    clock.advance(60_000)
    a.to_host(a.board.release(7))
    out = edges(run_wires(clock, wires, 20_000))
    assert [(e.pad, e.state) for e in out] == [("s1-stop", 0), ("pico-a1:7", 1), ("pico-a1:7", 0)]
    assert abs(out[2].t_us - out[1].t_us - 60_000) < 100 and out[1].t_us >= pulse - 1_000


def pressed_then_released(clock: ManualClock, arbiter: Arbiter) -> tuple[Wire, list[Edge]]:
    """A board online, a hand on its pile zone (final), then lifted (held)."""
    w = board_wire(clock, arbiter, "pico-a1")
    run_wires(clock, [w], 100_000)
    w.to_host(w.board.press(0))
    out = edges(run_wires(clock, [w], 100_000))
    w.to_host(w.board.release(0))
    return w, out


def test_a_board_that_goes_away_still_reports_its_held_release(clock: ManualClock) -> None:
    arbiter = Arbiter()
    w, out = pressed_then_released(clock, arbiter)
    w.session.gone(clock())
    out += edges(arbiter.advance(clock()) + arbiter.flush())
    assert [(e.pad, e.state) for e in out] == [("p0-s0", 1), ("p0-s0", 0)]


def test_the_pad_map_sets_the_hold_per_role_and_refuses_bad_ones() -> None:
    default = parse_pad_map(BOARD_MAP)
    assert default.release_us("pico-e6614103e7000001", 0) == 120_000  # pile
    assert default.release_us("pico-e6614103e7000001", 1) == 0  # stop
    assert default.release_us("pico-e6614103e7000001", 7) == 0  # no pad: the sync wire
    mine = parse_pad_map(
        BOARD_MAP.replace("[[board]]", "[release_ms]\npile = 150\nstop = 5\n[[board]]", 1)
    )
    assert mine.release_us("pico-e6614103e7000001", 0) == 150_000
    assert mine.release_us("pico-e6614103e7000001", 1) == 5_000
    with pytest.raises(PadMapError, match=r"line 3: key 'hand' is not allowed in \[release_ms\]"):
        parse_pad_map("seats = 1\n[release_ms]\nhand = 3\n")
    with pytest.raises(
        PadMapError, match="pile 5000 is not allowed: it must be a whole number 0-400"
    ):
        parse_pad_map("seats = 1\n[release_ms]\npile = 5000\n")


def test_a_board_that_reboots_still_reports_its_held_release(clock: ManualClock) -> None:
    arbiter = Arbiter()
    w, out = pressed_then_released(clock, arbiter)
    released = clock()
    clock.advance(20_000)
    w.to_host(w.board.boot())  # HELLO with seq 0: a new clock; the hold ends here
    out += edges(run_wires(clock, [w], 100_000))
    assert [(e.board, e.pad, e.state) for e in out] == [
        ("pico-a1", "p0-s0", 1),
        ("pico-a1", "p0-s0", 0),
    ]
    assert abs(out[1].t_us - released) < 1_000
