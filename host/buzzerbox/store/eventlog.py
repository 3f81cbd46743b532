"""The box's event log: every accepted event, in SQLite, durable before it is acknowledged.

One table holds the events of every game the box has seen, in the order they were
accepted; `seq` numbers them across games and is never reused (it is the `id:` of the
live stream). A game's id is the `seq` of its `game` line. A second table keeps a
summary per game (kind, players, phase, winners) so the list of games needs no replay;
it is written in the same transaction as the event, so the two never disagree.

A third table keeps the box's own enrolments (which pad is whose in a game, see
buzzerbox/box/enrol.py): outside the events, so the rules never see them.

The database runs in WAL mode with `synchronous=FULL`: when `append` returns, the event
is on disk and survives a kill -9 or a power cut. With `sync="behind"` (what `buzzerbox
serve` uses) a commit does not wait for the disk: it survives a kill -9 when `append`
returns, and a power cut once `durable_seq` has reached it (behind.py says exactly what
a cut can take back: the events after `durable_seq`, the end of the log). The store
knows nothing of the rules: events are plain JSON objects.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypedDict

from buzzerbox.dbfile import open_db
from buzzerbox.durable import fsync_dir
from buzzerbox.errors import StoreError as StoreError  # the store raises it; importable here
from buzzerbox.errors import Words
from buzzerbox.rules.phase import Phase
from buzzerbox.store.behind import SyncBehind

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq  INTEGER PRIMARY KEY AUTOINCREMENT,
    game INTEGER NOT NULL,
    at   REAL    NOT NULL,
    body TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_game ON events (game, seq);
CREATE TABLE IF NOT EXISTS games (
    id      INTEGER PRIMARY KEY,
    kind    TEXT NOT NULL,
    players TEXT NOT NULL,
    started REAL NOT NULL,
    updated REAL NOT NULL,
    phase   TEXT NOT NULL,
    winners TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS enrolments (
    id   INTEGER PRIMARY KEY AUTOINCREMENT,
    game INTEGER NOT NULL,
    at   REAL    NOT NULL,
    pad  TEXT    NOT NULL,
    seat INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS enrolments_by_game ON enrolments (game, id);
"""

#: the columns of an `events` row, in the order `stored_event` reads them
EVENT_COLUMNS = "seq, game, at, body"


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One line of the log: its number, its game, when it was accepted (Unix s), the event."""

    seq: int
    game_id: int
    at: float
    body: dict[str, Any]


class GameSummaryJson(TypedDict):
    id: int
    game: str
    players: list[str]
    started: float
    updated: float
    phase: str
    finished: bool
    winners: list[str]


@dataclass(frozen=True, slots=True)
class GameSummary:
    """What the list of games shows without replaying one."""

    id: int
    game: str
    players: list[str]
    started: float
    updated: float
    phase: str
    winners: list[str] = field(default_factory=list)

    @property
    def is_finished(self) -> bool:
        return self.phase == Phase.FINISHED

    def to_json(self) -> GameSummaryJson:
        return {
            "id": self.id,
            "game": self.game,
            "players": list(self.players),
            "started": self.started,
            "updated": self.updated,
            "phase": self.phase,
            "finished": self.is_finished,
            "winners": list(self.winners),
        }


@dataclass(frozen=True, slots=True)
class Progress:
    """A game's summary after an event: its phase and winners."""

    phase: str
    winners: Sequence[str] = ()


