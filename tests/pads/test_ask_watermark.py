"""A held edge asks the boards it waits for to report (a SYNC out of turn, answered by
the board with its SYNC and a TICK), rather than waiting for their next idle TICK."""

from __future__ import annotations

from collections.abc import Callable

from buzzerbox.pads.fakes.port import FakeBoardPort
from buzzerbox.pads.fakes.wires import collect, edges, presses, run_wires
from buzzerbox.pads.sources import PadSources
from buzzerbox.pads.timeline.arbiter import Arbiter, BoardStatusChanged, Edge
from buzzerbox.testing import ManualClock

from tests.pads.test_session import online


def test_blocking_names_the_sources_the_oldest_edge_waits_for() -> None:
    arbiter = Arbiter()
    for name in ("a", "b", "c"):
        arbiter.add_source(name, 0)
    assert arbiter.blocking() == [] and arbiter.oldest() == -1  # nothing held
    arbiter.report("c", 5_000, 5_000)
    arbiter.edge(Edge("a", 1, "a:1", 1, 1_000), 1_000)
    assert arbiter.oldest() == 1_000
    # c reported past it; b not at all; a at the edge's time, which is not past it (an
    # EDGE says every edge before its time was sent: another may come at the same time)
    assert arbiter.blocking() == ["a", "b"]
    arbiter.report("b", 1_001, 1_100)
    assert arbiter.blocking() == ["a"]
    arbiter.report("a", 1_001, 1_200)
    assert arbiter.blocking() == []
    assert [e.t_us for e in edges(arbiter.advance(1_200))] == [1_000]


def test_an_edge_asks_the_board_it_waits_for_and_its_tick_makes_it_final(
    clock: ManualClock, arbiter: Arbiter
) -> None:
    a, b = online(clock, arbiter, "pico-a", "pico-b")
    run_wires(clock, [a, b], 100_000)
    a.is_ticking = b.is_ticking = False  # no idle TICK from here on
    a.to_host(a.board.press(2))
    assert edges(arbiter.advance(clock())) == []  # pico-b has not reported past it
    assert arbiter.blocking() == ["pico-a", "pico-b"]  # its own board too: see above
    for w in (a, b):
        assert w.session.ask_watermark(arbiter.oldest(), clock())  # a SYNC, now
        w.exchange()  # the board answers: SYNC, then TICK
    assert [(e.board, e.ch) for e in edges(arbiter.advance(clock()))] == [("pico-a", 2)]


def test_asked_once_per_edge_and_a_board_without_the_tick_is_waited_for(
    clock: ManualClock, arbiter: Arbiter
) -> None:
    a, b = online(clock, arbiter, "pico-a", "pico-b")
    run_wires(clock, [a, b], 100_000)
    a.is_ticking = b.is_ticking = False
    b.board.ticks_after_sync = False  # the protocol does not ask a board for that TICK
    a.to_host(a.board.press(2))
    clock.advance(100)
    a.to_host(a.board.tick())  # pico-a past it
    t_us = arbiter.oldest()
    assert b.session.ask_watermark(t_us, clock())
    assert not b.session.ask_watermark(t_us, clock() + 1_000)  # asked already
    b.exchange()
    assert edges(arbiter.advance(clock())) == []  # a SYNC answer is no watermark
    assert b.session.ask_watermark(t_us, clock() + 20_000)  # asked again, later
    b.to_host(b.board.tick())  # its own TICK in its own time
    assert len(edges(arbiter.advance(clock()))) == 1


def test_pad_sources_ask_a_board_that_never_ticks(
    fake_port: Callable[..., FakeBoardPort],
) -> None:
    a, b = fake_port("pico-a"), fake_port("pico-b")
    with PadSources(boards=[a.url, b.url], silence_us=30_000_000) as src:
        collect(
            src,
            lambda evs: all(BoardStatusChanged(f"pico-{i}", "online") in evs for i in "ab"),
        )
        b.is_ticking = False  # pico-b says nothing by itself now (and is not silent for 30 s)
        with src.lock:
            src.sessions[1].syncs.due = None  # nor answers a steady SYNC meanwhile
        a.press(3, after_us=50_000)
        got = presses(collect(src, lambda evs: len(presses(evs)) == 1, timeout=5.0))
        assert src.sessions[1].asked_for == got[0].t_us  # pico-b was asked for this edge
    assert [(e.board, e.ch) for e in got] == [("pico-a", 3)]


def test_pad_sources_without_asking_wait_for_the_tick(
    fake_port: Callable[..., FakeBoardPort],
) -> None:
    a, b = fake_port("pico-a"), fake_port("pico-b")
    src = PadSources(boards=[a.url, b.url], silence_us=30_000_000, asks_watermarks=False)
    with src:
        collect(
            src,
            lambda evs: all(BoardStatusChanged(f"pico-{i}", "online") in evs for i in "ab"),
        )
        b.is_ticking = False
        with src.lock:
            src.sessions[1].syncs.due = None  # no steady SYNC either
        a.press(3, after_us=50_000)
        held = collect(src, lambda evs: src.arbiter.pending == 1, timeout=5.0)
        assert presses(held) == [] and "pico-b" in src.arbiter.blocking()
        b.is_ticking = True  # its next TICK decides it
        got = presses(collect(src, lambda evs: len(presses(evs)) == 1, timeout=5.0))
        assert src.sessions[1].asked_for is None  # never asked
    assert [(e.board, e.ch) for e in got] == [("pico-a", 3)]
