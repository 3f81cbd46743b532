"""What the event's leaderboard (leaderboard.py) holds: each box's table, each player's record.

A `Table` is what the board knows of one box (its latest state, its event counts) and
gives the page's summary of it and the hub's record of it; a `Record` is a player's
line in the tournament, `ranked` orders them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypedDict

from buzzerbox.hub import validate
from buzzerbox.hub.messages import (
    Finish,
    FinishJson,
    ResultJson,
    ResultMessage,
    StateJson,
    StateMessage,
    TotalJson,
)


class TableSummary(TypedDict):
    """A table on the page (an update "table", a row of the snapshot's "tables")."""

    box: str
    online: bool | None
    game_id: int | None
    seq: int | None
    at: float | None
    game: str | None
    title: str | None
    round: int
    rounds: int | None
    target: int | None
    phase: str
    leader: str
    winners: list[str]
    caller: str | None
    players: list[TotalJson]
    first: str | None
    events: int
    duplicates: int
    gaps: int
    seen: float


class TableRecord(TypedDict):
    """A table in the hub's record (hub.json)."""

    online: bool | None
    state: StateJson | None
    last_event: int | None
    events: int
    seen: float


class TournamentRow(TypedDict):
    name: str
    tables: list[str]
    games: int
    wins: int
    points: int
    fastest_us: int | None
    closest_us: int | None


@dataclass
class Table:
    """What the board holds of one box."""

    box: str
    online: bool | None = None
    state: StateMessage | None = None
    state_seq: int = -1
    last_event: int | None = None
    events: int = 0
    duplicates: int = 0
    gaps: int = 0
    seen: float = 0.0

    def summary(self) -> TableSummary:
        msg = self.state
        game = None if msg is None else msg.state
        return {
            "box": self.box,
            "online": self.online,
            "game_id": None if msg is None else msg.game_id,
            "seq": None if msg is None else msg.seq,
            "at": None if msg is None else msg.at,
            "game": None if game is None else game.game,
            "title": None if game is None else game.title,
            "round": 0 if game is None else game.round,
            "rounds": None if game is None else game.rounds,
            "target": None if game is None else game.target,
            "phase": "idle" if msg is None else msg.phase,
            "leader": "" if msg is None else msg.leader,
            "winners": [] if game is None else list(game.winners),
            "caller": None if game is None else game.caller,
            "players": [] if game is None else [p.to_json() for p in game.players],
            "first": None if game is None else game.first,
            "events": self.events,
            "duplicates": self.duplicates,
            "gaps": self.gaps,
            "seen": self.seen,
        }

    def record(self) -> TableRecord:
        return {
            "online": self.online,
            "state": None if self.state is None else self.state.to_json(),
            "last_event": self.last_event,
            "events": self.events,
            "seen": self.seen,
        }


@dataclass
class Record:
    """A player's line in the tournament."""

    name: str
    tables: set[str] = field(default_factory=set)
    games: int = 0
    wins: int = 0
    points: int = 0
    fastest_us: int | None = None
    closest_us: int | None = None

    def to_json(self) -> TournamentRow:
        return {
            "name": self.name,
            "tables": sorted(self.tables),
            "games": self.games,
            "wins": self.wins,
            "points": self.points,
            "fastest_us": self.fastest_us,
            "closest_us": self.closest_us,
        }


def ranked(records: Iterable[Record], rows: int) -> list[TournamentRow]:
    """The tournament's first `rows` lines: most wins, then points, then the fastest."""
    inf = float("inf")
    order = sorted(records, key=lambda r: (-r.wins, -r.points, r.fastest_us or inf, r.name))
    return [r.to_json() for r in order[:rows]]


def least(a: int | None, b: int | None) -> int | None:
    """The smaller of two times, either of which may be unknown (None)."""
    if b is None:
        return a
    return b if a is None else min(a, b)


class BoardView(TypedDict):
    """Everything the page shows at once (Leaderboard.snapshot(), /api/board)."""

    tables: list[TableSummary]
    tournament: list[TournamentRow]
    finishes: list[FinishJson]
    dropped: int
    dropped_by: dict[str, int]
    refused: int
    signed: bool
    #: the link's status (mqtt/connect.py `BrokerLinkStatus.to_json`), passed through
    broker: dict[str, object]


class BoardRecord(TypedDict):
    """The hub's record as JSON (hub.json): what `SavedBoard` holds."""

    v: int
    tables: dict[str, TableRecord]
    results: list[tuple[str, int, ResultJson]]
    finishes: list[FinishJson]
    races: dict[str, list[int | None]]
    gone: dict[str, int]
    struck: list[tuple[str, int, int]]


class SavedBoard(NamedTuple):
    """What the hub keeps over a restart of itself or of the broker: its tables, the
    finished games' results, the photo finishes, each player's best in races, the tables
    gone and the results struck (each up to a seq)."""

    tables: dict[str, Table]
    results: dict[tuple[str, int], ResultMessage]
    finishes: dict[str, Finish]
    races: dict[str, tuple[int | None, int | None]]
    gone: dict[str, int]
    struck: dict[tuple[str, int], int]

    def to_json(self) -> BoardRecord:
        return {
            "v": 1,
            "tables": {b: t.record() for b, t in self.tables.items()},
            "results": [(b, g, r.to_json()) for (b, g), r in self.results.items()],
            "finishes": [f.to_json() for f in self.finishes.values()],
            "races": {n: list(v) for n, v in self.races.items()},
            "gone": dict(self.gone),
            "struck": [(b, g, s) for (b, g), s in self.struck.items()],
        }


def parse_record(saved: Mapping[str, Any]) -> SavedBoard:
    """A hub's record (`SavedBoard.to_json()`, read back from JSON), each part checked by
    validate.py; raises InvalidMessageError (or KeyError, TypeError) if it is not one."""
    tables: dict[str, Table] = {}
    for box, t in dict(saved["tables"]).items():
        state = validate.state_message(t["state"]) if t.get("state") else None
        tables[box] = Table(
            box,
            online=t.get("online") if isinstance(t.get("online"), bool) else None,
            state=state,
            state_seq=state.seq if state else -1,
            last_event=validate.integer(t.get("last_event"), "last_event"),
            events=validate.integer(t.get("events"), "events") or 0,
            seen=validate.number(t.get("seen"), "seen") or 0.0,
        )
    results = {
        (validate.name(b), int(g)): validate.result_message(r) for b, g, r in saved["results"]
    }
    finishes = {}
    for f in saved["finishes"]:
        race = validate.race_message(f)
        finishes[race.key] = Finish(race.key, validate.name(f["box"]), race)
    races = {
        validate.name(n): (validate.integer(a, "fastest"), validate.integer(c, "closest"))
        for n, (a, c) in dict(saved["races"]).items()
    }
    gone = {
        validate.name(b): validate.integer(seq, "gone", optional=False) or 0
        for b, seq in dict(saved.get("gone") or {}).items()
    }
    struck = {
        (validate.name(b), int(g)): validate.integer(s, "struck", optional=False) or 0
        for b, g, s in saved.get("struck") or []
    }
    return SavedBoard(tables, results, finishes, races, gone, struck)
