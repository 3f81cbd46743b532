"""The host side of the board link, driven in-process on a controlled clock: HELLO,
SYNC and clock mapping, seq tracking, reboots, silence, late edges."""

from __future__ import annotations

from buzzerbox.pads.board import protocol as p
from buzzerbox.pads.board.session import BoardSession
from buzzerbox.pads.board.syncrounds import SYNC_TIMEOUT_US
from buzzerbox.pads.fakes.padboard import BoardClock, FakeBoard
from buzzerbox.pads.fakes.wires import Wire, edges, make_wire, run_wires
from buzzerbox.pads.timeline.arbiter import Arbiter, BoardStatusChanged, Edge, FramesLost
from buzzerbox.testing import ManualClock


def online(clock: ManualClock, arbiter: Arbiter, *ids: str, **kw: float) -> list[Wire]:
    wires = [make_wire(clock, arbiter, i, **kw) for i in ids]  # type: ignore[arg-type]
    for w in wires:
        w.open()
    return wires


def test_hello_then_sync_then_online(clock: ManualClock, arbiter: Arbiter) -> None:
    (w,) = online(clock, arbiter, "pico-a")
    assert w.session.board == "pico-a"
    assert w.session.events() == [BoardStatusChanged("pico-a", "online")]
    assert w.session.clock is not None and w.session.clock.is_mapped


def test_frames_before_hello_are_ignored(clock: ManualClock, arbiter: Arbiter) -> None:
    w = make_wire(clock, arbiter, "pico-a")
    w.session.opened(clock())
    # a "\n" first: a SYNC line a host before left without its "\n" ends there
    assert w.session.outgoing() == b"\n" + p.hello_request()
    w.to_host(w.board.press(1) + w.board.tick())  # the board talks before answering
    assert arbiter.pending == 0 and w.session.events() == []
    w.to_host(w.board.hello())
    assert w.session.events() == [BoardStatusChanged("pico-a", "online")]


def test_hello_is_asked_again_until_it_comes(clock: ManualClock, arbiter: Arbiter) -> None:
    w = make_wire(clock, arbiter, "pico-a")
    w.session.opened(clock())
    w.session.outgoing()
    clock.advance(1_000_001)
    w.session.poll(clock())
    assert w.session.outgoing() == p.hello_request()


def test_press_is_final_after_the_next_tick_with_host_time(
    clock: ManualClock, arbiter: Arbiter
) -> None:
    (w,) = online(clock, arbiter, "pico-a", offset_us=9_000_000, drift_ppm=0.0)
    run_wires(clock, [w], 100_000)
    pressed_at = clock()
    w.to_host(w.board.press(3))
    assert edges(arbiter.advance(clock())) == []
    events = run_wires(clock, [w], 10_000)
    assert edges(events) == [Edge("pico-a", 3, "pico-a:3", 1, pressed_at)]


def test_two_boards_offsets_and_drifts_microseconds_apart(
    clock: ManualClock, arbiter: Arbiter
) -> None:
    a = make_wire(clock, arbiter, "pico-a", offset_us=3_000_000, drift_ppm=48.0, latency_us=150)
    b = make_wire(clock, arbiter, "pico-b", offset_us=71_000_000, drift_ppm=-45.0, latency_us=400)
    a.open()
    b.open()
    run_wires(clock, [a, b], 6_000_000)
    got: list[Edge] = []
    truth: list[tuple[str, int]] = []
    for i in range(20):
        first, second = (a, b) if i % 2 else (b, a)
        truth.append((first.board.board_id, clock()))
        first.to_host(first.board.press(i % 8))
        clock.advance(50)  # 50 µs later, on the other board
        truth.append((second.board.board_id, clock()))
        second.to_host(second.board.press(i % 8))
        got += edges(run_wires(clock, [a, b], 200_000))
    assert [e.board for e in got] == [board for board, _ in truth]
    assert all(abs(e.t_us - t) <= 5 for e, (_, t) in zip(got, truth, strict=True))


