"""What the event's board (board.py) holds: each box's table, each player's record.

A `Table` is what the board knows of one box (its latest state, its event counts) and
gives the page's summary of it and the hub's record of it; a `Record` is a player's
line in the tournament.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
