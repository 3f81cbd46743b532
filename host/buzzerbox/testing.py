"""A box clock driven by hand, for tests and demos (the pads' own is pads/fakes/pins.py).
The package's pytest fixtures built on it are buzzerbox/fixtures.py.

clock = ManualClock()
box = Box(log, clock=clock)
clock.advance(3_000_000)   # runs the callbacks that fall due, in time order
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Timer:
    """A callback due at `due` µs, until cancelled."""

    due: int
    fn: Callable[[], None]
    is_cancelled: bool = False

    def cancel(self) -> None:
        self.is_cancelled = True


#: where the pads' tests start their host clock (µs): far from 0, as a Pi's uptime is
START_US = 1_000_000_000


@dataclass
class ManualClock:
    """The box's `Clock` and the pads' host clock (`clock()` is now, µs): time moves
    only in `advance`, which runs what fell due and returns the new now."""

    now: int = 1_000_000
    timers: list[Timer] = field(default_factory=list)

    def ticks(self) -> int:
        return self.now

    def __call__(self) -> int:
        return self.now

    def call_later(self, delay_us: int, fn: Callable[[], None]) -> Timer:
        timer = Timer(self.now + delay_us, fn)
        self.timers.append(timer)
        return timer

    def advance(self, us: int) -> int:
        self.now += us
        due = [t for t in self.timers if t.due <= self.now and not t.is_cancelled]
        self.timers = [t for t in self.timers if t not in due and not t.is_cancelled]
        for timer in sorted(due, key=lambda t: t.due):
            timer.fn()
        return self.now
