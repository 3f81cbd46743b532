"""What the event's leaderboard (leaderboard.py) holds: each box's table, each player's record.

A `Table` is what the board knows of one box (its latest state, its event counts) and
gives the page's summary of it and the hub's record of it; a `Record` is a player's
line in the tournament, `ranked` orders them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from buzzerbox.hub import validate


@dataclass
class Table:
    """What the board holds of one box."""

    box: str
    online: bool | None = None
    state: dict[str, Any] | None = None
    state_seq: int = -1
    last_event: int | None = None
    events: int = 0
    duplicates: int = 0
    gaps: int = 0
    seen: float = 0.0

    def summary(self) -> dict[str, Any]:
        msg = self.state or {}
        game = msg.get("state") or {}
        return {
            "box": self.box,
            "online": self.online,
            "game_id": msg.get("game_id"),
            "seq": msg.get("seq"),
            "at": msg.get("at"),
            "game": game.get("game"),
            "title": game.get("title"),
            "round": game.get("round", 0),
            "rounds": game.get("rounds"),
            "target": game.get("target"),
            "phase": msg.get("phase", "idle"),
            "leader": msg.get("leader", ""),
            "winners": list(game.get("winners", [])),
            "caller": game.get("caller"),
            "players": [dict(p) for p in game.get("players", [])],
            "first": game.get("first"),
            "events": self.events,
            "duplicates": self.duplicates,
            "gaps": self.gaps,
            "seen": self.seen,
        }

    def record(self) -> dict[str, Any]:
        return {
            "online": self.online,
            "state": self.state,
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

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "tables": sorted(self.tables),
            "games": self.games,
            "wins": self.wins,
            "points": self.points,
            "fastest_us": self.fastest_us,
            "closest_us": self.closest_us,
        }


def ranked(records: Iterable[Record], rows: int) -> list[dict[str, Any]]:
    """The tournament's first `rows` lines: most wins, then points, then the fastest."""
    inf = float("inf")
    order = sorted(records, key=lambda r: (-r.wins, -r.points, r.fastest_us or inf, r.name))
    return [r.to_json() for r in order[:rows]]


def least(a: int | None, b: int | None) -> int | None:
    """The smaller of two times, either of which may be unknown (None)."""
    if b is None:
        return a
    return b if a is None else min(a, b)


def parse_record(saved: dict[str, Any]) -> tuple[Any, ...]:
    """The parts of a hub's record (Leaderboard.record()), each checked by validate.py:
    (tables, results, finishes, races, gone, struck); raises InvalidMessageError (or KeyError,
    TypeError) if it is not one."""
    tables: dict[str, Table] = {}
    for box, t in dict(saved["tables"]).items():
        state = validate.state_message(t["state"]) if t.get("state") else None
        tables[box] = Table(
            box,
            online=t.get("online") if isinstance(t.get("online"), bool) else None,
            state=state,
            state_seq=state["seq"] if state else -1,
            last_event=validate.integer(t.get("last_event"), "last_event"),
            events=validate.integer(t.get("events"), "events") or 0,
            seen=validate.number(t.get("seen"), "seen") or 0.0,
        )
    results = {
        (validate.name(b), int(g)): validate.result_message(r) for b, g, r in saved["results"]
    }
    finishes = {}
    for f in saved["finishes"]:
        clean = validate.race_message({**f, "key": f["key"]})
        finishes[f["key"]] = {
            "key": f["key"],
            "box": validate.name(f["box"]),
            **{k: v for k, v in clean.items() if k != "key"},
        }
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
    return tables, results, finishes, races, gone, struck
