"""Waitress's worker threads start as requests need them, up to the limit."""

from __future__ import annotations

import logging
import threading

import pytest
from buzzerbox.server.threads import OnDemandDispatcher


class Task:
    """A request that holds its thread until let go (as a live stream does)."""

    def __init__(self, go: threading.Event, started: threading.Semaphore) -> None:
        self.go = go
        self.started = started
        self.done = threading.Event()

    def service(self) -> None:
        self.started.release()
        self.go.wait(10)
        self.done.set()

    def cancel(self) -> None:
        self.done.set()


def test_threads_start_on_demand_up_to_the_limit_and_are_kept() -> None:
    dispatcher = OnDemandDispatcher(3)
    assert dispatcher.threads == set()  # none at start-up
    go, started = threading.Event(), threading.Semaphore(0)
    tasks = [Task(go, started) for _ in range(5)]
    for task in tasks[:2]:
        dispatcher.add_task(task)
    assert started.acquire(timeout=10) and started.acquire(timeout=10)
    assert len(dispatcher.threads) == 2
    for task in tasks[2:]:
        dispatcher.add_task(task)
    assert started.acquire(timeout=10)
    assert len(dispatcher.threads) == 3  # the limit: two tasks wait for a thread
    go.set()
    assert all(task.done.wait(10) for task in tasks)
    again = Task(go, started)
    dispatcher.add_task(again)
    assert again.done.wait(10)
    assert len(dispatcher.threads) == 3  # an idle thread took it
    dispatcher.shutdown(timeout=10)
    assert dispatcher.threads == set()


def test_a_task_for_a_new_thread_is_not_logged_as_queued(caplog: pytest.LogCaptureFixture) -> None:
    dispatcher = OnDemandDispatcher(1)
    go, started = threading.Event(), threading.Semaphore(0)
    first, second = Task(go, started), Task(go, started)
    with caplog.at_level(logging.WARNING, logger="waitress.queue"):
        dispatcher.add_task(first)  # a thread starts for it: nothing waits
        assert started.acquire(timeout=10)
        assert caplog.records == []
        dispatcher.add_task(second)  # the limit: it waits, and waitress says so
        assert [r.getMessage() for r in caplog.records] == ["Task queue depth is 1"]
    go.set()
    assert first.done.wait(10) and second.done.wait(10)
    dispatcher.shutdown(timeout=10)
