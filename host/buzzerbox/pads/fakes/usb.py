"""Emulated boards on a realistic USB link, on a driven clock. No I/O, no threads.

`UsbLink` carries bytes between a `FakeBoard` and a host `BoardSession` the way
USB full speed does: OUT (host to board) is sent at once and reaches the board
`out_us` after the write; IN (board to host) waits in the board's buffer for the
host controller's next poll of the IN endpoint, once per 1 ms frame, and reaches
the host program `in_us` after that poll. The board stamps a SYNC `stamp_us`
after its line arrived, and an EDGE leaves `edge_us` after the contact. Each
board has its own `UsbTiming`: the asymmetry that biases a SYNC round trip's
midpoint, differently per board.

`UsbRig` runs boards, links, sessions, the arbiter and the sync wire (a
`SyncLine` that every board with a wire sees at its own clock, pulsed by the host
with its stamps, or by an outside pulser without them) on one `ManualClock`, with an
event queue: deterministic, time moves only in `run`. Tests and
tests/bench/fairness.py use it.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from buzzerbox.pads.board.session import BoardSession, no_release_hold
from buzzerbox.pads.fakes.padboard import BoardClock, FakeBoard, SyncLine
from buzzerbox.pads.timeline.arbiter import Arbiter, Edge, PadEvent
from buzzerbox.pads.timeline.syncgroup import PERIOD_US, PULSE_US, PulseTimer, SyncGroup
from buzzerbox.testing import ManualClock

FRAME_US = 1000
"""USB full speed: the host controller polls a board's IN endpoint once per frame."""


@dataclass(frozen=True, slots=True)
class UsbTiming:
    """One board's link: µs from the host's write to the board having the line
    (`out_us`), from the IN poll to the host program (`in_us`), from a line to its
    SYNC stamp (`stamp_us`), from a contact to its EDGE leaving (`edge_us`)."""

    out_us: int = 80
    in_us: int = 150
    stamp_us: int = 20
    edge_us: int = 300

    @classmethod
    def random(cls, rng: random.Random) -> UsbTiming:
        """A plausible board on a Pi 4's USB: the asymmetry differs from board to board."""
        return cls(
            out_us=rng.randint(40, 250),
            in_us=rng.randint(60, 400),
            stamp_us=rng.randint(5, 50),
            edge_us=rng.randint(50, 900),
        )


class Scheduler:
    """Callbacks at host times on `clock`; `run_until` moves the clock through them."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self._heap: list[tuple[int, int, Callable[[], None]]] = []
        self._n = 0

    def at(self, t_us: int, fn: Callable[[], None]) -> None:
        self._n += 1
        heapq.heappush(self._heap, (max(t_us, self.clock()), self._n, fn))

    def run_until(self, end_us: int) -> None:
        while self._heap and self._heap[0][0] <= end_us:
            t, _, fn = heapq.heappop(self._heap)
            self.clock.now = max(self.clock.now, t)
            fn()
        self.clock.now = max(self.clock.now, end_us)


@dataclass
class UsbLink:
    """One board on its USB link to its host session."""

    sched: Scheduler
    board: FakeBoard
    session: BoardSession
    timing: UsbTiming
    frame_phase_us: int = 0
    sync_ch: int | None = None
    truth: list[tuple[int, int, int]] = field(default_factory=list)  # (ch, state, host µs)
    sees_wire: bool = False
    """Whether the sync wire reaches the board now (a test may cut it)."""
    _in_due: int = 0
    _out_ready: int = 0

    def send(self, data: bytes, after_us: int = 0) -> None:
        """The board sends `data` `after_us` from now, after what it is still sending
        (its frames leave in seq order)."""
        ready = max(self.sched.clock() + after_us, self._out_ready)
        self._out_ready = ready
        self.sched.at(ready, lambda: self.from_board(data))

    def open(self) -> None:
        self.session.opened(self.sched.clock())
        self.to_board()

    def from_board(self, data: bytes) -> None:
        """The board put `data` in its IN buffer now: it reaches the host program after
        the next frame's poll."""
        if not data:
            return
        now = self.sched.clock()
        poll = now + (self.frame_phase_us - now) % FRAME_US
        due = max(poll + self.timing.in_us, self._in_due)  # bytes stay in order
        self._in_due = due
        self.sched.at(due, lambda: self._to_host(data))

    def _to_host(self, data: bytes) -> None:
        self.session.received(data, self.sched.clock())
        self.to_board()

    def to_board(self) -> None:
        """What the host session has to say goes out now (OUT is not polled)."""
        data = self.session.outgoing()
        if data:
            self.sched.at(self.sched.clock() + self.timing.out_us, lambda: self._arrive(data))

    def _arrive(self, data: bytes) -> None:
        reply = self.board.received(data)  # a SYNC answer is stamped stamp_us from now
        if reply:
            self.send(reply, self.board.stamp_us)

    def edge(self, ch: int, state: int) -> None:
        """Channel `ch` changes now: the board stamps it now and sends it `edge_us` later."""
        self.truth.append((ch, state, self.sched.clock()))
        self.send(self.board.edge(ch, state), self.timing.edge_us)


