"""The host clock, once: CLOCK_MONOTONIC in µs, the timeline the pads stamp edges on
(the kernel's GPIO edge clock too) and the box counts down on.

`monotonic_us()` is the reading; `SystemClock` is the box's `Clock` (the reading, and
callbacks after a delay). Tests drive a `buzzerbox.testing.ManualClock` instead.

A box calls back every second while it waits for nothing (the phones' presence sweep),
so its callbacks share one thread that sleeps until the next is due: a thread started
for each would cost more CPU than the sweep itself (issue 40, the box at rest).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger(__name__)


def monotonic_us() -> int:
    """The host timeline: CLOCK_MONOTONIC in µs."""
    return time.monotonic_ns() // 1000


class Cancellable(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """Host monotonic time in µs, and callbacks after a delay."""

    def ticks(self) -> int: ...

    def call_later(self, delay_us: int, fn: Callable[[], None]) -> Cancellable: ...


class _Call:
    """A callback waiting in a `SystemClock`: `cancel()` before it is due keeps it from
    running (after, it does nothing)."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[], None]) -> None:
        self.fn: Callable[[], None] | None = fn

    def cancel(self) -> None:
        self.fn = None


class SystemClock:
    """The host clock: `monotonic_us()`, and one thread (started with the first
    `call_later`) that runs the callbacks in the order they are due, each after the
    last has returned."""

    def __init__(self) -> None:
        self._due: list[tuple[int, int, _Call]] = []
        self._order = itertools.count()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def ticks(self) -> int:
        return monotonic_us()

    def call_later(self, delay_us: int, fn: Callable[[], None]) -> Cancellable:
        call = _Call(fn)
        with self._changed:
            heapq.heappush(self._due, (monotonic_us() + max(delay_us, 0), next(self._order), call))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="bb-clock", daemon=True)
                self._thread.start()
            self._changed.notify()
        return call

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._due or self._due[0][0] > (now := monotonic_us()):
                    self._changed.wait((self._due[0][0] - now) / 1e6 if self._due else None)
                call = heapq.heappop(self._due)[2]
            fn, call.fn = call.fn, None
            if fn is None:
                continue
            try:
                fn()
            except Exception:  # as a Timer thread's would be: said, and the rest still run
                log.exception("a timed call failed")
