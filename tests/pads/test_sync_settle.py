"""A board's clock map right after a (re)connect, on a driven clock: its edges wait
until a SYNC round trip is short (or enough of them came), never mapped from one slow
round trip. A busy host reads an answer late, the first round trips after a replug
can all be slow, and a time mapped from such a round trip is off by half of it."""

from __future__ import annotations

from buzzerbox.pads.board.session import BoardSession
from buzzerbox.pads.board.syncrounds import (
    SYNC_FAST_US,
    SYNC_GOOD_RTT_US,
    SYNC_SETTLE,
    SYNC_STEADY_US,
)
from buzzerbox.pads.fakes.padboard import BoardClock, FakeBoard
from buzzerbox.pads.fakes.wires import edges
from buzzerbox.pads.timeline.arbiter import Arbiter, BoardStatusChanged, Edge
from buzzerbox.testing import ManualClock


class Link:
    """A board and its session, with each crossing's time given: `out_us` to the board,
    `back_us` until the host reads (and stamps) the answer."""

    def __init__(self, clock: ManualClock, arbiter: Arbiter) -> None:
        self.clock = clock
        self.board = FakeBoard("pico-a", clock=BoardClock(clock, offset_us=5_000_000))
        self.board.boot()
        self.session = BoardSession("loop://pico-a", arbiter)
        self.session.syncs.newline_us = 0  # each SYNC line whole: one crossing, timed here
        self.session.opened(clock())

    def round_trip(self, out_us: int, back_us: int) -> None:
        """What the host has to say crosses, and the board's answer comes back."""
        data = self.session.outgoing()
        assert data, "the host had nothing to say"
        self.clock.advance(out_us)
        reply = self.board.received(data)
        self.clock.advance(back_us)
        self.session.received(reply, self.clock())

    def sync_due(self, out_us: int, back_us: int) -> None:
        """The session's next SYNC, when it is due (it asks at once until mapped)."""
        self.clock.advance(SYNC_FAST_US)
        self.session.poll(self.clock())
        self.round_trip(out_us, back_us)

    def press(self, ch: int) -> int:
        """A press now, its frame and a TICK at once on the host; its true time."""
        pressed_at = self.clock()
        self.session.received(self.board.press(ch) + self.board.tick(), pressed_at)
        return pressed_at


def test_a_slow_first_round_trip_does_not_map_the_edges_that_follow(
    clock: ManualClock, arbiter: Arbiter
) -> None:
    link = Link(clock, arbiter)
    link.round_trip(100, 100)  # HELLO? -> HELLO; the session asks SYNC
    link.round_trip(100, 8_000)  # its answer is read 8 ms late: the midpoint is ~4 ms off
    pressed_at = link.press(3)
    link.sync_due(100, 100)  # a quick round trip: now the map is good
    link.session.received(link.board.tick(), clock())
    (edge,) = edges(arbiter.advance(clock()))
    assert edge == Edge("pico-a", 3, "pico-a:3", 1, edge.t_us)
    assert abs(edge.t_us - pressed_at) <= 100  # not ~4,000 µs late
    assert link.session.events() == [BoardStatusChanged("pico-a", "online")]


def test_a_link_never_quick_is_mapped_from_the_best_of_its_first_round_trips(
    clock: ManualClock, arbiter: Arbiter
) -> None:
    link = Link(clock, arbiter)
    link.round_trip(100, 100)  # HELLO
    slow = SYNC_GOOD_RTT_US + 1_000
    link.round_trip(slow - 500, 500)  # every round trip too slow to trust alone
    pressed_at = link.press(1)
    for _ in range(SYNC_SETTLE - 2):
        link.sync_due(slow - 500, 500)
    assert link.session.events() == []  # not online yet: its edges wait
    assert arbiter.pending == 0 and arbiter.horizon() == float("-inf")
    link.sync_due(slow // 2 - 200, slow // 2 - 200)  # the best (symmetric) one, still slow
    assert link.session.events() == [BoardStatusChanged("pico-a", "online")]
    link.session.received(link.board.tick(), clock())
    (edge,) = edges(arbiter.advance(clock()))
    assert abs(edge.t_us - pressed_at) <= 100
    link.sync_due(slow // 2, slow // 2)  # the one asked before the map was good
    link.session.poll(clock() + SYNC_STEADY_US // 2)  # mapped: now SYNC goes steady
    assert link.session.outgoing() == b""


def test_while_unmapped_sync_keeps_coming_fast(clock: ManualClock, arbiter: Arbiter) -> None:
    link = Link(clock, arbiter)
    link.round_trip(100, 100)
    for _ in range(SYNC_SETTLE - 1):  # more than the usual fast ones, all slow
        link.round_trip(100, 2 * SYNC_GOOD_RTT_US)
        link.clock.advance(SYNC_FAST_US)
        link.session.poll(clock())
    assert link.session.outgoing().startswith(b"SYNC ")