class UsbRig:
    """Boards on USB links, their sessions, the arbiter and the sync wire, on `clock`.

    `wire`: ``"host"`` (the host pulses and stamps: `SyncGroup` pairs edges with its
    stamps), ``"external"`` (an outside pulser: the boards line up by common pulses)
    or None (no sync wire: SYNC round trips only). `write_us` is how long the host's
    pin write takes (its stamps bracket the true edge).
    """

    def __init__(
        self,
        clock: ManualClock,
        *,
        wire: Literal["host", "external"] | None = "host",
        period_us: int = PERIOD_US,
        silence_us: int = 500_000,
        tick_us: int = 10_000,
        poll_us: int = 1000,
        write_us: int = 4,
        seed: int = 1,
    ) -> None:
        self.clock = clock
        self.sched = Scheduler(clock)
        self.arbiter = Arbiter(silence_us=silence_us)
        self.group = SyncGroup(is_stamped=wire == "host", period_us=period_us) if wire else None
        self.line = SyncLine()
        self.links: list[UsbLink] = []
        self.events: list[PadEvent] = []
        self.is_pulsing = wire is not None
        self.tick_us, self.poll_us, self.write_us = tick_us, poll_us, write_us
        self._timer = PulseTimer(period_us, PULSE_US)
        self._rng = random.Random(seed)
        self._wire = wire
        self.sched.at(clock() + poll_us, self._host_loop)

    def add_board(
        self,
        board_id: str,
        *,
        offset_us: int = 0,
        drift_ppm: float = 0.0,
        timing: UsbTiming | None = None,
        channels: int = 8,
        sync_ch: int | None = None,
        is_wired: bool = True,
        release_us: Callable[[str, int], int] = no_release_hold,
    ) -> UsbLink:
        """A board whose clock started `offset_us` before now; with `sync_ch` its sync
        wire is on that channel (`is_wired`: the wire really reaches it); `release_us`:
        its pads' release hold (see `BoardSession`)."""
        timing = timing or UsbTiming()
        board = FakeBoard(
            board_id,
            clock=BoardClock(self.clock, offset_us=offset_us, drift_ppm=drift_ppm),
            channels=channels,
        )
        board.stamp_us = timing.stamp_us
        board.boot()
        session = BoardSession(
            f"usb://{board_id}",
            self.arbiter,
            sync_channel=lambda b: sync_ch,
            wire=self.group,
            release_us=release_us,
        )
        link = UsbLink(self.sched, board, session, timing, self._rng.randrange(FRAME_US), sync_ch)
        self.links.append(link)
        link.sees_wire = sync_ch is not None and is_wired
        if sync_ch is not None:
            self.line.attach(lambda state, _: link.edge(sync_ch, state) if link.sees_wire else None)
        link.open()
        self._tick(link, self.clock() + self._rng.randrange(self.tick_us))
        return link

    def _tick(self, link: UsbLink, at_us: int) -> None:
        def tick() -> None:
            link.send(link.board.tick())
            self._tick(link, self.clock() + self.tick_us)

        self.sched.at(at_us, tick)

    def _host_loop(self) -> None:
        now = self.clock()
        if self.is_pulsing:
            self._pulse(now)
        for link in self.links:
            link.session.poll(now)
            link.to_board()
            self.events += link.session.events()
        if self.group is not None:
            self.group.poll(now)
        self.events += self.arbiter.advance(now)
        # the host's loop is not locked to the USB frames: it wakes when it wakes
        wake = now + self._rng.randint(self.poll_us // 2, self.poll_us * 3 // 2)
        self.sched.at(wake, self._host_loop)

    def _pulse(self, now: int) -> None:
        due = self._timer.due(now)
        if due == "fall":
            t0 = now - self._rng.randint(0, self.write_us)  # the edge falls inside [t0, t1]
            self.line.fall()
            if self.group is not None and self._wire == "host":
                self.group.pulse(t0, t0 + self.write_us)
        elif due == "rise":
            self.line.rise()

    def press(self, link: UsbLink, ch: int, at_us: int, *, hold_us: int = 20_000) -> None:
        """Press channel `ch` of `link`'s board at host time `at_us`, release it later."""
        self.sched.at(at_us, lambda: link.edge(ch, 1))
        self.sched.at(at_us + hold_us, lambda: link.edge(ch, 0))

    def run(self, us: int) -> list[PadEvent]:
        """Let `us` pass; what the sessions and the arbiter handed out meanwhile."""
        start = len(self.events)
        self.sched.run_until(self.clock() + us)
        return self.events[start:]

    def edges(self) -> list[Edge]:
        return [e for e in self.events if isinstance(e, Edge)]
