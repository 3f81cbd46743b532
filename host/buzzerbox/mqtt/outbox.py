"""The box's outbox: its own log, read from a cursor, and the cursor on disk.

The box's SQLite log already holds every accepted event, durably, in order, with a
`seq` that is never reused: it *is* the queue. Writing each event a second time to
another table would add a second fsync to every pad press, under the box's lock.
So the publisher keeps only a cursor: the seq up to which every message has been
acknowledged by the broker (PUBACK), in `mqtt.db` next to the log. What lies beyond
the cursor is what a box that lost its broker (or its power) still has to publish;
it is read back from the log in order when the broker is there again.

The cursor is a hint, not a record: it is written at most every `SAVE_EVERY_S`
(publisher.py) and without an fsync of its own (WAL, synchronous=NORMAL). A crash
or a power cut that loses its last moves only means that what was acknowledged since
goes out again: with the same ids (the messages are derived from the log), and every
subscriber drops a seq it already has. So no pad press waits for it, and the box
writes it a few times a second at most, not once per PUBACK.

The store reads and writes both (`buzzerbox.store.tail`: `LogTail`, `Cursor`); this
module only decides when the cursor may move (`Acks`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict


class Acks:
    """Which events the broker has acknowledged. An event is done when every message
    made for it has its PUBACK; the cursor moves over the events done, in order.

    `sent` is called after `publish` returned its mid, `acked` (and `advance`) from the
    network thread: an ack may come first, and an event counts only once `seal`ed.
    Thread-safe; never held while paho's locks are taken."""

    def __init__(self, done: int) -> None:
        self.done = done
        self._sealed = done  # the last event whose messages have all been handed over
        self._lock = threading.Lock()
        self._waiting: OrderedDict[int, int] = OrderedDict()  # seq -> messages unacked
        self._mids: dict[int, int | None] = {}  # mid -> seq (None: not tracked)
        self._early: set[int] = set()

    def expect(self, seq: int) -> None:
        """An event is being handed over (before its messages are published)."""
        with self._lock:
            self._waiting.setdefault(seq, 0)

    def start_at(self, done: int) -> None:
        """A new connection goes on from `done` (before any of its events is expected)."""
        with self._lock:
            self.done = self._sealed = max(self.done, done)

    def seal(self, seq: int) -> None:
        """Every message of event `seq` has been sent: once they are acknowledged, the
        cursor may move over it (not before: `advance` may run in another thread)."""
        with self._lock:
            self._sealed = seq

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
                if left > 0 or seq > self._sealed:
                    break
                self._waiting.popitem(last=False)
                self.done = seq
            return self.done

    @property
    def outstanding(self) -> int:
        """Events handed over and not yet acknowledged."""
        with self._lock:
            return len(self._waiting)