class EventLog:
    """The SQLite log. Thread-safe; every write is one durable transaction."""

    def __init__(
        self,
        path: str | Path,
        *,
        wall_clock: Any = time.time,
        sync: Literal["commit", "behind"] = "commit",
        fsync: Callable[[int], None] | None = None,
        reveal_wait_s: float = 0.02,
    ) -> None:
        self.reveal_wait_s = reveal_wait_s
        self.path = str(path)
        self._wall = wall_clock
        self._lock = threading.Lock()
        mode = "FULL" if sync == "commit" else "NORMAL"
        is_new = not os.path.exists(self.path)
        try:
            # the tables reach the disk before the log is used, whatever `sync` says: one
            # transaction, synced, then copied into the database file itself (a cut that
            # drops the WAL cannot leave a log with no table: check.py)
            self._db = open_db(
                self.path,
                [
                    "PRAGMA journal_mode=WAL",
                    "PRAGMA synchronous=FULL",
                    f"BEGIN IMMEDIATE; {SCHEMA} COMMIT;",
                    "PRAGMA wal_checkpoint(FULL)",
                    f"PRAGMA synchronous={mode}",
                ],
            )
            if is_new:
                fsync_dir(Path(self.path).parent)  # the new file's name, on the disk too
        except (sqlite3.DatabaseError, OSError) as exc:
            said = {"path": str(self.path), "why": str(exc)}
            raise StoreError(Words("the log {path} cannot be opened: {why}", said)) from exc
        self._wrote: int | None = None  # the seq the transaction under way wrote last
        self._last = self.last_seq()
        self.behind = (
            SyncBehind(self.path + "-wal", self._last, fsync=fsync) if sync == "behind" else None
        )

    @property
    def unsaved(self) -> int | None:
        """The first seq `append` returned before it was durable (behind.py), or None."""
        return None if self.behind is None else self.behind.unsaved

    @property
    def when_saved(self) -> list[Callable[[], None]]:
        """Told when `unsaved` changes (none with sync="commit": it never does)."""
        return [] if self.behind is None else self.behind.when_saved

    @property
    def durable_seq(self) -> int:
        """The last seq a power cut cannot take back (with sync="commit": the last one)."""
        return self._last if self.behind is None else self.behind.durable_seq

    def wait_durable(self, seq: int, timeout: float) -> bool:
        """Whether `seq` is durable within `timeout` s (sync="commit": it is)."""
        return self.behind is None or self.behind.wait_durable(seq, timeout)

    # -- writing ----------------------------------------------------------------------

    def new_game(self, game_line: Mapping[str, Any], progress: Progress) -> int:
        """Log the `game` line of a new game; returns its id (= its seq)."""
        return self.new_game_with(game_line, [], progress)[0]

    def new_game_with(
        self,
        game_line: Mapping[str, Any],
        events: Iterable[Mapping[str, Any]],
        progress: Progress,
    ) -> tuple[int, int]:
        """Log a whole game in one transaction (an import); returns (game id, last seq),
        as `append` does (durable, or unsaved)."""
        game_id, seq = self._new_game_with(game_line, events, progress)
        if self.behind is not None:
            self.behind.shown(seq, self.reveal_wait_s)
        return game_id, seq

    def _new_game_with(
        self,
        game_line: Mapping[str, Any],
        events: Iterable[Mapping[str, Any]],
        progress: Progress,
    ) -> tuple[int, int]:
        players = game_line.get("players", [])
        with self._write() as db:
            now = self._wall()
            cur = db.execute(
                "INSERT INTO events (game, at, body) VALUES (0, ?, ?)", (now, _dump(game_line))
            )
            game_id = _rowid(cur)
            db.execute("UPDATE events SET game = ? WHERE seq = ?", (game_id, game_id))
            seq = game_id
            for body in events:
                cur = db.execute(
                    "INSERT INTO events (game, at, body) VALUES (?, ?, ?)",
                    (game_id, now, _dump(body)),
                )
                seq = _rowid(cur)
            self._wrote = seq
            db.execute(
                "INSERT INTO games (id, kind, players, started, updated, phase, winners) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    str(game_line.get("game")),
                    _dump(list(players)),
                    now,
                    now,
                    progress.phase,
                    _dump(list(progress.winners)),
                ),
            )
        return game_id, seq

    def append(self, game_id: int, body: Mapping[str, Any], progress: Progress) -> int:
        """Log one accepted event of a game and its new summary; returns its seq once it
        is durable (sync="behind": or after `reveal_wait_s`, then `unsaved`)."""
        seq = self._append(game_id, body, progress)
        if self.behind is not None:
            self.behind.shown(seq, self.reveal_wait_s)
        return seq

    def _append(self, game_id: int, body: Mapping[str, Any], progress: Progress) -> int:
        with self._write() as db:
            now = self._wall()
            cur = db.execute(
                "INSERT INTO events (game, at, body) VALUES (?, ?, ?)", (game_id, now, _dump(body))
            )
            db.execute(
                "UPDATE games SET updated = ?, phase = ?, winners = ? WHERE id = ?",
                (now, progress.phase, _dump(list(progress.winners)), game_id),
            )
            self._wrote = _rowid(cur)
            return self._wrote

    def enrol(self, game_id: int, pad: str, seat: int) -> None:
        """Log that `pad` is `seat`'s in a game (a later enrolment of the pad wins)."""
        with self._write() as db:
            db.execute(
                "INSERT INTO enrolments (game, at, pad, seat) VALUES (?, ?, ?, ?)",
                (game_id, self._wall(), pad, seat),
            )

    def clear_enrolments(self, game_id: int) -> None:
        """Forget a game's enrolments: its pads are the pad map's again."""
        with self._write() as db:
            db.execute("DELETE FROM enrolments WHERE game = ?", (game_id,))

    # -- reading ----------------------------------------------------------------------

    def enrolments(self, game_id: int) -> dict[str, int]:
        """A game's enrolments: pad id -> seat (the latest of each pad)."""
        rows = self._read("SELECT pad, seat FROM enrolments WHERE game = ? ORDER BY id", (game_id,))
        return {str(pad): int(seat) for pad, seat in rows}

    def events(self, game_id: int) -> list[StoredEvent]:
        """Every event of one game, in the order accepted (the `game` line first)."""
        rows = self._read(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE game = ? ORDER BY seq", (game_id,)
        )
        return [stored_event(r, self.path) for r in rows]

    def last_game_id(self) -> int | None:
        rows = self._read("SELECT MAX(id) FROM games", ())
        value = rows[0][0]
        return None if value is None else int(value)

    def last_seq(self) -> int:
        rows = self._read("SELECT MAX(seq) FROM events", ())
        return int(rows[0][0] or 0)

    def game(self, game_id: int) -> GameSummary | None:
        rows = self._read(
            "SELECT id, kind, players, started, updated, phase, winners FROM games WHERE id = ?",
            (game_id,),
        )
        return _summary(rows[0]) if rows else None

    def games(self, limit: int = 200) -> list[GameSummary]:
        """The most recent games first."""
        rows = self._read(
            "SELECT id, kind, players, started, updated, phase, winners FROM games "
            "ORDER BY id DESC LIMIT ?",
            (limit,),
        )
        return [_summary(r) for r in rows]

    def close(self) -> None:
        if self.behind is not None:
            self.behind.close()  # what is committed, synced
        with self._lock:
            self._db.close()

    # -- plumbing ---------------------------------------------------------------------

    def _read(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return list(self._db.execute(sql, args).fetchall())
            except sqlite3.DatabaseError as exc:
                said = {"path": str(self.path), "why": str(exc)}
                raise StoreError(Words("the log {path} cannot be read: {why}", said)) from exc

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One transaction (BEGIN IMMEDIATE ... COMMIT) under the lock; StoreError on failure."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield self._db
                except BaseException:
                    self._wrote = None
                    self._rollback()
                    raise
                self._db.execute("COMMIT")
                wrote, self._wrote = self._wrote, None
                if wrote is not None:
                    self._last = wrote
                if self.behind is not None:
                    self.behind.committed(wrote)
            except sqlite3.DatabaseError as exc:
                self._wrote = None
                self._rollback()
                said = {"path": str(self.path), "why": str(exc)}
                words = Words("the log {path} cannot be written: {why}", said)
                raise StoreError(words, code="log-not-written") from exc

    def _rollback(self) -> None:
        with contextlib.suppress(sqlite3.DatabaseError):  # none may be open any more
            self._db.execute("ROLLBACK")


def stored_event(row: tuple[Any, ...], path: str = "the log") -> StoredEvent:
    """A row of `SELECT {EVENT_COLUMNS} FROM events` as a StoredEvent; StoreError naming
    the file and the row if its body is no JSON object."""
    try:
        body = json.loads(str(row[3]))
    except (ValueError, RecursionError) as exc:
        body = exc
    if not isinstance(body, dict):
        raise StoreError(
            f"{path}: the event seq {row[0]} (game {row[1]}) cannot be read: its body is not "
            f"a JSON object ({body}); `buzzerbox doctor --log` on its folder sets it aside"
        )
    return StoredEvent(int(row[0]), int(row[1]), float(row[2]), body)


def _dump(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _rowid(cur: sqlite3.Cursor) -> int:
    assert cur.lastrowid is not None
    return int(cur.lastrowid)


def _summary(row: tuple[Any, ...]) -> GameSummary:
    return GameSummary(
        id=int(row[0]),
        game=str(row[1]),
        players=list(json.loads(row[2])),
        started=float(row[3]),
        updated=float(row[4]),
        phase=str(row[5]),
        winners=list(json.loads(row[6])),
    )
