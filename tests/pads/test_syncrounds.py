"""A SYNC request in two writes (syncrounds.py): its line, then its "\\n" alone
`SYNC_NEWLINE_US` later, the round trip timed from the "\\n"; other bytes for the
board end an open line first, and that request is no sample."""

from __future__ import annotations

from buzzerbox.pads.board import protocol as p
from buzzerbox.pads.board.session import LINE_GAP_US, BoardSession
from buzzerbox.pads.board.syncrounds import (
    SYNC_FAST,
    SYNC_FAST_US,
    SYNC_NEWLINE_US,
    SYNC_RETRY_US,
    SYNC_STEADY_US,
    SYNC_TIMEOUT_US,
    SyncRounds,
)
from buzzerbox.pads.fakes.padboard import BoardClock, FakeBoard
from buzzerbox.pads.fakes.wires import make_wire, run_wires
from buzzerbox.pads.timeline.arbiter import Arbiter
from buzzerbox.testing import ManualClock


def test_a_request_sends_its_newline_later_and_times_the_round_trip_from_it() -> None:
    syncs = SyncRounds()
    line = syncs.request(1_000, trusted=False)
    assert line == p.sync_request(1)[:-1]
    assert syncs.poll(1_000 + SYNC_NEWLINE_US - 1, trusted=False) == b""
    assert syncs.poll(1_000 + SYNC_NEWLINE_US, trusted=False) == b"\n"
    assert syncs.sent_at(1) == 1_000 + SYNC_NEWLINE_US
    assert syncs.poll(1_000 + 2 * SYNC_NEWLINE_US, trusted=False) == b""


def test_a_late_poll_ends_the_open_line_before_it_asks_again() -> None:
    syncs = SyncRounds()
    syncs.request(0, trusted=False)
    late = SYNC_FAST_US + 70_000  # polled only when the board's next line came
    assert syncs.poll(late, trusted=False) == b"\n"  # not cut by the next request
    assert syncs.sent_at(1) == late  # a sample, timed from its "\n"
    assert syncs.due == SYNC_FAST_US  # the next request, overdue: the next poll
    assert syncs.poll(late, trusted=False) == p.sync_request(2)[:-1]


def test_other_bytes_end_an_open_line_and_its_answer_is_no_sample() -> None:
    syncs = SyncRounds()
    syncs.request(0, trusted=False)
    assert syncs.cut() == b"\n"
    assert syncs.cut() == b""
    assert syncs.poll(SYNC_NEWLINE_US, trusted=False) == b""  # no "\n" left to send
    assert syncs.sent_at(1) is None
    assert syncs.ask() == p.sync_request(2)  # a watermark's SYNC goes whole
    syncs.request(1, trusted=False)
    assert syncs.ask().startswith(b"\nSYNC 4*")  # after the open line's "\n"


def test_no_split_sends_the_line_whole() -> None:
    syncs = SyncRounds(newline_us=0)
    assert syncs.request(7, trusted=False) == p.sync_request(1)
    assert syncs.sent_at(1) == 7


def test_only_an_answer_that_maps_the_board_starts_its_timeout_again() -> None:
    syncs = SyncRounds(newline_us=0)
    syncs.request(0, trusted=False)
    assert syncs.silent_at() == SYNC_TIMEOUT_US + 1
    syncs.took(trusted=False, sent_us=0)  # a round trip too long to map the clock by
    syncs.request(SYNC_TIMEOUT_US, trusted=False)
    assert syncs.answered == 1 and syncs.is_silent(SYNC_TIMEOUT_US + 1)
    syncs.took(trusted=True, sent_us=SYNC_TIMEOUT_US)
    assert syncs.silent_at() is None and not syncs.is_silent(10 * SYNC_TIMEOUT_US)


def test_a_session_on_a_board_ends_each_sync_line_after_the_pause(
    clock: ManualClock, arbiter: Arbiter
) -> None:
    board = FakeBoard("pico-a", clock=BoardClock(clock, offset_us=3_000))
    board.boot()
    session = BoardSession("loop://pico-a", arbiter)
    session.opened(clock())
    session.received(board.received(session.outgoing()), clock())  # HELLO? -> HELLO
    sent = session.outgoing()
    assert sent.startswith(b"SYNC ") and not sent.endswith(b"\n")
    assert board.received(sent) == b""  # the board waits for the "\n"
    session.set_led(0, True)  # other bytes end the line first: that SYNC is no sample
    cut = session.outgoing()
    assert cut == b"\n" + p.led_set(0, True)
    session.received(board.received(cut), clock())
    assert session.clock is not None and session.clock.samples == 0
    clock.advance(20_000)
    session.poll(clock())
    line = session.outgoing()
    assert line.startswith(b"SYNC ") and not line.endswith(b"\n")
    clock.advance(SYNC_NEWLINE_US)
    session.poll(clock())
    newline = session.outgoing()
    assert newline == b"\n"
    clock.advance(150)
    answer = board.received(line + newline)
    clock.advance(150)
    session.received(answer, clock())
    assert session.clock is not None and session.clock.best_rtt_us == 300


