"""`doctor --fairness` on the emulated Pico, traced on one clock (tests and
tests/bench/pico_clock.py).

The host runs in this process on the emulated clock itself (`PicoEmulator.clock`),
so every time below is an emulated microsecond:

- **asked**: the host's stamps before and after it asks for the test line's fall
  (the `drive` command; `Pulse.t0_us`, `t1_us`, what doctor holds a mapped time to);
- **applied**: when the emulator set the pin (its ``pin`` report);
- **stamped**: the board's stamp of that edge (its EDGE's `t`, board ticks counted
  from the edge timer's start, which the runner reports in emulated µs);
- **mapped**: the host's time of that edge (the box's own path: the board link, the
  clock map from SYNC round trips or the sync wire, the arbiter).

Each SYNC round trip is traced too: when its "\\n" reached the board, the board's
stamp of it, and when the answer left. The host takes the stamp to match the
midpoint of its send and receive (board-protocol.md), so a board that holds its
answer H µs after its stamp has every mapped time H/2 late.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from buzzerbox.appliance.fairness import FairnessReport
from buzzerbox.appliance.fairness_run import measure
from buzzerbox.pads.timeline.arbiter import Edge
from buzzerbox.pads.padmap import PadMap
from buzzerbox.pads.board.session import BoardSession
from buzzerbox.pads.sources import PadSources
from buzzerbox.pads.timeline.syncgroup import Pulse

from .emulator import BOARD_ID, EmuClock, PicoEmulator

TEST_GPIO = 22  # the board's spare input on the test line: channel 22 of pads24
SYNC_GPIO = 26  # the sync wire's input: the layout's last channel, 23
SYNC_CH = 23


class EmuLine:
    """A line into the emulated board's GPIO, driven from the host (the test line,
    or the sync wire): a `syncwire.Pulser` on the emulated clock.

    The emulator carries a `drive` out when it reads the command, between two of
    its slices of work (up to 20 ms of wall time, ~600 emulated µs at RATIO), so
    the host's stamps before and after asking (`asked`) can be that far apart. The
    emulator answers with the emulated moment it set the pin (its ``pin`` report
    says the same), so a pulse is that moment exactly, as a real pulser's write
    is known to a few µs."""

    def __init__(self, emu: PicoEmulator, gpio: int) -> None:
        self.emu, self.gpio = emu, gpio
        self.clock = emu_clock(emu)
        self.pulses: list[Pulse] = []
        self.asked: list[tuple[int, int]] = []

    def fall(self) -> Pulse:
        t0 = self.clock()
        base = self.emu.drive([(0, self.gpio, 0)])  # pulled low: a press on its channel
        self.asked.append((t0, self.clock()))
        pulse = Pulse(len(self.pulses) + 1, base, base)
        self.pulses.append(pulse)
        return pulse

    def rise(self) -> None:
        self.emu.drive([(0, self.gpio, None)])

    def close(self) -> None:
        pass


def emu_clock(emu: PicoEmulator) -> EmuClock:
    if emu.clock is None:
        raise ValueError("the host needs the emulated clock: PicoEmulator(..., clock=True)")
    return emu.clock


def pad_map_text(ch: int = TEST_GPIO, *, wire: bool = False) -> str:
    """One board (alias a) with its spare channel `ch` on the test line (GPIO 16 of
    the Pi), one pad; with `wire`, the board's sync channel on the Pi's GPIO 7."""
    sync = f"sync = {SYNC_CH}\n" if wire else ""
    return (
        f'seats = 2\n[[board]]\nid = "{BOARD_ID}"\nalias = "a"\nchannels = 24\n{sync}'
        + ("[sync]\ngpio = 7\n" if wire else "")
        + f"[test_line]\ngpio = 16\nboards = {{ a = {ch} }}\n"
        '[[pad]]\nrole = "slap"\nseat = 0\nboard = "a"\nch = 0\n'
    )


class TracedSources(PadSources):
    """The box's `PadSources`, keeping every edge it hands out."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.edges: list[Edge] = []

    def poll(self, timeout: float | None = 0.01) -> list[Any]:
        events = super().poll(timeout)
        self.edges.extend(e for e in events if isinstance(e, Edge))
        return events


class SyncTap:
    """The host's ends of each SYNC round trip of `session`, on the host's clock (the
    emulated one): when the request's "\\n" was written (its round trip starts then,
    syncrounds.py) and when its answer was read, by token."""

    def __init__(self, session: BoardSession) -> None:
        self.sent: dict[str, int] = {}
        self.read: dict[str, int] = {}
        self._open = ""
        self._pending = b""
        syncs = session.syncs
        request, newline, received = syncs.request, syncs.newline, session.received

        def tapped_request(now_us: int, *, trusted: bool) -> bytes:
            data = request(now_us, trusted=trusted)
            self._open = data.rpartition(b"SYNC ")[2].partition(b"*")[0].decode()
            return data

        def tapped_newline(now_us: int) -> bytes:
            data = newline(now_us)
            if data:
                self.sent[self._open] = now_us
            return data

        def tapped_received(data: bytes, now_us: int) -> None:
            *lines, self._pending = (self._pending + data).split(b"\n")
            for line in lines:
                if line.startswith(b"SYNC "):
                    self.read.setdefault(line.split(b" ")[2].decode(), now_us)
            received(data, now_us)

        syncs.request = tapped_request  # type: ignore[method-assign]
        syncs.newline = tapped_newline  # type: ignore[method-assign]
        session.received = tapped_received  # type: ignore[method-assign]


