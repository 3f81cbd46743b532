"""Waitress's worker threads start as requests need them, up to the limit."""

from __future__ import annotations

import threading

from buzzerbox.web.threads import OnDemandDispatcher


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
