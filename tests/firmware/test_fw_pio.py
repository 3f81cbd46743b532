"""The edge timer (firmware/padboard/pio.py), run instruction by instruction in
rp2040-pio-emulator with pin levels the test drives.

The program is the firmware's own @rp2.asm_pio function, assembled by the
stand-in rp2 (standins/rp2.py). One emulator clock is one PIO cycle; the Pico
runs the machine at TICK_HZ * LOOP_CYCLES = 5 MHz (clock divider 25 from
125 MHz), so 5 cycles are 1 us.

(No `from __future__ import annotations` here: the emulator reads the input
source's annotation to decide what to pass it.)
"""

from itertools import pairwise
from types import ModuleType
from typing import Any

import pytest

from .fwbench import fw

import pioemu  # type: ignore[import-untyped]  # rp2040-pio-emulator (dev extras): no skip

State = pioemu.State

config = fw("config")
core = fw("core")
clock = fw("clock")

US = 5  # PIO cycles per microsecond at 5 MHz
IDLE = (1 << 30) - 1  # all GPIOs pulled up
MASK32 = 2**32 - 1


class Pins:
    """Pin levels over time: `changes` is [(cycle, gpio, level)]."""

    def __init__(self, changes: list[tuple[float, int, int]], levels: int = IDLE) -> None:
        self.changes = sorted(changes)
        self.levels = levels

    def __call__(self, state: State) -> int:  # type: ignore[valid-type]
        levels = self.levels
        for cycle, gpio, level in self.changes:
            if cycle > state.clock:  # type: ignore[attr-defined]
                break
            levels = levels | 1 << gpio if level else levels & ~(1 << gpio)
        return levels


def run(program: Any, pins: Pins, cycles: int, state: Any = None) -> list[tuple[int, int, int]]:
    """(pins, counter, cycle pushed) for every pair the program pushes; the RX FIFO is
    drained after each instruction, as the DMA does on the chip."""
    words: list[tuple[int, int]] = []
    for _, now in pioemu.emulate(
        program.opcodes,
        stop_when=lambda _, s: s.clock >= cycles,
        initial_state=state,
        input_source=pins,
        auto_push=program.autopush,
        push_threshold=program.push_thresh,
        shift_isr_right=program.in_shiftdir == 1,
        wrap_target=program.wrap_target,
        wrap_top=program.wrap,
    ):
        while now.receive_fifo:
            words.append((now.receive_fifo.popleft(), now.clock))
    assert len(words) % 2 == 0
    return [(words[i][0], words[i + 1][0], words[i][1]) for i in range(0, len(words), 2)]


def stamps(pairs: list[tuple[int, int, int]]) -> list[int]:
    return [-counter & MASK32 for _, counter, _ in pairs]


def test_the_program_is_the_hand_assembled_one(pio: ModuleType) -> None:
    # Encodings from the RP2040 datasheet, section 3.4.
    assert pio.edge_timer.opcodes == [
        0xA023,  # 0  mov x, null
        0xA048,  # 1  mov y, ~pins
        0x0009,  # 2  jmp sample
        0xA041,  # 3  changed: mov y, x
        0x4020,  # 4  in x, 32        (autopush)
        0x40E0,  # 5  in osr, 32      (autopush)
        0xA127,  # 6  mov x, osr [1]
        0x0048,  # 7  jmp x--, second
        0x0049,  # 8  second: jmp x--, sample
        0xA0E1,  # 9  sample: mov osr, x   (wrap target)
        0xA020,  # 10 mov x, pins
        0x00A3,  # 11 jmp x!=y, changed
        0xA027,  # 12 mov x, osr
        0x0049,  # 13 jmp x--, sample      (wrap)
    ]
    assert (pio.edge_timer.wrap_target, pio.edge_timer.wrap) == (9, 13)
    assert pio.edge_timer.autopush and pio.edge_timer.push_thresh == 32


def test_one_tick_is_five_cycles_one_microsecond_at_125_mhz(pio: ModuleType) -> None:
    # A pin toggling every 40 us, for 400 us.
    pins = Pins([(40 * US * k, 0, (k + 1) % 2) for k in range(1, 11)])
    pairs = run(pio.edge_timer, pins, 410 * US)
    assert pairs[0][:2] == (IDLE, 0)  # the first sample is pushed: the baseline at t = 0
    ticks = stamps(pairs[1:])
    assert [b - a for a, b in pairwise(ticks)] == [40] * 9  # 200 cycles = 40 ticks
    cycles_per_tick = 200 // 40
    assert cycles_per_tick == pio.LOOP_CYCLES == 5
    sm_hz = config.TICK_HZ * pio.LOOP_CYCLES
    divider = 125_000_000 / sm_hz
    resolution_us = 1e6 * cycles_per_tick / sm_hz
    assert (sm_hz, divider, resolution_us) == (5_000_000, 25.0, 1.0)
    print(
        f"\nedge timer: {cycles_per_tick} cycles/tick at {sm_hz / 1e6:g} MHz "
        f"(divider {divider:g} from 125 MHz): resolution {resolution_us:g} us"
    )