def test_a_new_host_ends_a_sync_line_an_earlier_one_left_open(
    clock: ManualClock, arbiter: Arbiter
) -> None:
    board = FakeBoard("pico-a", clock=BoardClock(clock))
    board.boot()
    assert board.received(p.sync_request(9)[:-1]) == b""  # that host went before its "\n"
    session = BoardSession("loop://pico-a", arbiter)
    session.opened(clock())
    answer = board.received(session.outgoing())
    session.received(answer, clock())
    assert session.hello is not None  # its HELLO? was read as a line of its own


def test_a_board_that_ticks_every_90_ms_is_mapped_by_a_host_its_lines_wake(
    clock: ManualClock, arbiter: Arbiter
) -> None:
    """A host polled only when the board's lines come (the monitor under libfaketime:
    tests/firmware/emulator.py) and a board idle-ticking every 90 ms, past the fast
    SYNCs' 20 ms: each request's line gets its "\n" and its answer maps the clock."""
    board = FakeBoard("pico-a", clock=BoardClock(clock, offset_us=3_000))
    board.boot()
    session = BoardSession("loop://pico-a", arbiter)
    session.opened(clock())
    session.received(board.received(session.outgoing()), clock())  # HELLO? -> HELLO
    board.received(session.outgoing())  # the first SYNC's line, waiting for its "\n"
    assert session.next_due_us() == clock() + SYNC_FAST_US  # no wake for its "\n" alone
    for _ in range(2):
        clock.advance(90_000)
        session.received(board.tick(), clock())
        session.poll(clock())
        answer = board.received(session.outgoing())
        clock.advance(300)
        session.received(answer, clock())
    assert session.clock is not None and session.clock.best_rtt_us == 300
    assert session.status == "online"


def test_steady_syncs_go_seconds_apart_and_a_lost_answer_is_asked_again_soon() -> None:
    """Issue 40: a board at rest is asked every `SYNC_STEADY_US`, not every 500 ms; a
    steady request not answered is asked again after `SYNC_RETRY_US`, so one lost line
    does not leave the board out (`SYNC_TIMEOUT_US`)."""
    syncs = SyncRounds(newline_us=0)
    syncs.answered = SYNC_FAST
    syncs.request(0, trusted=True)
    assert syncs.is_steady and syncs.due == SYNC_RETRY_US  # if no answer comes
    syncs.took(trusted=True, sent_us=0)
    assert syncs.due == SYNC_STEADY_US == 2_000_000
    syncs.request(SYNC_STEADY_US, trusted=True)  # this one is lost
    assert syncs.due == SYNC_STEADY_US + SYNC_RETRY_US
    assert syncs.poll(SYNC_STEADY_US + SYNC_RETRY_US, trusted=True).startswith(b"SYNC ")
    assert not syncs.is_silent(SYNC_STEADY_US + SYNC_RETRY_US)
    assert syncs.silent_at() == SYNC_STEADY_US + SYNC_TIMEOUT_US + 1
    syncs.request(0, trusted=False)  # a map no longer trusted: fast again
    assert not syncs.is_steady and syncs.due == SYNC_FAST_US


def test_a_steady_sync_waits_for_the_boards_next_line_not_a_wake_up(
    clock: ManualClock, arbiter: Arbiter
) -> None:
    """The host polls a session on every line its board sends, so a steady SYNC goes
    with the board's next TICK (at most `LINE_GAP_US` later); `next_due_us`, what the
    pad feed wakes for, is that much later. A fast SYNC (a map not settled) is not."""
    wire = make_wire(clock, arbiter, "pico-a")
    wire.open()
    run_wires(clock, [wire], 400_000)
    syncs = wire.session.syncs
    assert syncs.is_steady and wire.session.status == "online"
    assert syncs.due is not None and wire.session.next_due_us() == syncs.due + LINE_GAP_US
    other = make_wire(clock, arbiter, "pico-b")
    other.open()
    assert not other.session.syncs.is_steady
    assert other.session.next_due_us() == other.session.syncs.due
