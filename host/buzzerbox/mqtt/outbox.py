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

`LogTail` reads the log (the `events` table of store/log.py) on its own connection:
WAL lets it read while the box writes, and it never writes.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from buzzerbox.mqtt.derive import Stored
from buzzerbox.mqtt.topics import MqttError


class OutboxError(MqttError, OSError):
    """The box's log or the publisher's cursor cannot be read or written."""


class LogTail:
    """Reads the box's event log from a seq on. Never writes to it."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA query_only = ON")
        except sqlite3.DatabaseError as exc:
            raise OutboxError(f"the log {self.path} cannot be opened: {exc}") from exc

    def after(self, seq: int, limit: int) -> list[Stored]:
        """Up to `limit` events with a seq above `seq`, in order."""
        return self._events(
            "SELECT seq, game, at, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
            (seq, limit),
        )

    def game_upto(self, seq: int) -> list[Stored]:
        """The events of the game that holds `seq`, up to and including it."""
        rows = self._query("SELECT game FROM events WHERE seq = ?", (seq,))
        if not rows:
            return []
        return self._events(
            "SELECT seq, game, at, body FROM events WHERE game = ? AND seq <= ? ORDER BY seq",
            (rows[0][0], seq),
        )

    def last_seq(self) -> int:
        return int(self._query("SELECT MAX(seq) FROM events", ())[0][0] or 0)

    def last_game(self) -> int | None:
        value = self._query("SELECT MAX(game) FROM events", ())[0][0]
        return None if value is None else int(value)

    def close(self) -> None:
        self._db.close()

    def _events(self, sql: str, args: tuple[Any, ...]) -> list[Stored]:
        rows = self._query(sql, args)
        return [Stored(int(r[0]), int(r[1]), float(r[2]), json.loads(str(r[3]))) for r in rows]

    def _query(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        try:
            return list(self._db.execute(sql, args).fetchall())
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return [(None,)] if sql.startswith("SELECT MAX") else []
            raise OutboxError(f"the log {self.path} cannot be read: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise OutboxError(f"the log {self.path} cannot be read: {exc}") from exc


class Cursor:
    """Per box name: the seq up to which the broker has acknowledged everything."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            # a cursor lost in a power cut only means messages sent twice (and dropped)
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS published ("
                "box TEXT PRIMARY KEY, seq INTEGER NOT NULL, updated REAL NOT NULL)"
            )
        except sqlite3.DatabaseError as exc:
            raise OutboxError(f"the cursor {self.path} cannot be opened: {exc}") from exc

    def get(self, box: str) -> int | None:
        with self._lock:
            row = self._db.execute("SELECT seq FROM published WHERE box = ?", (box,)).fetchone()
        return None if row is None else int(row[0])

    def set(self, box: str, seq: int) -> None:
        with self._lock:
            try:
                self._db.execute(
                    "INSERT INTO published (box, seq, updated) VALUES (?, ?, ?) ON CONFLICT (box) "
                    "DO UPDATE SET seq = excluded.seq, updated = excluded.updated",
                    (box, seq, time.time()),
                )
            except sqlite3.DatabaseError as exc:
                raise OutboxError(f"the cursor {self.path} cannot be written: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            self._db.close()


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
