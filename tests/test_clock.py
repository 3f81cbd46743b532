"""The box's SystemClock: callbacks after a delay, run in the order they are due on one
thread (issue 40: a thread started for each callback cost an idle box more CPU than the
callbacks themselves). The waits here are for events the callbacks set, never sleeps."""

from __future__ import annotations

import functools
import logging
import threading

import pytest
from buzzerbox import clock as clock_module
from buzzerbox.clock import SystemClock

WAIT_S = 10  # what a loaded machine may take; a pass takes milliseconds


def test_callbacks_run_in_the_order_they_are_due_not_the_order_they_were_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock, ran, done = SystemClock(), list[int](), threading.Event()
    now = clock_module.monotonic_us()
    monkeypatch.setattr(clock_module, "monotonic_us", lambda: now)  # all asked at `now`

    def note(ms: int) -> None:
        ran.append(ms)
        if len(ran) == 3:
            done.set()

    for ms in (60, 20, 40):
        clock.call_later(ms * 1000, functools.partial(note, ms))
    monkeypatch.undo()
    assert done.wait(WAIT_S)
    assert ran == [20, 40, 60]


def test_a_call_asked_while_the_thread_waits_for_a_later_one_runs_first() -> None:
    clock, soon = SystemClock(), threading.Event()
    later = clock.call_later(60_000_000, lambda: None)
    clock.call_later(1_000, soon.set)
    assert soon.wait(WAIT_S), "the clock slept on until the later call"
    later.cancel()


def test_a_cancelled_call_never_runs() -> None:
    clock, ran, done = SystemClock(), list[str](), threading.Event()
    clock.call_later(10_000, lambda: ran.append("cancelled")).cancel()
    clock.call_later(30_000, done.set)
    assert done.wait(WAIT_S)
    assert ran == []


def test_all_calls_share_one_thread() -> None:
    clock, before = SystemClock(), threading.active_count()
    calls = [clock.call_later(60_000_000, lambda: None) for _ in range(50)]
    assert threading.active_count() == before + 1
    assert [t.name for t in threading.enumerate()].count("bb-clock") >= 1
    for call in calls:
        call.cancel()


def test_a_callback_may_ask_for_the_next_and_a_failing_one_stops_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock, ticks, done = SystemClock(), list[int](), threading.Event()

    def fail() -> None:
        raise RuntimeError("a sweep went wrong")

    def tick() -> None:
        ticks.append(len(ticks))
        if len(ticks) < 3:
            clock.call_later(1_000, tick)
        else:
            done.set()

    clock.call_later(1_000, fail)
    clock.call_later(2_000, tick)
    with caplog.at_level(logging.ERROR, logger="buzzerbox.clock"):
        assert done.wait(WAIT_S)
    assert ticks == [0, 1, 2]
    assert "a timed call failed" in caplog.text