def test_edges_wait_for_the_clock_map(clock: ManualClock, arbiter: Arbiter) -> None:
    w = make_wire(clock, arbiter, "pico-a")
    w.answers = False  # SYNC requests go nowhere for now
    w.session.opened(clock())
    w.session.outgoing()
    w.to_host(w.board.hello())
    w.session.outgoing()
    pressed_at = clock()
    w.to_host(w.board.press(2) + w.board.tick())
    assert edges(arbiter.advance(clock())) == [] and arbiter.pending == 0  # held, unmapped
    w.answers = True
    clock.advance(30_000)  # the next SYNC is due
    w.session.poll(clock())
    w.exchange()
    w.to_host(w.board.tick())
    assert edges(arbiter.advance(clock())) == [Edge("pico-a", 2, "pico-a:2", 1, pressed_at)]


def test_sync_unanswered_for_2_s_leaves_the_board_out(clock: ManualClock, arbiter: Arbiter) -> None:
    a, b = online(clock, arbiter, "pico-a", "pico-b")
    run_wires(clock, [a, b], 100_000)
    a.session.events()
    a.board.answers_sync = False
    events = run_wires(clock, [a, b], 2_600_000)
    assert BoardStatusChanged("pico-a", "silent") in events
    assert not arbiter.is_waited_for("pico-a")
    b.to_host(b.board.press(1))
    assert len(edges(run_wires(clock, [b], 20_000))) == 1  # not waiting for pico-a
    a.board.answers_sync = True
    events = run_wires(clock, [a, b], 600_000)
    assert BoardStatusChanged("pico-a", "online") in events
    assert arbiter.is_waited_for("pico-a")


def test_answers_too_slow_to_map_the_board_do_not_hold_the_table_past_2_s(
    clock: ManualClock, arbiter: Arbiter
) -> None:
    """pico-a restarts and its SYNC answers stop, but for one that comes 1.2 s late (a
    round trip too long to map its clock by): it talks (TICKs) and cannot say a time,
    so decisions wait for it; that answer must not start its 2 s again (before: pico-b's
    press waited 3.2 s, past what the fuzz test allows, tests/faults/test_fuzz_link.py)."""
    a, b = online(clock, arbiter, "pico-a", "pico-b")
    run_wires(clock, [a, b], 100_000)
    a.session.received(a.board.boot(), clock())  # a new clock: nothing is decided yet
    asked_at, request = clock(), a.session.outgoing()  # its first SYNC, kept back
    b.to_host(b.board.press(1))
    a.board.answers_sync = False
    run_wires(clock, [a, b], 1_200_000)
    a.board.answers_sync = True
    a.to_host(a.board.received(request))  # answered 1.2 s late
    a.board.answers_sync = False
    assert a.session.clock is not None and a.session.clock.samples == 1
    assert not a.session.is_mapped
    decided = edges(run_wires(clock, [a, b], asked_at + SYNC_TIMEOUT_US + 20_000 - clock()))
    assert [e.board for e in decided] == ["pico-b"]
    assert not arbiter.is_waited_for("pico-a")


def test_unsupported_protocol(clock: ManualClock, arbiter: Arbiter) -> None:
    board = FakeBoard("pico-new", clock=BoardClock(clock), proto=2)
    w = Wire(clock, board, BoardSession("loop://x", arbiter))
    w.open()
    assert w.session.events() == [BoardStatusChanged("pico-new", "unsupported")]
    w.to_host(board.press(1) + board.tick())
    assert arbiter.pending == 0 and not arbiter.is_waited_for("pico-new")


def test_seq_gaps_and_lost_are_reported(clock: ManualClock, arbiter: Arbiter) -> None:
    (w,) = online(clock, arbiter, "pico-a")
    w.session.events()
    w.board.skip(3)
    w.to_host(w.board.tick())
    w.to_host(w.board.lost(5))
    w.to_host(w.board.lost(0))
    assert w.session.events() == [FramesLost("pico-a", 3), FramesLost("pico-a", 5)]


