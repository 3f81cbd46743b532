"""The box's outbox: its own log, read from a cursor, and the cursor on disk.

The box's SQLite log already holds every accepted event, durably, in order, with a
`seq` that is never reused: it *is* the queue. Writing each event a second time to
another table would add a second fsync to every pad press, under the box's lock.
So the publisher keeps only a cursor: the seq up to which every message has been
acknowledged by the broker (PUBACK), in `mqtt.db` next to the log. What lies beyond
the cursor is what a box that lost its broker (or its power) still has to publish;
it is read back from the log in order when the broker is there again. A crash
between a PUBACK and the cursor's write means a message goes out twice: it carries
the same id, and subscribers drop it.

The store reads and writes both (`buzzerbox.store.tail`: `LogTail`, `Cursor`); this
module only decides when the cursor may move (`Acks`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict


class Acks:
    """Which events the broker has acknowledged. An event is done when every message
    made for it has its PUBACK; the cursor moves over the events done, in order.

    `sent` is called after `publish` returned its mid, `acked` from the network thread:
    an ack may come first. Thread-safe; never held while paho's locks are taken."""

    def __init__(self, done: int) -> None:
        self.done = done
        self._lock = threading.Lock()
        self._waiting: OrderedDict[int, int] = OrderedDict()  # seq -> messages unacked
        self._mids: dict[int, int | None] = {}  # mid -> seq (None: not tracked)
        self._early: set[int] = set()

    def expect(self, seq: int) -> None:
        """An event is being handed over (before its messages are published)."""
        with self._lock:
            self._waiting.setdefault(seq, 0)

    def sent(self, mid: int, seq: int | None) -> None:
        with self._lock:
            if mid in self._early:
                self._early.discard(mid)
                return
            self._mids[mid] = seq
            if seq is not None:
                self._waiting[seq] = self._waiting.get(seq, 0) + 1

    def acked(self, mid: int) -> None:
        with self._lock:
            if mid not in self._mids:
                self._early.add(mid)
                return
            seq = self._mids.pop(mid)
            if seq is not None and seq in self._waiting:
                self._waiting[seq] -= 1

    def advance(self) -> int:
        """Move over the events whose messages are all acknowledged; the new cursor."""
        with self._lock:
            while self._waiting:
                seq, left = next(iter(self._waiting.items()))
                if left > 0:
                    break
                self._waiting.popitem(last=False)
                self.done = seq
            return self.done

    @property
    def outstanding(self) -> int:
        """Events handed over and not yet acknowledged."""
        with self._lock:
            return len(self._waiting)
