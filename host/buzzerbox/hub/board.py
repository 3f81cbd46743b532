"""The event's board: every table, the tournament, the latest photo finishes.

A fold over the messages the boxes publish (see buzzerbox.mqtt.topics). Each kind
is idempotent, so what QoS 1 delivers twice, or a box sends again after a restart,
changes nothing:

- `state` replaces a table's state unless it is older (a lower seq) than the one held;
- `event` is counted once per (box, seq): a seq at or below the last seen is a
  duplicate; an event whose `prev` is not the last seen shows a gap;
- `race` replaces the photo finish with the same key (the page lists the latest by
  the time the box logged them, so a box catching up does not push others out);
- `games/<id>` sets or (finished: false) withdraws a game's result.

The tournament is computed from the finished games and the races: per player name
(a player is the same person at every table), the games played, the wins, the
points (the final totals of the games where the highest total wins; Ligretto Kids
counts wins only), the fastest reaction (the quickest first press after a start
signal) and the closest win (the smallest lead over the runner-up).

`apply` returns the updates for the live page: ("table", summary), ("race", finish),
("tournament", rows). No I/O; thread-safe.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from buzzerbox.mqtt.topics import ONLINE, parse_topic

Update = tuple[str, Any]
#: photo finishes kept for the page
FINISHES = 12


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

    def summary(self) -> dict[str, Any]:
        msg = self.state or {}
        state = msg.get("state") or {}
        race = state.get("race") or []
        return {
            "box": self.box,
            "online": self.online,
            "game_id": msg.get("game_id"),
            "seq": msg.get("seq"),
            "at": msg.get("at"),
            "game": state.get("game"),
            "title": state.get("title"),
            "round": state.get("round", 0),
            "rounds": state.get("rounds"),
            "target": state.get("target"),
            "phase": msg.get("phase", "idle"),
            "leader": msg.get("leader", ""),
            "winners": list(state.get("winners", [])),
            "caller": state.get("caller"),
            "players": [
                {"name": p.get("name"), "total": p.get("total")} for p in state.get("players", [])
            ],
            "first": race[0].get("name") if race else None,
            "events": self.events,
            "duplicates": self.duplicates,
            "gaps": self.gaps,
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


class Board:
    """Every table of the event, folded from the broker's messages."""

    def __init__(self, finishes: int = FINISHES) -> None:
        self.max_finishes = finishes
        self.dropped = 0
        #: called with (box, event message) for each event accepted, once, in order
        self.when_event: list[Callable[[str, dict[str, Any]], None]] = []
        self._lock = threading.Lock()
        self._tables: dict[str, Table] = {}
        self._results: dict[tuple[str, int], dict[str, Any]] = {}
        self._finishes: dict[str, dict[str, Any]] = {}
        self._records: dict[str, Record] = {}
        #: per player, the fastest reaction and the closest win seen in races
        self._from_races: dict[str, tuple[int | None, int | None]] = {}

    # -- folding ------------------------------------------------------------------------

    def apply(self, topic: str, payload: bytes) -> list[Update]:
        """Fold one message; the updates for the page (none if it changed nothing)."""
        parsed = parse_topic(topic)
        if parsed is None:
            return []
        with self._lock:
            table = self._tables.get(parsed.box)
            if table is None:
                table = self._tables[parsed.box] = Table(parsed.box)
            if parsed.kind == "status":
                online = payload.decode(errors="replace") == ONLINE
                if online == table.online:
                    return []
                table.online = online
                return [("table", table.summary())]
            if parsed.kind == "ha":
                return []
            data = self._json(payload)
            if data is None:
                return []
            if parsed.kind == "state":
                return self._state(table, data)
            if parsed.kind == "event":
                self._event(table, data)
                return []
            if parsed.kind == "race":
                return self._race(table, data)
            return self._game(table, data)

    def _json(self, payload: bytes) -> dict[str, Any] | None:
        try:
            data = json.loads(payload)
        except ValueError:
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("seq"), int):
            self.dropped += 1
            return None
        return data

    def _state(self, table: Table, data: dict[str, Any]) -> list[Update]:
        if data["seq"] <= table.state_seq:
            return []
        if not _well_formed(data.get("state")):
            self.dropped += 1
            return []
        table.state, table.state_seq = data, data["seq"]
        if table.online is None:
            table.online = True
        return [("table", table.summary())]

    def _event(self, table: Table, data: dict[str, Any]) -> None:
        seq = data["seq"]
        if table.last_event is not None and seq <= table.last_event:
            table.duplicates += 1
            return
        prev = data.get("prev")
        if table.last_event is not None and prev is not None and prev != table.last_event:
            table.gaps += 1
        table.last_event = seq
        table.events += 1
        for listener in list(self.when_event):
            listener(table.box, data)

    def _race(self, table: Table, data: dict[str, Any]) -> list[Update]:
        key = f"{table.box}/{data.get('key')}"
        held = self._finishes.get(key)
        if held is not None and held["seq"] >= data["seq"]:
            return []
        finish = {
            "key": key,
            "box": table.box,
            **{k: data.get(k) for k in ("id", "seq", "at", "title", "round", "first", "pad")},
            **{k: data.get(k) for k in ("reaction_us", "margin_us", "presses", "late")},
        }
        self._finishes[key] = finish
        if len(self._finishes) > self.max_finishes:  # the oldest race goes, by the box's time
            oldest = min(self._finishes.values(), key=_when)
            del self._finishes[oldest["key"]]
        updates: list[Update] = [("race", finish)]
        first = data.get("first")
        if isinstance(first, str):
            fastest, closest = self._from_races.get(first, (None, None))
            fastest = _least(fastest, data.get("reaction_us"))
            closest = _least(closest, data.get("margin_us"))
            self._from_races[first] = (fastest, closest)
            record = self._record(first)
            best = (_least(record.fastest_us, fastest), _least(record.closest_us, closest))
            if best != (record.fastest_us, record.closest_us):
                record.fastest_us, record.closest_us = best
                updates.append(("tournament", self._tournament()))
        return updates

    def _game(self, table: Table, data: dict[str, Any]) -> list[Update]:
        game_id = data.get("game_id")
        if not isinstance(game_id, int) or not _well_formed_result(data):
            self.dropped += 1
            return []
        key = (table.box, game_id)
        held = self._results.get(key)
        if held is not None and held["seq"] >= data["seq"]:
            return []
        if not data.get("finished") and held is None:
            return []
        if data.get("finished"):
            self._results[key] = data
        else:
            del self._results[key]
        if held is None:
            self._add_result(table.box, data)
        else:  # a result taken back or replaced: count every game again (rare)
            self._recount()
        return [("tournament", self._tournament())]

    # -- the tournament -----------------------------------------------------------------

    def _record(self, name: str) -> Record:
        record = self._records.get(name)
        if record is None:
            record = self._records[name] = Record(name)
        return record

    def _add_result(self, box: str, result: dict[str, Any]) -> None:
        winners = set(result["winners"])
        for player in result["players"]:
            record = self._record(str(player.get("name")))
            record.tables.add(box)
            record.games += 1
            record.wins += player.get("name") in winners
            if result.get("high_wins", True) and isinstance(player.get("total"), int):
                record.points += player["total"]
        for name, stats in result["stats"].items():
            record = self._record(name)
            record.fastest_us = _least(record.fastest_us, stats.get("fastest_us"))
            record.closest_us = _least(record.closest_us, stats.get("closest_us"))

    def _recount(self) -> None:
        self._records = {}
        for (box, _), result in self._results.items():
            self._add_result(box, result)
        for name, (fastest, closest) in self._from_races.items():
            record = self._record(name)
            record.fastest_us = _least(record.fastest_us, fastest)
            record.closest_us = _least(record.closest_us, closest)

    def _tournament(self) -> list[dict[str, Any]]:
        inf = float("inf")
        ranked = sorted(
            self._records.values(),
            key=lambda r: (-r.wins, -r.points, r.fastest_us or inf, r.name),
        )
        return [r.to_json() for r in ranked]

    # -- reading ------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """Everything the page shows, at once."""
        with self._lock:
            return {
                "tables": [self._tables[b].summary() for b in sorted(self._tables)],
                "tournament": self._tournament(),
                "finishes": sorted(self._finishes.values(), key=_when, reverse=True),
                "dropped": self.dropped,
            }

    def table(self, box: str) -> dict[str, Any] | None:
        with self._lock:
            table = self._tables.get(box)
            return None if table is None else table.summary()


def _when(finish: dict[str, Any]) -> tuple[float, int]:
    at = finish.get("at")
    return (at if isinstance(at, int | float) else 0.0, finish["seq"])


def _well_formed(state: Any) -> bool:
    """A state object the summary can read: None, or a dict whose lists hold dicts."""
    if state is None:
        return True
    if not isinstance(state, dict):
        return False
    for key in ("players", "race"):
        items = state.get(key, [])
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            return False
    return isinstance(state.get("winners", []), list)


def _well_formed_result(result: dict[str, Any]) -> bool:
    players, stats = result.get("players"), result.get("stats")
    return (
        isinstance(players, list)
        and all(isinstance(p, dict) for p in players)
        and isinstance(result.get("winners"), list)
        and isinstance(stats, dict)
        and all(isinstance(s, dict) for s in stats.values())
    )


def _least(a: int | None, b: Any) -> int | None:
    if not isinstance(b, int):
        return a
    return b if a is None else min(a, b)
