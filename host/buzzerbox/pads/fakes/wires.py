"""Pad boards wired in-process to host sessions on a hand-driven clock, and waiting on
real ports without sleeping. Nothing here runs on the box itself."""

from __future__ import annotations

import time
from collections.abc import Callable

from buzzerbox.pads.board.session import BoardSession
from buzzerbox.pads.fakes.padboard import BoardClock, FakeBoard
from buzzerbox.pads.sources import PadSources
from buzzerbox.pads.timeline.arbiter import Arbiter, BoardStatusChanged, Edge, PadEvent
from buzzerbox.testing import ManualClock


class Wire:
    """A `FakeBoard` joined to a `BoardSession` in-process: bytes cross in `latency_us`."""

    def __init__(
        self, clock: ManualClock, board: FakeBoard, session: BoardSession, latency_us: int = 200
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
    clock: ManualClock,
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
    session = BoardSession(f"loop://{board_id}", arbiter)
    session.syncs.newline_us = 0  # a fake board answers a SYNC line at once, read whole
    return Wire(clock, board, session, latency_us)


def run_wires(
    clock: ManualClock, wires: list[Wire], us: int, step_us: int = 10_000
) -> list[PadEvent]:
    """Let `us` pass: every board ticks each `step_us`, every session polls; the arbiter
    advances. Returns what the sessions and the arbiter handed out."""
    arbiter = wires[0].session.arbiter
    out: list[PadEvent] = []
    end = clock.now + us
    while clock.now < end:
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
