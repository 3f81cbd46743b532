"""The admin sessions, kept by the box: a login makes one, a logout ends it.

The browser's cookie holds only a random session id (signed by Flask); the box keeps,
per session, a hash of that id, its CSRF token, a tag of the PIN it was opened with
and when it ends. A copied cookie is worth nothing once its session is ended (logout,
a new PIN, its time up). With a file (`buzzerbox serve` gives `sessions.db` in the
data folder) the sessions survive a restart, so a power cut does not log the host out.

Every session is also held in memory (a lookup per request costs no disk read); at
most `MAX_SESSIONS` are kept, the oldest ended first.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from buzzerbox.dbfile import open_db
from buzzerbox.errors import StoreError, Words

MAX_SESSIONS = 64
LIFETIME_S = 12 * 3600.0


@dataclass(frozen=True, slots=True)
class AdminSession:
    csrf: str
    pin_tag: str
    ends: float


def _key(sid: str) -> str:
    return hashlib.sha256(sid.encode("utf-8", "replace")).hexdigest()


class Sessions:
    """The open admin sessions; in `path` (SQLite) when given, else in memory only."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        lifetime_s: float = LIFETIME_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.lifetime_s = lifetime_s
        self.clock = clock
        self._lock = threading.Lock()
        self._open: dict[str, AdminSession] = {}
        self._db: sqlite3.Connection | None = None
        if path is not None:
            self.path = str(path)
            try:
                # WAL with a full sync: a commit (a logout) is on the disk when it returns;
                # the rollback journal's delete is not synced, so a cut could undo one
                db = open_db(
                    self.path,
                    [
                        "PRAGMA journal_mode=WAL",
                        "PRAGMA synchronous=FULL",
                        "CREATE TABLE IF NOT EXISTS sessions (key TEXT PRIMARY KEY,"
                        " csrf TEXT NOT NULL, pin_tag TEXT NOT NULL, ends REAL NOT NULL)",
                    ],
                )
                try:
                    rows = db.execute("SELECT key, csrf, pin_tag, ends FROM sessions").fetchall()
                except sqlite3.DatabaseError:
                    db.close()
                    raise
                self._db = db
            except sqlite3.DatabaseError as exc:
                said = {"path": str(path), "why": str(exc)}
                words = Words("the sessions file {path} cannot be read: {why}", said)
                raise StoreError(words) from exc
            for key, csrf, pin_tag, ends in rows:
                self._open[str(key)] = AdminSession(str(csrf), str(pin_tag), float(ends))

    def open(self, pin_tag: str) -> tuple[str, AdminSession]:
        """A new session: (its id for the cookie, the session)."""
        sid = secrets.token_urlsafe(32)
        session = AdminSession(secrets.token_urlsafe(32), pin_tag, self.clock() + self.lifetime_s)
        with self._lock:
            self._prune()
            while len(self._open) >= MAX_SESSIONS:
                oldest = min(self._open, key=lambda k: self._open[k].ends)
                self._forget(oldest)
            self._open[_key(sid)] = session
            self._write(
                "INSERT INTO sessions (key, csrf, pin_tag, ends) VALUES (?, ?, ?, ?)",
                (_key(sid), session.csrf, session.pin_tag, session.ends),
            )
        return sid, session

    def get(self, sid: object, pin_tag: str) -> AdminSession | None:
        """The open session with this id, opened with this PIN (None: none such)."""
        if not isinstance(sid, str):
            return None
        session = self._open.get(_key(sid))
        if session is None or session.pin_tag != pin_tag or session.ends <= self.clock():
            return None
        return session

    def end(self, sid: object) -> None:
        """End a session (logout): its cookie is worth nothing from now on."""
        if isinstance(sid, str):
            with self._lock:
                self._forget(_key(sid))

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def _prune(self) -> None:
        now = self.clock()
        for key in [k for k, s in self._open.items() if s.ends <= now]:
            self._forget(key)

    def _forget(self, key: str) -> None:
        self._open.pop(key, None)
        self._write("DELETE FROM sessions WHERE key = ?", (key,))

    def _write(self, sql: str, args: tuple[object, ...]) -> None:
        if self._db is None:
            return
        try:
            self._db.execute(sql, args)
        except sqlite3.DatabaseError as exc:
            said = {"path": str(self.path), "why": str(exc)}
            words = Words("the sessions file {path} cannot be written: {why}", said)
            raise StoreError(words, code="sessions-not-written") from exc