@dataclass(frozen=True)
class PulseTrace:
    """One fall of the test line on the emulated clock (µs): see the module's doc."""

    asked: tuple[int, int]
    pulse: int  # the moment the emulator said it set the pin: doctor's truth
    applied: int
    stamped: int
    mapped: int


@dataclass(frozen=True)
class SyncTrace:
    """One SYNC round trip on the emulated clock (µs)."""

    arrived: int  # its "\n" reached the board
    stamped: int  # the board's `t` of it
    left: int  # the answer left the board
    sent: int | None = None  # the host wrote its "\n" (None: a SYNC asked out of turn)
    read: int | None = None  # the host read the answer

    @property
    def held(self) -> int:
        return self.left - self.stamped

    @property
    def round_trip(self) -> int:
        """The host's round trip (its "\\n" written to the answer read); 0 if not known."""
        return self.read - self.sent if self.sent is not None and self.read is not None else 0

    @property
    def error(self) -> float | None:
        """How late the host's midpoint is against the board's stamp: half of (the
        hold + the way back - the way out); what the clock map takes from it."""
        if self.sent is None or self.read is None:
            return None
        return (self.sent + self.read) / 2 - self.stamped


@dataclass(frozen=True)
class Trace:
    report: FairnessReport
    pulses: list[PulseTrace]
    syncs: list[SyncTrace]


def run(
    emu: PicoEmulator,
    pad_map: PadMap,
    pulses: int,
    *,
    wire: bool = False,
    every_us: int = 60_000,
    settle_s: float = 0.5,
    drain_us: int = 100_000,
) -> Trace:
    """`measure` (doctor --fairness) on `emu`, the test line on TEST_GPIO, the host
    on the emulated clock; with `wire` the host pulses the sync wire too (every
    200 ms, so its map is live within a second of emulated time)."""
    since, pins_since = len(emu.lines), len(emu.pins)
    pulser = EmuLine(emu, SYNC_GPIO) if wire else None
    sources = TracedSources(
        pad_map, boards=[emu.url], clock=emu_clock(emu), pulser=pulser, pulse_period_us=200_000
    )
    (session,) = sources.sessions
    tap = SyncTap(session)
    line = EmuLine(emu, TEST_GPIO)
    sources.start()
    try:
        report = measure(
            sources,
            line,
            pad_map,
            pulses=pulses,
            every_us=every_us,
            low_us=every_us // 2,
            settle_s=settle_s,
            drain_us=drain_us,
        )
    finally:
        sources.close()
    zero = emu.sm_start[-1]  # emulated µs of board time 0
    applied = [p.t for p in emu.pins[pins_since:] if p.gpio == TEST_GPIO and p.level == 0]
    stamped = [
        int(ln.fields[4]) + zero
        for ln in emu.lines[since:]
        if ln.kind == "in" and ln.text.startswith("EDGE ") and ln.fields[2:4] == [str(TEST_GPIO), "1"]
    ]
    mapped = [e.t_us for e in sources.edges if e.ch == TEST_GPIO and e.state == 1]
    traces = [
        PulseTrace(q, p.t0_us, a, s, m)
        for q, p, a, s, m in zip(line.asked, line.pulses, applied, stamped, mapped, strict=False)
    ]
    return Trace(report, traces, sync_traces(emu, since, zero, tap))


def sync_traces(
    emu: PicoEmulator, since: int, zero: int, tap: SyncTap | None = None
) -> list[SyncTrace]:
    """The SYNC round trips among the board's lines from `since`, matched by token
    (with the host's ends from `tap`)."""
    arrived: dict[str, int] = {}
    out = []
    for ln in emu.lines[since:]:
        if not ln.text.startswith("SYNC "):
            continue
        token = ln.fields[1] if ln.kind == "out" else ln.fields[2]
        if ln.kind == "out":
            arrived[token] = ln.t
        elif (t := arrived.pop(token, None)) is not None:
            sent = tap.sent.get(token) if tap is not None else None
            read = tap.read.get(token) if tap is not None else None
            out.append(SyncTrace(t, int(ln.fields[3]) + zero, ln.t, sent, read))
    return out


def table(trace: Trace) -> list[str]:
    """The trace in words, one line per pulse and per SYNC round trip."""
    rows = ["pulse: asked t0-t1 | applied (- t0) | stamped (- applied) | mapped (- applied)"]
    for i, p in enumerate(trace.pulses, 1):
        rows.append(
            f"{i:3}: {p.asked[0]}-{p.asked[1]} | {p.applied} ({p.applied - p.asked[0]:+}) | "
            f"{p.stamped} ({p.stamped - p.applied:+}) | {p.mapped} ({p.mapped - p.applied:+})"
        )
    rows.append(
        "SYNC: sent | arrived (- sent) | stamped (- arrived) | answer left: held | read "
        "(- left) | midpoint - stamped (emulated µs; sent: its \\n, - a SYNC asked out of turn)"
    )
    for s in trace.syncs:
        out = f"{s.arrived - s.sent:+}" if s.sent is not None else ""
        back = f"{s.read - s.left:+}" if s.read is not None else ""
        error = f"{s.error:+.0f}" if s.error is not None else "-"
        rows.append(
            f"  {s.sent if s.sent is not None else '-'} | {s.arrived} ({out}) | {s.stamped} "
            f"({s.stamped - s.arrived:+}) | {s.left}: {s.held} | "
            f"{s.read if s.read is not None else '-'} ({back}) | {error}"
        )
    return rows


def median(values: Sequence[float]) -> float:
    ranked = sorted(values)
    mid = len(ranked) // 2
    return ranked[mid] if len(ranked) % 2 else (ranked[mid - 1] + ranked[mid]) / 2