def test_seq_wraps_without_a_gap(clock: ManualClock, arbiter: Arbiter) -> None:
    (w,) = online(clock, arbiter, "pico-a")
    w.session.events()
    w.board.seq = p.U32 - 2
    w.session._next_seq = p.U32 - 2
    for _ in range(4):
        w.to_host(w.board.tick())
    assert w.session.events() == []


def test_edge_on_a_channel_the_board_lacks_is_a_bad_frame(
    clock: ManualClock, arbiter: Arbiter
) -> None:
    (w,) = online(clock, arbiter, "pico-a")
    w.to_host(p.encode(f"EDGE {w.board.seq} 8 1 {w.board.clock.ticks()}"))
    w.board.skip(1)
    assert w.session.bad_frames == 1
    assert arbiter.pending == 0


def test_reboot_maps_the_clock_anew(clock: ManualClock, arbiter: Arbiter) -> None:
    (w,) = online(clock, arbiter, "pico-a", offset_us=40_000_000)
    w.board.ticks_after_sync = False  # its first SYNC answer would say a watermark at once
    run_wires(clock, [w], 1_000_000)
    w.session.events()
    w.board.clock.offset_us = 0
    w.to_host(w.board.boot())  # HELLO seq 0: the clock starts again from 0
    assert arbiter.horizon() == float("-inf")  # nothing decided until it is mapped again
    run_wires(clock, [w], 50_000)
    pressed_at = clock()
    w.to_host(w.board.press(4))
    got = edges(run_wires(clock, [w], 20_000))
    assert got == [Edge("pico-a", 4, "pico-a:4", 1, pressed_at)]
    assert w.session.events() == []  # no seq gap reported for a reboot


def test_unseen_restart_is_caught_by_seq_or_sync(clock: ManualClock, arbiter: Arbiter) -> None:
    (w,) = online(clock, arbiter, "pico-a", offset_us=40_000_000)
    run_wires(clock, [w], 500_000)
    w.session.gone(clock())
    w.board.clock.offset_us = 0
    w.board.boot()  # its boot HELLO is lost while the port is away
    for _ in range(5):
        w.board.tick()
    w.open()  # HELLO seq 6 < what was expected: it restarted
    run_wires(clock, [w], 50_000)
    pressed_at = clock()
    w.to_host(w.board.press(1))
    assert edges(run_wires(clock, [w], 20_000)) == [Edge("pico-a", 1, "pico-a:1", 1, pressed_at)]


def test_a_lying_hello_then_an_unseen_reboot_asks_hello_again(
    clock: ManualClock, arbiter: Arbiter
) -> None:
    """A HELLO that was no board's (well framed: line noise, a fuzzer) says 1 tick/s and
    no channels; then the board really reboots, its HELLO lost to junk on the line. The
    first SYNC answer far from the map has the host ask HELLO? again, and the board's
    presses count from then on (before: refused as channels it lacks, for good)."""
    (w,) = online(clock, arbiter, "pico-a")
    w.to_host(p.encode("HELLO 0 1 pico-a 0.1.0 1 0"))  # its one SYNC answer maps it
    w.board.answers_sync = False  # a second would give the lie away (the clock "jumps")
    run_wires(clock, [w], 100_000)
    assert w.session.hello is not None and w.session.hello.channels == 0
    w.board.answers_sync = True
    w.to_host(b"\x00" + w.board.boot())  # the boot HELLO joins the junk's line: dropped
    assert w.session.hello.channels == 0
    run_wires(clock, [w], 100_000)  # a SYNC answer on the new clock: "HELLO?"
    assert (w.session.hello.tick_hz, w.session.hello.channels) == (1_000_000, 8)
    w.session.events()
    pressed_at = clock()
    w.to_host(w.board.press(3))
    assert edges(run_wires(clock, [w], 20_000)) == [Edge("pico-a", 3, "pico-a:3", 1, pressed_at)]


