"""Waitress's worker threads, started as they are needed (not a thousand at start-up).

A live stream of the hub holds one of waitress's worker threads (the box's streams
give theirs back once their head is written, live/handover.py, and a viewer's never
takes one: loop.py), so the server allows
`max_phones` + a reserve of them.
Waitress starts them all at once; `OnDemandDispatcher` starts one when a request comes
and none is idle, up to the same limit, each with a small stack (STACK_BYTES), and
keeps it for the next request. The box answers at once on start-up, and a box that
never sees a thousand phones never has a thousand threads.
"""

from __future__ import annotations

import threading
from typing import Any

from waitress.task import ThreadedTaskDispatcher

#: a worker's stack: it runs a Flask request or sleeps for a stream, never deep
STACK_BYTES = 512 * 1024


class OnDemandDispatcher(ThreadedTaskDispatcher):
    """Waitress's dispatcher, growing to `max_threads` threads as requests need them."""

    def __init__(self, max_threads: int) -> None:
        super().__init__()
        self.max_threads = max_threads

    def set_thread_count(self, count: int) -> None:
        """The most threads; fewer running (shutdown: 0) stops the surplus now."""
        self.max_threads = count
        if count < len(self.threads) - self.stop_count:
            super().set_thread_count(count)

    def add_task(self, task: Any) -> None:
        with self.lock:
            running = len(self.threads) - self.stop_count
            idle = running - self.active_count
            if idle <= len(self.queue) and running < self.max_threads:
                number = 0
                while number in self.threads:
                    number += 1
                self.threads.add(number)
                self.active_count += 1  # as waitress counts a thread it starts
                self.start_new_thread(self.handler_thread, number)
                self.queue.append(task)  # for the new thread: no "queue depth" warning
                self.queue_cv.notify()
                return
        super().add_task(task)

    def start_new_thread(self, target: Any, thread_no: int) -> None:
        previous = threading.stack_size(STACK_BYTES)
        try:
            super().start_new_thread(target, thread_no)
        finally:
            threading.stack_size(previous)
