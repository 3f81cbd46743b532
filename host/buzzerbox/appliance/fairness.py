"""How fair the box is on its own hardware, from its test line. PURE: pulses and edges in.

The test line (hardware/self-test.md, the pad map's ``[test_line]``) runs from one Pi
output to a spare input of every board and to a Pi input. A pulse reaches all of them
at one instant; the host stamps it (before and after its write). Each input's press
comes through the normal path (a board's EDGE, its clock mapped by the sync wire or by
SYNC round trips, the arbiter; or the Pi's own edge stamps) with a host time, so

- per input: how far its mapped time of a pulse is from the host's stamps of it (the
  line fell between the two stamps of the write: a time between them is off by 0);
- across inputs: how far apart the mapped times of one pulse are (what decides who
  was first between two seats on different boards).

Each is held to the README's figure for the way the input's clock is mapped
(`PROMISE_US`: the p95 of the fairness rows of README.md, tests/bench/fairness.py);
across inputs to twice the widest of theirs (two inputs each within E of the truth are
within 2E of each other: the README's "no misorder at ≥ 20 µs" for the wire).
`FairnessTally` collects; `FairnessReport.lines` says it in words, PASS or FAIL.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from buzzerbox.pads.timeline.arbiter import GPIO, Edge
from buzzerbox.pads.timeline.syncgroup import Pulse

PROMISE_US: Final[Mapping[str, int]] = {
    "wire": 10,  # README: "the same boards and presses with the sync wire": p95 ≤ 10 µs
    "sync": 300,  # README: "SYNC round trips only": p95 ≤ 300 µs
    "gpio": 10,  # the Pi's own inputs: kernel-stamped; held to the tightest row (the wire's)
}
"""|mapped time − true time| p95 the box promises, by how an input's clock is mapped."""

MAX_WRITE_US: Final = 1000
"""A pulse whose write took longer (the host was preempted between its stamps) is left
out of the per-input figures: its instant is not known well enough. Across inputs (no
host stamp needed) it counts."""


def off_by(t_us: float, pulse: Pulse) -> float:
    """How far `t_us` is outside the pulse's write, `[t0, t1]`: the line fell somewhere
    in it, so a time inside is as right as the host can tell."""
    return max(0.0, pulse.t0_us - t_us, t_us - pulse.t1_us)


HOW: Final[Mapping[str, str]] = {
    "wire": "clock by the sync wire",
    "sync": "clock by SYNC round trips",
    "gpio": "the Pi's own edge stamps",
}


@dataclass(frozen=True, slots=True)
class TestInput:
    """One input on the test line: a board's spare channel, or the Pi's input pin."""

    __test__ = False  # not a pytest class

    source: str  # a board id, or "gpio"
    ch: int
    name: str  # what the docs call it: the board's alias, or "the Pi"

    def describe(self) -> str:
        return (
            f"the Pi's GPIO{self.ch}" if self.source == GPIO else f"board {self.name} ch {self.ch}"
        )


def percentiles(values: Sequence[float]) -> tuple[float, float, float]:
    """(p50, p95, max) by nearest rank; needs at least one value."""
    ranked = sorted(values)

    def rank(q: float) -> float:
        return ranked[max(0, math.ceil(q * len(ranked)) - 1)]

    return rank(0.50), rank(0.95), ranked[-1]


@dataclass
class FairnessTally:
    """Pairs the presses on the test inputs with the host's pulses of the line.

    A press belongs to the pulse whose host stamp is nearest its mapped time, if within
    `window_us`; an input gives one press per pulse (a bounce after it is not counted).
    """

    inputs: Sequence[TestInput]
    window_us: int = 50_000
    pulses: list[Pulse] = field(default_factory=list)
    seen: dict[tuple[str, int], dict[int, int]] = field(default_factory=dict)
    """(source, ch) -> pulse number -> mapped host time of its press."""
    stray: int = 0
    """Presses on a test input that no pulse explains."""

    def pulse(self, pulse: Pulse) -> None:
        self.pulses.append(pulse)

    def edge(self, edge: Edge) -> None:
        """A final edge from the pad sources: kept if it is a press on a test input."""
        key = (edge.board, edge.ch)
        if not edge.is_press or all((i.source, i.ch) != key for i in self.inputs):
            return
        best = min(self.pulses, key=lambda p: abs(p.mid_us - edge.t_us), default=None)
        times = self.seen.setdefault(key, {})
        if best is None or abs(best.mid_us - edge.t_us) > self.window_us or best.n in times:
            self.stray += 1
            return
        times[best.n] = edge.t_us

    def is_complete(self) -> bool:
        """Every input has a press for every pulse."""
        want = {p.n for p in self.pulses}
        return all(want <= self.seen.get((i.source, i.ch), {}).keys() for i in self.inputs)

    def report(self, clocks: Mapping[str, str | None]) -> FairnessReport:
        """The figures; `clocks`: each board's clock mapping ("wire", "sync", None: not
        mapped) at the end of the run."""
        rows = []
        tight = [p for p in self.pulses if p.t1_us - p.t0_us <= MAX_WRITE_US]
        for i in self.inputs:
            clock = "gpio" if i.source == GPIO else clocks.get(i.source)
            times = self.seen.get((i.source, i.ch), {})
            errors = [off_by(times[p.n], p) for p in tight if p.n in times]
            seen = sum(p.n in times for p in self.pulses)
            rows.append(InputRow(i, clock, len(self.pulses), seen, errors))
        spreads = []
        for p in self.pulses:
            at = [t[p.n] for i in self.inputs if p.n in (t := self.seen.get((i.source, i.ch), {}))]
            if len(at) >= 2:
                spreads.append(float(max(at) - min(at)))
        loose = len(self.pulses) - len(tight)
        writes = [float(p.t1_us - p.t0_us) for p in self.pulses]
        return FairnessReport(rows, spreads, len(self.pulses), self.stray, loose, writes)


