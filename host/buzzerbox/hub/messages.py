"""What the hub keeps of the boxes' messages: typed, checked copies (validate.py makes them).

Each message the board folds is one of these frozen values, made once from the broker's
JSON by validate.py and never changed; the board reads their fields, not a dict's keys.
They leave the process only as JSON (`to_json`: the hub's record, hub.json, and the
page's photo finishes), field for field as the box sent them (buzzerbox.mqtt.derive),
cleaned. No I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypedDict


class TotalJson(TypedDict):
    name: str
    total: int | None


class PressJson(TypedDict):
    seat: int | None
    name: str
    pad: str | None
    lead_us: int | None


class LateJson(TypedDict):
    name: str
    lead_us: int | None


class StatsJson(TypedDict):
    fastest_us: int | None
    closest_us: int | None


class TableGameJson(TypedDict):
    game: str | None
    title: str | None
    round: int
    rounds: int | None
    target: int | None
    winners: list[str]
    caller: str | None
    players: list[TotalJson]
    first: str | None


class EnvelopeJson(TypedDict):
    id: str | None
    seq: int
    game_id: int | None
    at: float | None


class StateJson(EnvelopeJson):
    title: str | None
    phase: str
    leader: str
    finished: bool
    state: TableGameJson | None


class FinishJson(EnvelopeJson):
    key: str
    box: str
    title: str | None
    round: int | None
    first: str
    pad: str | None
    reaction_us: int | None
    lead_us: int | None
    close: bool
    presses: list[PressJson]
    late: list[LateJson]


class ResultJson(EnvelopeJson):
    finished: bool
    title: str | None
    high_wins: bool
    players: list[TotalJson]
    winners: list[str]
    stats: dict[str, StatsJson]


@dataclass(frozen=True, slots=True)
class Total:
    """A player's total at a table (None: the box did not say)."""

    name: str
    total: int | None

    def to_json(self) -> TotalJson:
        return {"name": self.name, "total": self.total}


@dataclass(frozen=True, slots=True)
class Envelope:
    """What every message of a box carries: its id, its seq (the box's order), its game
    and when the box sent it (Unix s)."""

    id: str | None
    seq: int
    game_id: int | None
    at: float | None


@dataclass(frozen=True, slots=True)
class TableGame:
    """The game a `state` message shows: the summary fields of the box's state."""

    game: str | None
    title: str | None
    round: int
    rounds: int | None
    target: int | None
    winners: tuple[str, ...]
    caller: str | None
    players: tuple[Total, ...]
    #: who was first in the race the state shows
    first: str | None

    def to_json(self) -> TableGameJson:
        return {
            "game": self.game,
            "title": self.title,
            "round": self.round,
            "rounds": self.rounds,
            "target": self.target,
            "winners": list(self.winners),
            "caller": self.caller,
            "players": [p.to_json() for p in self.players],
            "first": self.first,
        }


@dataclass(frozen=True, slots=True)
class StateMessage(Envelope):
    """A `state` message: the table's phase and leader, and its game (None: no game)."""

    title: str | None
    phase: str
    leader: str
    finished: bool
    state: TableGame | None

    def to_json(self) -> StateJson:
        return {
            "id": self.id,
            "seq": self.seq,
            "game_id": self.game_id,
            "at": self.at,
            "title": self.title,
            "phase": self.phase,
            "leader": self.leader,
            "finished": self.finished,
            "state": None if self.state is None else self.state.to_json(),
        }


@dataclass(frozen=True, slots=True)
class EventMessage(Envelope):
    """An `event` message: the seq of the box's event before it, and the event as sent
    (its depth checked; the hub passes it on, never reads it)."""

    prev: int | None
    event: Mapping[str, object]


@dataclass(frozen=True, slots=True)
class RacePress:
    """A press of a race: its seat, its player, its pad, how far behind the first."""

    seat: int | None
    name: str
    pad: str | None
    lead_us: int | None

    def to_json(self) -> PressJson:
        return {"seat": self.seat, "name": self.name, "pad": self.pad, "lead_us": self.lead_us}


@dataclass(frozen=True, slots=True)
class Late:
    """A press after the race was decided, and by how much."""

    name: str
    lead_us: int | None

    def to_json(self) -> LateJson:
        return {"name": self.name, "lead_us": self.lead_us}


@dataclass(frozen=True, slots=True)
class RaceMessage(Envelope):
    """A `race` message: who was first, by how much."""

    key: str
    title: str | None
    round: int | None
    first: str
    pad: str | None
    reaction_us: int | None
    #: the runner-up's lead
    lead_us: int | None
    #: too close to call (issue 41)
    close: bool
    presses: tuple[RacePress, ...]
    late: tuple[Late, ...]


@dataclass(frozen=True, slots=True)
class Finish:
    """A photo finish on the board: a table's race, under the key "<box>/<the box's key>"."""

    key: str
    box: str
    race: RaceMessage

    def when(self) -> tuple[float, int]:
        """Its place among the finishes: the box's time, then its seq."""
        return (self.race.at or 0.0, self.race.seq)

    def to_json(self) -> FinishJson:
        r = self.race
        return {
            "key": self.key,
            "box": self.box,
            "id": r.id,
            "seq": r.seq,
            "game_id": r.game_id,
            "at": r.at,
            "title": r.title,
            "round": r.round,
            "first": r.first,
            "pad": r.pad,
            "reaction_us": r.reaction_us,
            "lead_us": r.lead_us,
            "close": r.close,
            "presses": [p.to_json() for p in r.presses],
            "late": [p.to_json() for p in r.late],
        }


@dataclass(frozen=True, slots=True)
class Stats:
    """A player's best of a game: the fastest reaction and the closest win (µs)."""

    fastest_us: int | None
    closest_us: int | None

    def to_json(self) -> StatsJson:
        return {"fastest_us": self.fastest_us, "closest_us": self.closest_us}


@dataclass(frozen=True, slots=True)
class ResultMessage(Envelope):
    """A `games/<id>` message: a game's result, or (`finished` false) withdrawn."""

    finished: bool
    title: str | None
    #: whether the highest total wins (points count in the tournament only then)
    high_wins: bool
    players: tuple[Total, ...]
    winners: tuple[str, ...]
    stats: Mapping[str, Stats]

    def to_json(self) -> ResultJson:
        return {
            "id": self.id,
            "seq": self.seq,
            "game_id": self.game_id,
            "at": self.at,
            "finished": self.finished,
            "title": self.title,
            "high_wins": self.high_wins,
            "players": [p.to_json() for p in self.players],
            "winners": list(self.winners),
            "stats": {who: s.to_json() for who, s in self.stats.items()},
        }


#: what the board folds, from each kind of message but a status
Message = StateMessage | EventMessage | RaceMessage | ResultMessage
