"""Test kit for pad sources: a controlled clock, gpiozero's MockFactory on it, boards
wired in-process to host sessions, and waiting on real ports without sleeping.

Used by tests/pads and by later areas (the box's tests, its simulated mode):
nothing here runs on the box itself. gpiozero's own MockPin stamps changes with
time.monotonic; `ClockedMockFactory` makes them follow a `Clock` instead. gpiozero
has no public hook for that: `ClockedPin` overrides MockPin's private
`_change_state`, so pyproject.toml bounds gpiozero (<2.1) and
tests/pads/test_gpiozero_bound.py checks the installed version and that private
contract.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from gpiozero.pins.mock import MockFactory, MockPin, PinState

from buzzerbox.pads.arbiter import Arbiter, BoardStatusChanged, Edge, PadEvent
from buzzerbox.pads.fakeboard import BoardClock, FakeBoard
from buzzerbox.pads.session import BoardSession
from buzzerbox.pads.sources import PadSources

START_US = 1_000_000_000

SHIFTS_MS = (2, 5, 8, 12, 20, 30, 40, 50, 65, 80)
"""A resting hand's weight shifts: how long each opens a pile zone's contact."""


def resting_hand() -> list[tuple[int, int]]:
    """A hand on a pile zone as a tape switch reports it: (µs after the first contact,
    contact state): the press with its make bounce, then `SHIFTS_MS` weight shifts
    (each with a little chatter), the hand resting 150-375 ms between them."""
    trace = [(0, 1), (400, 0), (900, 1), (2_100, 0), (2_600, 1)]  # make bounce
    t = 2_600
    for i, open_ms in enumerate(SHIFTS_MS):
        t += 150_000 + 25_000 * i  # resting
        trace += [(t, 0), (t + 300, 1), (t + 700, 0)]  # release chatter
        t += open_ms * 1000
        trace += [(t, 1), (t + 500, 0), (t + 1_000, 1)]  # the weight comes back
        t += 1_000
    return trace


def drive_pin(
    factory: ClockedMockFactory, pin: int, trace: list[tuple[int, int]], poll: Callable[[], None]
) -> None:
    """Drive a pulled-up pad pin through `trace` ((µs from now, pressed)), calling
    `poll` after each change, then once 500 ms after the last."""
    clock = factory.clock
    start = clock()
    for t, pressed in trace:
        clock.advance(start + t - clock())
        mock = factory.pin(pin)
        if pressed:
            mock.drive_low()
        else:
            mock.drive_high()
        poll()
    clock.advance(500_000)
    poll()


class Clock:
    """A host clock in µs that moves only when told."""

    def __init__(self, start_us: int = START_US) -> None:
        self.now_us = start_us

    def __call__(self) -> int:
        return self.now_us

    def advance(self, us: int) -> int:
        self.now_us += us
        return self.now_us


class ClockedPin(MockPin):  # type: ignore[misc]
    """A MockPin that stamps its changes with the factory's clock, not time.monotonic.

    gpiozero 2.0's MockPin: `drive_high`/`drive_low` and the `state` setter call
    `_change_state(value)`, which records `states` and `_last_change`, the ticks its
    `when_changed` callbacks get. Private: bounded in pyproject.toml, checked by
    tests/pads/test_gpiozero_bound.py."""

    def _change_state(self, value: bool) -> bool:
        if self._state == value:  # type: ignore[has-type]
            return False
        t = self.factory.ticks()
        self.states.append(PinState(t - self._last_change, value))  # type: ignore[has-type]
        self._last_change = t
        self._state = value
        return True


class ClockedMockFactory(MockFactory):  # type: ignore[misc]
    """gpiozero's MockFactory on a controlled clock (ticks in seconds, like lgpio)."""

    def __init__(self, clock: Clock) -> None:
        super().__init__(pin_class=ClockedPin)
        self.clock = clock

    def ticks(self) -> float:
        return self.clock.now_us / 1_000_000


class Wire:
    """A `FakeBoard` joined to a `BoardSession` in-process: bytes cross in `latency_us`."""

    def __init__(
        self, clock: Clock, board: FakeBoard, session: BoardSession, latency_us: int = 200
    ) -> None:
        self.clock, self.board, self.session, self.latency_us = clock, board, session, latency_us
        self.is_ticking = True
        self.answers = True

    def to_host(self, data: bytes) -> None:
        if data:
            self.session.received(data, self.clock())
        self.exchange()

    def exchange(self) -> None:
        """Carry what the host has to say to the board, and its answers back."""
        for _ in range(10):
            data = self.session.outgoing()
            if not data or not self.answers:
                return
            self.clock.advance(self.latency_us)
            reply = self.board.received(data)
            self.clock.advance(self.latency_us)
            if reply:
                self.session.received(reply, self.clock())

    def open(self) -> None:
        self.session.opened(self.clock())
        self.exchange()


def make_wire(
    clock: Clock,
    arbiter: Arbiter,
    board_id: str,
    *,
    offset_us: int = 0,
    drift_ppm: float = 0.0,
    latency_us: int = 200,
    channels: int = 8,
) -> Wire:
    board = FakeBoard(
        board_id,
        clock=BoardClock(clock, offset_us=offset_us, drift_ppm=drift_ppm),
        channels=channels,
    )
    board.boot()
    return Wire(clock, board, BoardSession(f"loop://{board_id}", arbiter), latency_us)


def run_wires(clock: Clock, wires: list[Wire], us: int, step_us: int = 10_000) -> list[PadEvent]:
    """Let `us` pass: every board ticks each `step_us`, every session polls; the arbiter
    advances. Returns what the sessions and the arbiter handed out."""
    arbiter = wires[0].session.arbiter
    out: list[PadEvent] = []
    end = clock.now_us + us
    while clock.now_us < end:
        clock.advance(step_us)
        for w in wires:
            if w.is_ticking:
                w.to_host(w.board.tick())
            w.session.poll(clock())
            w.exchange()
            out += w.session.events()
        out += arbiter.advance(clock())
    return out


def edges(events: list[PadEvent]) -> list[Edge]:
    return [e for e in events if isinstance(e, Edge)]


# Real ports ------------------------------------------------------------------------


def collect(
    sources: PadSources,
    until: Callable[[list[PadEvent]], bool],
    *,
    into: list[PadEvent] | None = None,
    timeout: float = 10.0,
) -> list[PadEvent]:
    """Poll `sources` until `until(events so far)` holds; fail after `timeout` s."""
    events = into if into is not None else []
    deadline = time.monotonic() + timeout
    while not until(events):
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout} s in vain; events so far: {events}")
        events += sources.poll(0.01)
    return events


def status_is(board: str, status: str) -> Callable[[list[PadEvent]], bool]:
    return lambda evs: BoardStatusChanged(board, status) in evs  # type: ignore[arg-type]


def presses(events: list[PadEvent], board: str | None = None) -> list[Edge]:
    return [e for e in edges(events) if e.state == 1 and (board is None or e.board == board)]