@dataclass(frozen=True, slots=True)
class InputRow:
    input: TestInput
    clock: str | None
    pulses: int
    seen: int
    errors: list[float]
    """How far each mapped time is outside its pulse's write (`off_by`), of the pulses
    seen whose write was tight."""

    @property
    def promise_us(self) -> int | None:
        return PROMISE_US.get(self.clock) if self.clock is not None else None

    @property
    def problem(self) -> str | None:
        """Why this input fails, in words; None: it passes."""
        what = self.input.describe()
        if self.clock is None:
            return f"{what}: its board's clock was not mapped (is it online? doctor's boards above)"
        if self.seen < self.pulses:
            return (
                f"{what} saw {self.seen} of {self.pulses} pulses: is the test line "
                "wired to it? (hardware/self-test.md)"
            )
        promise = self.promise_us
        assert promise is not None
        if not self.errors:
            return f"{what}: no pulse's write was tight enough to measure it (a busy host?)"
        p95 = percentiles(self.errors)[1]
        if p95 > promise:
            return f"{what}: p95 {p95:.0f} µs is over the {promise} µs the README promises"
        return None


@dataclass(frozen=True, slots=True)
class FairnessReport:
    rows: list[InputRow]
    spreads: list[float]
    """Per pulse seen by two inputs or more: latest mapped time minus earliest (µs)."""
    pulses: int
    stray: int = 0
    loose: int = 0
    """Pulses whose write took over `MAX_WRITE_US`: not in the per-input figures."""
    writes: list[float] = field(default_factory=list)
    """How long each pulse's write took, between the host's stamps (µs)."""

    @property
    def across_promise_us(self) -> int | None:
        promises = [r.promise_us for r in self.rows]
        if not promises or any(p is None for p in promises):
            return None
        return 2 * max(p for p in promises if p is not None)

    @property
    def across_problem(self) -> str | None:
        if len(self.rows) < 2:
            return None
        promise = self.across_promise_us
        if promise is None or not self.spreads:
            return "across the inputs: no pulse was seen on two of them to compare"
        p95 = percentiles(self.spreads)[1]
        if p95 > promise:
            return f"across the inputs: p95 {p95:.0f} µs apart is over the {promise} µs promised"
        return None

    @property
    def problems(self) -> list[str]:
        found = [p for r in self.rows if (p := r.problem) is not None]
        if not self.rows:
            found.append("no input on the test line: give [test_line] boards or gpio_in")
        if self.pulses == 0:
            found.append("no pulse was made")
        across = self.across_problem
        return found + ([across] if across else [])

    @property
    def passed(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        out = []
        if self.writes:
            p50, p95, top = percentiles(self.writes)
            out.append(
                f"  the host's writes of the line took p50 {p50:.0f} / p95 {p95:.0f} / max "
                f"{top:.0f} µs (a mapped time inside its write is off by 0)"
            )
        for r in self.rows:
            how = HOW.get(r.clock, "clock not mapped") if r.clock else "clock not mapped"
            text = f"{r.input.describe()}, {how}: {r.seen} of {r.pulses} pulses"
            if r.errors:
                p50, p95, top = percentiles(r.errors)
                text += f"; off the pulse by p50 {p50:.0f} / p95 {p95:.0f} / max {top:.0f} µs"
            if r.promise_us is not None:
                text += f" (the README's figure: p95 ≤ {r.promise_us} µs)"
            out.append(f"  {text}: {'FAIL' if r.problem else 'PASS'}")
        if len(self.rows) >= 2:
            names = ", ".join(r.input.describe() for r in self.rows)
            text = f"across {names}: one pulse's mapped times"
            if self.spreads:
                p50, p95, top = percentiles(self.spreads)
                text += f" {p50:.0f} / {p95:.0f} / {top:.0f} µs apart (p50 / p95 / max)"
            promise = self.across_promise_us
            if promise is not None:
                text += f" (p95 ≤ {promise} µs: twice the widest figure above)"
            out.append(f"  {text}: {'FAIL' if self.across_problem else 'PASS'}")
        if self.loose:
            out.append(
                f"  {self.loose} of {self.pulses} pulses' writes took over {MAX_WRITE_US} µs "
                "(the host was busy): left out of the figures against the pulse"
            )
        if self.stray:
            out.append(f"  {self.stray} presses on the test inputs matched no pulse (noise?)")
        problems = self.problems
        if problems:
            out.append("fairness: FAIL: " + "; ".join(problems))
        else:
            out.append("fairness: PASS: every input within the README's figure")
        return out