def test_an_edge_past_the_hello_channels_asks_hello_again(
    clock: ManualClock, arbiter: Arbiter
) -> None:
    """A lying HELLO with no channels and the board's own clock rate: nothing else gives
    it away, so the board's first EDGE past its channels has the host ask HELLO? (that
    edge is a bad frame); the next press counts."""
    (w,) = online(clock, arbiter, "pico-a")
    w.to_host(p.encode("HELLO 0 1 pico-a 0.1.0 1000000 0"))
    run_wires(clock, [w], 100_000)
    w.board.answers_sync = False  # only the EDGE may give the lie away
    w.to_host(w.board.press(2))
    assert w.session.bad_frames == 1
    assert w.session.hello is not None and w.session.hello.channels == 8
    w.board.answers_sync = True
    run_wires(clock, [w], 100_000)
    pressed_at = clock()
    w.to_host(w.board.press(5))
    assert edges(run_wires(clock, [w], 20_000)) == [Edge("pico-a", 5, "pico-a:5", 1, pressed_at)]


def test_gone_and_back_keeps_the_map_and_counts_what_was_missed(
    clock: ManualClock, arbiter: Arbiter
) -> None:
    a, b = online(clock, arbiter, "pico-a", "pico-b")
    run_wires(clock, [a, b], 100_000)
    a.session.events()
    a.session.gone(clock())
    assert a.session.events() == [BoardStatusChanged("pico-a", "gone")]
    b.to_host(b.board.press(0))
    assert len(edges(run_wires(clock, [b], 20_000))) == 1  # pico-a is not waited for
    for _ in range(7):
        a.board.tick()  # sent into the void
    a.open()
    assert a.session.events() == [
        FramesLost("pico-a", 7),
        BoardStatusChanged("pico-a", "online"),
    ]


def test_silent_board_then_its_stalled_edge_comes_late(
    clock: ManualClock, arbiter: Arbiter
) -> None:
    a, b = online(clock, arbiter, "pico-a", "pico-b")
    run_wires(clock, [a, b], 100_000)
    b.is_ticking = False
    b.board.ticks_after_sync = False  # a stuck link: no TICK, not even after a SYNC answer
    stalled = b.board.press(5)  # pressed now, but its link is stuck
    b_pressed_at = clock()
    clock.advance(1_000)
    a.to_host(a.board.press(2))
    assert edges(run_wires(clock, [a, b], 400_000)) == []  # waiting for pico-b
    events = run_wires(clock, [a, b], 200_000)
    assert BoardStatusChanged("pico-b", "silent") in events
    assert [e.board for e in edges(events)] == ["pico-a"]
    b.to_host(stalled)
    assert edges(arbiter.advance(clock())) == [
        Edge("pico-b", 5, "pico-b:5", 1, b_pressed_at, late=True)
    ]


def test_junk_on_the_line_is_counted_and_harmless(clock: ManualClock, arbiter: Arbiter) -> None:
    (w,) = online(clock, arbiter, "pico-a")
    w.to_host(b"\x00\xff garbage *1234\n" + b"z" * 500 + b"\nEDGE 1 2 3*0000\n")
    pressed_at = clock()
    w.to_host(w.board.press(1))
    assert edges(run_wires(clock, [w], 20_000)) == [Edge("pico-a", 1, "pico-a:1", 1, pressed_at)]
    assert w.session.decoder.bad == 3


def test_leds_debounce_and_err(clock: ManualClock, arbiter: Arbiter) -> None:
    board = FakeBoard("pico-a", clock=BoardClock(clock), leds=4)
    session = BoardSession("loop://a", arbiter, debounce_us=2500)
    session.set_led(1, True)  # before HELLO: sent after it
    w = Wire(clock, board, session)
    w.open()
    assert board.leds == {1: True} and board.debounce_us == 2500
    session.set_led(9, True)  # the board has no LED 9: it says ERR
    w.exchange()
    assert [e.code for e in session.errors] == [5]  # ERR_NO_OUTPUT, as the firmware says
