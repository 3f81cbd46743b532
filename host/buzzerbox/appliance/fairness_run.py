"""`buzzerbox doctor --fairness [--pulses N]`: pulse the test line, measure, say PASS/FAIL.

The pad map's ``[test_line]`` (hardware/self-test.md) names the Pi's output that pulses
it, each board's spare input on it and the Pi input it reaches. The doctor opens the
pads as the box does (`PadSources`: board links, the sync wire pulsed if the map has
``[sync] gpio``, the Pi's inputs), waits for the boards' clocks to map, then pulses the
line N times through gpiozero (`SyncPulser`: a DigitalOutputDevice on the box's pin
factory, stamped before and after each write) and hands every final edge to the
`FairnessTally` (fairness.py), which says how far apart the box put each pulse.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from buzzerbox.appliance.fairness import FairnessReport, FairnessTally, TestInput
from buzzerbox.pads.board.session import BoardSession
from buzzerbox.pads.padmap import PadMap
from buzzerbox.pads.sources import PadSources
from buzzerbox.pads.syncwire import open_pulser
from buzzerbox.pads.timeline.arbiter import GPIO, Edge
from buzzerbox.pads.timeline.syncgroup import PERIOD_US, Pulser

PULSES = 50
LOW_US = 60_000
"""A test pulse's low part: longer than any board's debounce window (pile boards: 30 ms),
so its release is an edge of its own and the next pulse is not swallowed."""
EVERY_US = 250_000
SETTLE_S = 8.0
"""How long the boards' clocks may take to map (the sync wire needs 2 pulses, 1 s apart)."""


def add_fairness_options(d: argparse.ArgumentParser) -> None:
    d.add_argument(
        "--fairness",
        action="store_true",
        help="pulse the test line ([test_line] in the pad map) and measure how fair the box is",
    )
    d.add_argument(
        "--pulses", type=int, default=PULSES, help=f"test-line pulses (default {PULSES})"
    )


def line_inputs(pad_map: PadMap) -> list[TestInput]:
    """The inputs the map's test line reaches: each board's spare channel, the Pi's pin."""
    test = pad_map.test_line
    if test is None:
        return []
    inputs = [TestInput(b, ch, pad_map.board_name(b)) for b, ch in test.channels.items()]
    if test.gpio_in is not None:
        inputs.append(TestInput(GPIO, test.gpio_in, "the Pi"))
    return inputs


def clock_of(session: BoardSession) -> str | None:
    """How a board's clock maps: "wire", "sync" (no wire in the map says None), None: not."""
    if not session.is_mapped:
        return None
    return session.clock_source or "sync"


def clocks_of(sessions: Iterable[BoardSession]) -> dict[str, str | None]:
    return {s.board: clock_of(s) for s in sessions if s.hello is not None}


def _settled(sources: PadSources, pad_map: PadMap, boards: set[str]) -> bool:
    """Every tested board's clock is mapped, by its sync wire where it has one."""
    clocks = clocks_of(sources.sessions)
    wired = sources.pulser is not None
    for board in boards:
        spec = pad_map.board(board)
        want_wire = wired and spec is not None and spec.sync is not None
        if clocks.get(board) is None or (want_wire and clocks[board] != "wire"):
            return False
    return True


def measure(
    sources: PadSources,
    line: Pulser,
    pad_map: PadMap,
    *,
    pulses: int,
    every_us: int = EVERY_US,
    low_us: int = LOW_US,
    settle_s: float = SETTLE_S,
    drain_us: int = 1_000_000,
) -> FairnessReport:
    """Pulse `line` `pulses` times on started `sources`; the report of what came back."""
    clock = sources.clock
    inputs = line_inputs(pad_map)
    tally = FairnessTally(inputs, window_us=min(every_us // 3, 50_000))
    boards = {i.source for i in inputs if i.source != GPIO}

    def take(events: list[Any]) -> None:
        for ev in events:
            if isinstance(ev, Edge):
                tally.edge(ev)

    until = clock() + round(settle_s * 1e6)
    while clock() < until and not _settled(sources, pad_map, boards):
        take(sources.poll(0.01))
    low_since: int | None = None
    next_fall = clock()
    while len(tally.pulses) < pulses or low_since is not None:
        now = clock()
        if low_since is None and now >= next_fall:
            tally.pulse(line.fall())
            low_since, next_fall = now, now + every_us
        elif low_since is not None and now - low_since >= low_us:
            line.rise()
            low_since = None
        take(sources.poll(0.002))
    until = clock() + drain_us
    while clock() < until and not tally.is_complete():
        take(sources.poll(0.01))
    return tally.report(clocks_of(sources.sessions))


def fairness_section(
    pad_map: PadMap | None,
    urls: list[str],
    factory: Any,
    out: TextIO,
    *,
    pulses: int,
    line_pulser: Callable[[Any, int], Pulser] | None = None,
    sync_pulser: Callable[[Any], Pulser] | None = None,
    sync_period_us: int = PERIOD_US,
    every_us: int = EVERY_US,
) -> bool:
    """doctor's fairness section; whether it passed. `line_pulser(factory, pin)` and
    `sync_pulser(factory)` stand in for the Pi's pulsers in tests."""
    from buzzerbox.clock import monotonic_us

    test = pad_map.test_line if pad_map is not None else None
    if pad_map is None or test is None:
        out.write(
            "== fairness: the pad map has no [test_line] (give --pads MAP with one: "
            "hardware/self-test.md); not measured\nfairness: FAIL\n"
        )
        return False
    if pulses < 1:
        out.write(f"== fairness: --pulses {pulses} is not allowed: give 1 or more\n")
        return False
    if factory is None and line_pulser is None:
        out.write(
            f"== fairness: the test line (GPIO{test.gpio}) needs the Pi's GPIO (see above); "
            "not measured\nfairness: FAIL\n"
        )
        return False
    if line_pulser is None:
        from buzzerbox.pads.gpio import SyncPulser  # gpiozero: only when it pulses

        def line_pulser(f: Any, pin: int) -> Pulser:
            return SyncPulser(f, monotonic_us, pin=pin)

    out.write(f"== fairness: {pulses} pulses on the test line (GPIO{test.gpio})\n")
    wire: Pulser | None = None
    if pad_map.sync_gpio is not None:
        wire = (
            sync_pulser(factory)
            if sync_pulser
            else open_pulser(pad_map, factory, lambda m: print(m, file=out))
        )
    gpio = factory if pad_map.gpio_pads or test.gpio_in is not None else None
    sources = PadSources(
        pad_map, boards=urls, gpio_factory=gpio, pulser=wire, pulse_period_us=sync_period_us
    )
    line = line_pulser(factory, test.gpio)
    try:
        sources.start()
        report = measure(sources, line, pad_map, pulses=pulses, every_us=every_us)
    finally:
        line.rise()
        line.close()
        sources.close()
    out.write("\n".join(report.lines()) + "\n")
    return report.passed
