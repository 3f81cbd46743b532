"""Home Assistant's `ha/event` goes out once per finish: `SentFinishes`.

Its automations fire on that topic, so a finish sent twice (a box that publishes its
log again after a crash, a lost cursor or a reconnect) would fire them twice. When
the broker acknowledges a finish's `ha/event`, its seq is written to the cursor file
at once (key `<box>/ha`); a finish at or below it is left out from then on. Only a
crash between that PUBACK and that write sends it twice.
"""

from __future__ import annotations

import logging
import threading

from buzzerbox.errors import StoreError
from buzzerbox.store.tail import Cursor

logger = logging.getLogger(__name__)


class SentFinishes:
    """Which finishes of box `name` Home Assistant has: kept in `cursor`."""

    def __init__(self, cursor: Cursor, name: str) -> None:
        self._cursor = cursor
        self.name = name
        self.key = f"{name}/ha"
        self.sent = 0  # the last finish whose ha/event the broker acknowledged
        self.due: int | None = None  # a finish whose ha/event is in flight
        self.errors = 0
        self._lock = threading.Lock()

    def load(self, *, is_new: bool) -> None:
        """From the cursor file; `is_new` (a new name or a new log): none sent yet."""
        if is_new:
            self._cursor.set(self.key, 0)
        self.sent = self._cursor.get(self.key) or 0

    def should_send(self, seq: int) -> bool:
        """Whether the ha/event of finish `seq` goes out (then it is in flight)."""
        if seq <= self.sent:
            return False  # Home Assistant has it: it would fire twice
        self.due = seq
        return True

    def acked_upto(self, done: int) -> None:
        """The broker acknowledged every event up to seq `done`."""
        due = self.due
        if due is not None and done >= due:
            self.acknowledged(due)

    def acknowledged(self, seq: int) -> None:
        """The broker has the ha/event of finish `seq`: never send it again."""
        with self._lock:
            if seq <= self.sent:
                return
            self.sent = seq
            if self.due == seq:
                self.due = None
            try:
                self._cursor.set(self.key, seq)
            except StoreError as exc:  # then a restart within FRESH_S may send it again
                self.errors += 1
                logger.warning("mqtt: box %s: %s", self.name, exc)
