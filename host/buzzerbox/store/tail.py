"""Reading the log from outside the box: a tail from a seq on, and a reader's cursor.

A reader in another thread or process (the MQTT publisher) follows the log without
touching the box's `EventLog`: `LogTail` opens the same SQLite file on its own
read-only connection (WAL lets it read while the box writes). `Cursor` keeps, per
reader name, the seq up to which the reader is done, in a small database of its own
(never in the log: the log is the box's record and only the box writes it).

Both raise StoreError when their file cannot be read or written.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from buzzerbox.dbfile import open_db
from buzzerbox.store.eventlog import EVENT_COLUMNS, StoredEvent, StoreError, stored_event


class LogTail:
    """Reads the box's event log from a seq on. Never writes to it."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        try:
            self._db = open_db(self.path, ["PRAGMA query_only = ON"])
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"the log {self.path} cannot be opened: {exc}") from exc

    def after(self, seq: int, limit: int) -> list[StoredEvent]:
        """Up to `limit` events with a seq above `seq`, in order."""
        return self._events(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
            (seq, limit),
        )

    def game_upto(self, seq: int) -> list[StoredEvent]:
        """The events of the game that holds `seq`, up to and including it."""
        rows = self._query("SELECT game FROM events WHERE seq = ?", (seq,))
        if not rows:
            return []
        return self._events(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE game = ? AND seq <= ? ORDER BY seq",
            (rows[0][0], seq),
        )

    def last_seq(self) -> int:
        """The seq of the last event (0: an empty log)."""
        return int(self._query("SELECT MAX(seq) FROM events", ())[0][0] or 0)

    def last_game(self) -> int | None:
        """The id of the last game (None: no game yet)."""
        value = self._query("SELECT MAX(game) FROM events", ())[0][0]
        return None if value is None else int(value)

    def close(self) -> None:
        self._db.close()

    def _events(self, sql: str, args: tuple[Any, ...]) -> list[StoredEvent]:
        return [stored_event(row, self.path) for row in self._query(sql, args)]

    def _query(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        try:
            return list(self._db.execute(sql, args).fetchall())
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):  # the box has not created its log yet
                return [(None,)] if sql.startswith("SELECT MAX") else []
            raise StoreError(f"the log {self.path} cannot be read: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"the log {self.path} cannot be read: {exc}") from exc


class Cursor:
    """Per reader name: the seq up to which that reader is done with the log."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        try:
            self._db = open_db(
                self.path,
                [
                    "PRAGMA journal_mode=WAL",
                    # a cursor lost in a power cut only means events read twice (a reader
                    # drops them)
                    "PRAGMA synchronous=NORMAL",
                    "CREATE TABLE IF NOT EXISTS published ("
                    "box TEXT PRIMARY KEY, seq INTEGER NOT NULL, updated REAL NOT NULL)",
                ],
            )
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"the cursor {self.path} cannot be opened: {exc}") from exc

    def get(self, name: str) -> int | None:
        """Where reader `name` is (None: a reader not seen before)."""
        with self._lock:
            try:
                row = self._db.execute(
                    "SELECT seq FROM published WHERE box = ?", (name,)
                ).fetchone()
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"the cursor {self.path} cannot be read: {exc}") from exc
        return None if row is None else int(row[0])

    def set(self, name: str, seq: int) -> None:
        """Reader `name` is done up to `seq`."""
        with self._lock:
            try:
                self._db.execute(
                    "INSERT INTO published (box, seq, updated) VALUES (?, ?, ?) ON CONFLICT (box) "
                    "DO UPDATE SET seq = excluded.seq, updated = excluded.updated",
                    (name, seq, time.time()),
                )
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"the cursor {self.path} cannot be written: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            self._db.close()
