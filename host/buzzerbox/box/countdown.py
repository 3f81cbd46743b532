"""The box's countdown: the 3 – 2 – 1 before the start signal `go`, or after a split
claim in Twin It!; when it ends (box time, shown on the phones) and the timer that
ends it, on the box's injected `Clock`.

The timer calls `on_end(token)` from the clock's thread; the box takes its lock and
asks `is_current(token)` first, so a countdown stopped meanwhile does nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from buzzerbox.clock import Cancellable, Clock


class Countdown:
    """At most one countdown: its kind ("go", "split"), its end and its timer."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.kind: str | None = None
        self.ends_us: int | None = None
        self._timer: Cancellable | None = None
        self._token = 0

    def start(self, kind: str, now_us: int, delay_us: int, on_end: Callable[[int], None]) -> None:
        """Count down `delay_us` from `now_us` (box time); a running countdown is stopped."""
        self.stop()
        token = self._token
        self.kind, self.ends_us = kind, now_us + delay_us
        self._timer = self.clock.call_later(delay_us, lambda: on_end(token))

    def is_current(self, token: int) -> bool:
        """Whether the timer that gave `token` is the running countdown's."""
        return token == self._token and self.kind is not None

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self.kind, self.ends_us = None, None, None
        self._token += 1