def test_edges_microseconds_apart_are_stamped_right(pio: ModuleType) -> None:
    # Pad GPIOs 1-6 pressed (pulled low) at these times, in us.
    at = [100, 102, 105, 105.6, 108.9, 111]
    pins = Pins([(t * US, gpio, 0) for gpio, t in enumerate(at, 1)])
    pairs = run(pio.edge_timer, pins, 130 * US)[1:]
    # Tick k samples 0.8 us into the tick (cycle 5k + 4): its stamp covers edges
    # in (k - 0.2, k + 0.8] us. 105 and 105.6 share one sample; 108.9 is tick 109.
    assert stamps(pairs) == [100, 102, 105, 109, 111]
    assert [IDLE & ~levels for levels, _, _ in pairs] == [
        0b10,
        0b110,
        0b11110,
        0b111110,
        0b1111110,
    ]


def test_the_second_of_two_edges_one_tick_apart_is_one_tick_late(pio: ModuleType) -> None:
    # After a pushed change the next sample is two ticks later (CHANGE_TICKS):
    # a stamp is never early and the order is kept.
    pins = Pins([(50 * US, 1, 0), (51 * US, 2, 0), (55 * US, 3, 0)])
    assert stamps(run(pio.edge_timer, pins, 70 * US)[1:]) == [50, 52, 55]
    assert pio.CHANGE_TICKS == 2


def test_a_pass_that_pushes_takes_exactly_two_ticks(pio: ModuleType) -> None:
    pins = Pins([(k * 2 * US, 7, (k + 1) % 2) for k in range(1, 30)])  # a change every tick pair
    pairs = run(pio.edge_timer, pins, 62 * US)[1:]
    ticks = stamps(pairs)
    assert ticks == list(range(2, 60, 2))
    cycles = [c for _, _, c in pairs]
    assert {b - a for a, b in pairwise(cycles)} == {2 * US}


@pytest.mark.parametrize(("first", "tick"), [(10, 2), (25, 5)])
def test_the_counter_wraps_through_zero_without_losing_a_tick(
    pio: ModuleType, first: int, tick: int
) -> None:
    # Start at `sample` with X = 3: pass i runs with X = 3 - i and samples at
    # cycle 5i + 1. A change at cycle 10 is seen with X = 1, and the pushing
    # pass's second decrement falls through (X 0 -> 2**32 - 1); one at cycle 25
    # comes after the idle pass with X = 0 wrapped instead.
    program = pio.edge_timer
    start = State(program_counter=program.wrap_target, x_register=3, y_register=IDLE)
    pins = Pins([(first, 4, 0), (50, 5, 0), (80, 6, 0)])
    counters = [counter for _, counter, _ in run(program, pins, 100, state=start)]
    assert [(3 - counter) & MASK32 for counter in counters] == [tick, 10, 16]
    assert counters[1] == -7 & MASK32  # the counter went through zero
    c = clock.CounterClock()
    unwrapped = [c.unwrap(counter) for counter in counters]
    assert [b - a for a, b in pairwise(unwrapped)] == [10 - tick, 6]


def test_a_bounce_burst_becomes_one_edge_at_its_first_contact(pio: ModuleType) -> None:
    # GPIO 4 (channel 4) bounces for 10 us, then stays pressed; channel 9 is
    # pressed cleanly in the middle of it. (A contact shorter than a tick that
    # falls between two samples is not seen at all: the sampling period is 1 us.)
    bounce = [100, 101.2, 101.6, 103, 103.4, 107, 109.8]
    changes = [(t * US, 4, i % 2) for i, t in enumerate(bounce)]  # 0: contact
    changes.append((104 * US, 9, 0))
    pairs = run(pio.edge_timer, Pins(changes), 200 * US)
    assert len(pairs) >= 5  # the baseline, the burst, channel 9: the board debounces
    board = core.PadBoard(
        "pico-test", config.LAYOUTS["pads24"]["pads"], config.PROBE_GPIO, lambda: None
    )
    for levels, counter, _ in pairs:
        board.feed(levels, counter)
    frames = []
    while (frame := board.next_frame()) is not None:
        frames.append(frame.decode().split("*")[0].split(" "))
    assert [f for f in frames if f[0] == "EDGE"] == [
        ["EDGE", "1", "4", "1", "100"],
        ["EDGE", "2", "9", "1", "104"],
    ]
