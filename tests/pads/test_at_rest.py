"""A box waiting for the next game: its boards' TICKs are handled on their links' threads,
where they are read (one wake-up and one read a line), and the thread that takes what
became final (the pad feed's `events`) is woken only when something is due or final.
Counted, not timed: lines handled per thread, reads per line, the poller's steps."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

from buzzerbox.pads.board.session import BoardSession
from buzzerbox.pads.board.syncrounds import SYNC_FAST, SYNC_TIMEOUT_US
from buzzerbox.pads.fakes.port import FakeBoardPort
from buzzerbox.pads.fakes.wires import collect, make_wire, presses, status_is
from buzzerbox.pads.sources import HELD_STEP_US, IDLE_STEP_US, SILENCE_SLACK_US, PadSources
from buzzerbox.pads.timeline.arbiter import Arbiter, Edge, PadEvent
from buzzerbox.testing import ManualClock

LINES = 100  # TICK lines to watch: half a second of two idle boards


def test_idle_boards_are_read_on_their_links_threads_and_the_poller_sleeps(
    fake_port: Callable[..., FakeBoardPort],
) -> None:
    a, b = fake_port("pico-a"), fake_port("pico-b")
    with PadSources(boards=[a.url, b.url]) as src:
        online = [status_is("pico-a", "online"), status_is("pico-b", "online")]
        collect(src, lambda evs: all(is_online(evs) for is_online in online))
        collect(src, lambda evs: all(s.syncs.answered >= SYNC_FAST for s in src.sessions))
        lines: Counter[str] = Counter()  # thread name -> lines handled on it
        reads = [0]
        enough = threading.Event()
        for session in src.sessions:
            received = session.received

            def counted(data: bytes, now_us: int, received: Callable[..., None] = received) -> None:
                reads[0] += 1
                lines[threading.current_thread().name] += data.count(b"\n")
                if sum(lines.values()) >= LINES:
                    enough.set()
                received(data, now_us)

            session.received = counted  # type: ignore[method-assign]
        steps = [0]
        poll = src.poll

        def counted_poll(timeout: float | None = 0.01) -> list[PadEvent]:
            steps[0] += 1
            return poll(timeout)

        src.poll = counted_poll  # type: ignore[method-assign]
        stop = threading.Event()
        got: list[PadEvent] = []
        poller = threading.Thread(target=lambda: got.extend(src.events(stop)), name="poller")
        poller.start()
        try:
            assert enough.wait(10), f"only {sum(lines.values())} lines in 10 s"
        finally:
            stop.set()
            src.wake()
            poller.join(5)
        handled = dict(lines)
    assert not poller.is_alive()
    assert set(handled) <= {f"pads-link-{a.url}", f"pads-link-{b.url}"}, handled
    assert reads[0] <= sum(handled.values())  # a line in one read, not its first byte first
    # steady SYNCs go with the boards' lines: a few steps, not one a line or every 10 ms
    assert steps[0] <= 15, (steps[0], handled)
    assert presses(got) == []


def test_a_held_edge_steps_the_poller_until_it_is_final(clock: ManualClock) -> None:
    src = PadSources(clock=clock)
    with src.lock:
        src.arbiter.add_source("pico-a", clock())
        src.arbiter.add_source("pico-b", clock())
        src.arbiter.report("pico-b", clock(), clock())
        assert src.next_due_us(clock()) > clock() + HELD_STEP_US  # nothing held: no hurry
        src.arbiter.edge(Edge("pico-b", 3, "pico-b:3", 1, clock() + 5), clock())
        assert src.next_due_us(clock()) == clock() + HELD_STEP_US  # asked for again then
        src.arbiter.report("pico-a", clock() + 10, clock())
        src.arbiter.report("pico-b", clock() + 10, clock())
        assert presses(src.poll(0)) != []
        assert src.next_due_us(clock()) > clock() + HELD_STEP_US


def test_what_is_due_next(clock: ManualClock) -> None:
    """The pure parts say when they next have something to do, with nothing coming."""
    arbiter = Arbiter(silence_us=500_000)
    assert arbiter.next_due_us() is None  # no source: never
    arbiter.add_source("x", clock())
    assert arbiter.next_due_us() == clock() + 500_001  # silent after that, unheard
    arbiter.report("x", clock() - 1_000, clock() + 2_000)
    assert arbiter.next_due_us() == clock() - 1_000 + 500_001  # its watermark goes stale
    session = BoardSession("loop://a", Arbiter())
    assert session.next_due_us() is None  # not open
    session.opened(clock())
    assert session.next_due_us() == clock() + 1_000_000  # HELLO? again in 1 s
    wire = make_wire(clock, Arbiter(), "pico-a")
    wire.open()  # HELLO, then a SYNC, answered
    due = wire.session.next_due_us()
    assert due is not None and clock() < due <= clock() + 20_000  # the next fast SYNC
    wire.answers = False
    clock.advance(20_000)
    wire.session.poll(clock())  # sent, not answered
    assert wire.session.syncs.silent_at() == clock() + SYNC_TIMEOUT_US + 1


def test_the_poller_waits_no_longer_than_the_idle_step(clock: ManualClock) -> None:
    src = PadSources(clock=clock)
    with src.lock:
        assert src.next_due_us(clock()) == clock() + IDLE_STEP_US


def test_with_nothing_held_a_silence_deadline_wakes_the_poller_later(clock: ManualClock) -> None:
    """Issue 40: a silence deadline that the board's next TICK moves woke the pad feed
    twice a second for nothing; with nothing held it is `SILENCE_SLACK_US` later (a
    line of another board marks the silence on time), with an edge held it is not."""
    src = PadSources(clock=clock)
    with src.lock:
        src.arbiter.add_source("pico-a", clock())
        src.arbiter.add_source("pico-b", clock())
        src.arbiter.report("pico-b", clock(), clock())
        silent_at = src.arbiter.next_due_us()
        assert silent_at is not None
        assert src.next_due_us(clock()) == silent_at + SILENCE_SLACK_US < clock() + IDLE_STEP_US
        src.arbiter.edge(Edge("pico-b", 3, "pico-b:3", 1, clock() + 5), clock())
        clock.advance(silent_at - clock() - 1)
        assert src.next_due_us(clock()) == silent_at  # an edge waits: no slack
