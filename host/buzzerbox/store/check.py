"""The log's health: `buzzerbox doctor --log DIR`, also run by `buzzerbox serve` at start.

The events are the record; everything else in the log is derived from them and can
be rebuilt. The check reads every event and says, naming the file and the row:

- an event whose body is not a JSON object: it cannot be read back. Repaired by
  moving it to the table `damaged` (its text is kept there, nothing is deleted), so
  the game replays without it;
- a game whose `game` line is gone or unreadable: none of its events can be
  replayed. Repaired by moving them all to `damaged`;
- the list of games (the `games` table) missing, short, or not what the events say
  (its kind, players, phase, winners): rebuilt from the events.

A database with no table at all is what a power cut leaves of a box's very first start
(its tables were committed, not yet on the disk): it holds no event, so it is started
as a new log, and said. What it cannot repair (a file that is no SQLite database, a
damaged page, tables but no `events` table) it reports, and `serve` refuses to start
on it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from buzzerbox.errors import BuzzerboxError
from buzzerbox.rules.gamelog import fold
from buzzerbox.store.eventlog import SCHEMA, StoreError

DAMAGED = """CREATE TABLE IF NOT EXISTS damaged (
    seq INTEGER PRIMARY KEY, game INTEGER NOT NULL, at REAL NOT NULL,
    body TEXT NOT NULL, reason TEXT NOT NULL)"""


@dataclass
class Health:
    """What the check found: `problems` (each fixed if `repaired`), `fatal` if the log
    cannot be used at all."""

    path: str
    games: int = 0
    events: int = 0
    problems: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    fatal: str | None = None

    @property
    def is_healthy(self) -> bool:
        return self.fatal is None and not self.problems

    def lines(self) -> Iterator[str]:
        if self.fatal is not None:
            yield f"{self.path}: cannot be used: {self.fatal}"
            return
        yield f"{self.path}: {self.games} games, {self.events} events"
        yield from (f"  problem: {p}" for p in self.problems)
        yield from (f"  repaired: {r}" for r in self.repaired)
        if not self.problems:
            yield "  healthy"


def check_log(path: str | Path, *, repair: bool = True) -> Health:
    """Check the log at `path` (a missing file is a healthy empty log); repair what can be."""
    health = Health(str(path))
    if not Path(path).exists():
        return health
    try:
        db = sqlite3.connect(str(path), isolation_level=None)
    except sqlite3.DatabaseError as exc:
        health.fatal = str(exc)
        return health
    try:
        _check(db, health, repair)
    except sqlite3.DatabaseError as exc:
        health.fatal = f"{exc} (restore it from a copy, or move it away to start a new log)"
    finally:
        db.close()
    return health


def _check(db: sqlite3.Connection, health: Health, repair: bool) -> None:
    verdict = db.execute("PRAGMA quick_check").fetchone()[0]
    if verdict != "ok":
        health.fatal = f"SQLite finds it damaged ({verdict})"
        return
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        # what a power cut leaves of a first start whose schema never reached the disk: an
        # SQLite file (in WAL mode, say) with no table, so no event either: nothing to lose
        name = Path(health.path).name
        health.problems.append(
            f"{name}: it holds no table at all (the box's first start was cut before its"
            " tables reached the disk): it holds no event"
        )
        if repair:
            db.executescript(SCHEMA)
            health.repaired.append(f"{name}: started as a new, empty log")
        return
    if "events" not in tables:
        health.fatal = "it has no events table: it is not a buzzerbox log"
        return
    name = Path(health.path).name
    rows = db.execute("SELECT seq, game, at, body FROM events ORDER BY seq").fetchall()
    health.events = len(rows)
    games: dict[int, list[tuple[int, Any]]] = {}
    damaged: list[tuple[tuple[Any, ...], str]] = []
    for row in rows:
        seq, game = int(row[0]), int(row[1])
        body = _object(row[3])
        if isinstance(body, str):
            health.problems.append(f"{name} row seq {seq} (game {game}): {body}")
            damaged.append((row, body))
            continue
        games.setdefault(game, []).append((seq, body))
    for game, events in list(games.items()):
        if events[0][0] != game or events[0][1].get("type") != "game":
            reason = f"game {game} has lost its game line: its events cannot be replayed"
            health.problems.append(f"{name} game {game}: {reason}")
            damaged += [(_row(db, seq), reason) for seq, _ in events]
            del games[game]
    summaries = {}
    for game, events in games.items():
        try:
            summaries[game] = _summary(events)
        except BuzzerboxError as exc:
            health.problems.append(f"{name} game {game}: its game line is refused: {exc}")
            damaged += [(_row(db, seq), str(exc)) for seq, _ in events]
    health.games = len(summaries)
    stale = _stale_games(db, tables, summaries, name, health)
    if repair and (damaged or stale):
        _repair(db, damaged, summaries)
        health.repaired.append(
            f"moved {len(damaged)} unreadable events to the table damaged; "
            f"the list of games rebuilt from the events ({len(summaries)} games)"
        )


def _object(raw: object) -> dict[str, Any] | str:
    """The body as an object, or why it is none."""
    try:
        body = json.loads(str(raw))
    except (ValueError, RecursionError) as exc:
        return f"the event's body is not JSON ({exc})"
    return body if isinstance(body, dict) else "the event's body is not a JSON object"


def _row(db: sqlite3.Connection, seq: int) -> tuple[Any, ...]:
    return tuple(
        db.execute("SELECT seq, game, at, body FROM events WHERE seq = ?", (seq,)).fetchone()
    )


def _summary(events: list[tuple[int, Any]]) -> tuple[str, str, str, str]:
    engine, _, _ = fold(events)
    line = events[0][1]
    return (
        str(line.get("game")),
        json.dumps(list(line.get("players", [])), ensure_ascii=False, separators=(",", ":")),
        str(engine.game.phase),
        json.dumps(list(engine.game.winners), ensure_ascii=False, separators=(",", ":")),
    )


def _stale_games(
    db: sqlite3.Connection,
    tables: set[str],
    summaries: dict[int, tuple[str, str, str, str]],
    name: str,
    health: Health,
) -> bool:
    """Whether the list of games differs from what the events say (and say how)."""
    if "games" not in tables:
        health.problems.append(f"{name}: the list of games (table games) is missing")
        return True
    listed = {
        int(r[0]): (str(r[1]), str(r[2]), str(r[3]), str(r[4]))
        for r in db.execute("SELECT id, kind, players, phase, winners FROM games")
    }
    missing = sorted(set(summaries) - set(listed))
    extra = sorted(set(listed) - set(summaries))
    wrong = sorted(g for g in set(summaries) & set(listed) if listed[g] != summaries[g])
    for what, ids in (
        ("not listed", missing),
        ("listed without events", extra),
        ("listed wrong", wrong),
    ):
        if ids:
            health.problems.append(f"{name}: games {', '.join(map(str, ids))} are {what}")
    return bool(missing or extra or wrong)


def _repair(
    db: sqlite3.Connection,
    damaged: list[tuple[tuple[Any, ...], str]],
    summaries: dict[int, tuple[str, str, str, str]],
) -> None:
    """In one transaction: the damaged events moved aside, the games table rebuilt."""
    db.executescript(SCHEMA + DAMAGED + ";")  # the tables, if they are gone
    db.execute("BEGIN IMMEDIATE")
    try:
        for (seq, game, at, body), reason in damaged:
            db.execute(
                "INSERT OR REPLACE INTO damaged (seq, game, at, body, reason) "
                "VALUES (?, ?, ?, ?, ?)",
                (seq, game, at, str(body), reason),
            )
            db.execute("DELETE FROM events WHERE seq = ?", (seq,))
        times = dict(
            (int(g), (float(lo), float(hi)))
            for g, lo, hi in db.execute("SELECT game, MIN(at), MAX(at) FROM events GROUP BY game")
        )
        db.execute("DELETE FROM games")
        for game, (kind, players, phase, winners) in summaries.items():
            started, updated = times.get(game, (0.0, 0.0))
            db.execute(
                "INSERT INTO games (id, kind, players, started, updated, phase, winners) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game, kind, players, started, updated, phase, winners),
            )
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def ensure_healthy(path: str | Path) -> Health:
    """`serve`'s check at start: repaired where it can be; StoreError if it cannot be used."""
    health = check_log(path)
    if health.fatal is not None:
        raise StoreError(next(health.lines()))
    return health
