"""The host clock, once: CLOCK_MONOTONIC in µs, the timeline the pads stamp edges on
(the kernel's GPIO edge clock too) and the box counts down on.

`monotonic_us()` is the reading; `SystemClock` is the box's `Clock` (the reading, and
callbacks after a delay). Tests drive a `buzzerbox.testing.ManualClock` instead.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol


def monotonic_us() -> int:
    """The host timeline: CLOCK_MONOTONIC in µs."""
    return time.monotonic_ns() // 1000


class Cancellable(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """Host monotonic time in µs, and callbacks after a delay."""

    def ticks(self) -> int: ...

    def call_later(self, delay_us: int, fn: Callable[[], None]) -> Cancellable: ...


class SystemClock:
    """The host clock: `monotonic_us()`, and timer threads for the callbacks."""

    def ticks(self) -> int:
        return monotonic_us()

    def call_later(self, delay_us: int, fn: Callable[[], None]) -> Cancellable:
        timer = threading.Timer(max(delay_us, 0) / 1e6, fn)
        timer.daemon = True
        timer.start()
        return timer
