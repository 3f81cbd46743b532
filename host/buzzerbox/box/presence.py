"""Which seats' phones are offline: a phone holding a seat says it is there every few
seconds (POST /api/phones/here, and with each press); every `every_us` the watch looks
for seats not heard from for `after_us` and, when that set changes, the box announces
it (state["box"]["phones"]["offline"], for the host's table view).

The timer runs on the box's injected `Clock` (tests drive a ManualClock). A sweep the box
refuses is logged, and the next tick comes all the same.
"""

from __future__ import annotations

import logging
import threading

from buzzerbox.box.core import Box
from buzzerbox.clock import Cancellable
from buzzerbox.errors import BuzzerboxError

log = logging.getLogger(__name__)

#: a buzzer page says it is there every 3 s (buzzer.js HERE_MS): three missed is offline
OFFLINE_AFTER_US = 10_000_000
EVERY_US = 1_000_000


class PresenceWatch:
    """Sweeps the box's phone seats for phones gone quiet, until `stop()`."""

    def __init__(
        self, box: Box, after_us: int = OFFLINE_AFTER_US, every_us: int = EVERY_US
    ) -> None:
        if after_us <= 0 or every_us <= 0:
            raise ValueError(
                f"a phone is offline after a time above 0 µs, swept every so often: "
                f"{after_us} µs and every {every_us} µs were given"
            )
        self.box, self.after_us, self.every_us = box, after_us, every_us
        self._timer: Cancellable | None = None
        self._lock = threading.Lock()
        self._stopped = True

    def start(self) -> PresenceWatch:
        with self._lock:
            self._stopped = False
            self._timer = self.box.clock.call_later(self.every_us, self._tick)
        return self

    def sweep(self) -> None:
        """Look now: seats not heard for `after_us` are offline (announced if changed)."""
        now = self.box.now_us()
        self.box.change_phones(lambda phones, _: phones.sweep(now, self.after_us))

    def _tick(self) -> None:
        try:
            self.sweep()
        except BuzzerboxError as exc:
            log.warning("the phones' presence sweep failed: %s", exc)
        finally:
            with self._lock:
                if not self._stopped:
                    self._timer = self.box.clock.call_later(self.every_us, self._tick)

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            if self._timer is not None:
                self._timer.cancel()
            self._timer = None
