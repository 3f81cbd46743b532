"""The events of the game log (version 1), as frozen dataclasses.

`parse_event` turns one JSON object of a game log into an event, checking only
its form (types and allowed values); whether the rules accept it now is the
game's business. `event_to_dict` is the inverse, for writing logs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from buzzerbox.rules.errors import InvalidEventError

GAMES: Final = ("ligretto", "twist", "kids", "twinit")
PADS: Final = ("stop", "slap", "pile")
CLAIM_RESULTS: Final = ("pair", "steal", "error", "split")
TABLE_ENTRIES: Final = ("stacks", "middle", "left", "claim", "caller", "stall", "finish")


@dataclass(frozen=True, slots=True)
class GameCreated:
    """`game`: the first line of a log."""

    game: str
    players: tuple[str, ...]
    target: int | None = None
    rounds: int | None = None


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """`round`: a new round; the countdown begins."""


@dataclass(frozen=True, slots=True)
class StartSignalled:
    """`go`: the start signal, at `t_us` on the host timeline."""

    t_us: int


@dataclass(frozen=True, slots=True)
class PadPressed:
    """`press`: a seat's pad made contact at `t_us`."""

    seat: int
    pad: str
    t_us: int
    pile: int | None = None


@dataclass(frozen=True, slots=True)
class PadReleased:
    """`release`: a seat's pad lost contact at `t_us`."""

    seat: int
    pad: str
    t_us: int
    pile: int | None = None


@dataclass(frozen=True, slots=True)
class CallerNamed:
    """`caller`: the table names who called stop when no pad registered it."""

    seat: int


@dataclass(frozen=True, slots=True)
class RoundStalled:
    """`stall`: the round ended with nobody able to play."""


@dataclass(frozen=True, slots=True)
class StacksEntered:
    """`stacks`: Ligretto scoring step 1, cards left in each Ligretto stack."""

    counts: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class MiddleEntered:
    """`middle`: Ligretto scoring step 2, each player's own cards in the middle."""

    counts: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CardsLeftEntered:
    """`left`: Twist and Kids, the cards each player has left."""

    counts: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ClaimSettled:
    """`claim`: Twin It!, the table settles the open claim."""

    result: str
    victim: str | None = None


@dataclass(frozen=True, slots=True)
class GameFinished:
    """`finish`: end the game now and score it."""


@dataclass(frozen=True, slots=True)
class EntryUndone:
    """`undo`: take back the last table entry."""


Event = (
    GameCreated
    | RoundStarted
    | StartSignalled
    | PadPressed
    | PadReleased
    | CallerNamed
    | RoundStalled
    | StacksEntered
    | MiddleEntered
    | CardsLeftEntered
    | ClaimSettled
    | GameFinished
    | EntryUndone
)


def _int(obj: Mapping[str, Any], key: str, what: str) -> int:
    if key not in obj:
        raise InvalidEventError(f"{obj.get('type')} needs {key!r}: {what}", subject=key)
    value = obj[key]
    if type(value) is not int or value < 0:
        raise InvalidEventError(f"{key} {value!r} is not allowed: {what}", subject=key)
    return value


def _counts(obj: Mapping[str, Any]) -> dict[str, int]:
    counts = obj.get("counts")
    if not isinstance(counts, dict):
        raise InvalidEventError(
            f"{obj['type']} needs 'counts': an object with a whole number for every player",
            subject="counts",
        )
    for name, n in counts.items():
        if type(n) is not int:
            raise InvalidEventError(
                f"{name}: {n!r} is not a number of cards: give a whole number", subject=str(name)
            )
    return dict(counts)


def _pad_fields(obj: Mapping[str, Any]) -> tuple[int, str, int, int | None]:
    seat = _int(obj, "seat", "a seat is a whole number from 0")
    pad = obj.get("pad")
    if pad not in PADS:
        raise InvalidEventError(
            f"pad {pad!r} is unknown: a pad is stop, slap or pile", subject="pad"
        )
    t_us = _int(obj, "t_us", "a time is whole µs on the host timeline, from 0")
    pile = None
    if pad == "pile":
        pile = _int(obj, "pile", "a pile press names its pile space, counted from 0")
    return seat, pad, t_us, pile


def _game(obj: Mapping[str, Any]) -> GameCreated:
    game = obj.get("game")
    if game not in GAMES:
        raise InvalidEventError(
            f"game {game!r} is unknown: the box plays {', '.join(GAMES)}", subject="game"
        )
    players = obj.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise InvalidEventError("players must be a list of names", subject="players")
    names = tuple(p.strip() for p in players)
    if any(not n for n in names):
        raise InvalidEventError("a player's name is empty: every player needs a name")
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise InvalidEventError(
            f"{', '.join(twice)} is named twice: names must be unique", subject="players"
        )
    target = obj.get("target")
    rounds = obj.get("rounds")
    if target is not None and type(target) is not int:
        raise InvalidEventError(
            f"target {target!r} is not a number: ligretto plays to 50, 99 or 150", subject="target"
        )
    if rounds is not None and (type(rounds) is not int or rounds < 1):
        raise InvalidEventError(
            f"rounds {rounds!r} is not allowed: give a whole number from 1", subject="rounds"
        )
    return GameCreated(game, names, target, rounds)


def _claim(obj: Mapping[str, Any]) -> ClaimSettled:
    result = obj.get("result")
    if result not in CLAIM_RESULTS:
        raise InvalidEventError(
            f"claim result {result!r} is unknown: it is pair, steal, error or split",
            subject="result",
        )
    victim = obj.get("victim")
    if result == "steal":
        if not isinstance(victim, str):
            raise InvalidEventError(
                "a steal names its victim: the player whose take is stolen", subject="victim"
            )
        return ClaimSettled(result, victim)
    return ClaimSettled(result)


def parse_event(obj: object) -> Event:
    """The event one line of a game log says, or InvalidEventError if it says none."""
    if not isinstance(obj, dict):
        raise InvalidEventError("a log line must be a JSON object with a 'type'")
    kind = obj.get("type")
    if kind == "press":
        return PadPressed(*_pad_fields(obj))
    if kind == "release":
        return PadReleased(*_pad_fields(obj))
    if kind == "go":
        return StartSignalled(_int(obj, "t_us", "a time is whole µs on the host timeline, from 0"))
    if kind == "round":
        return RoundStarted()
    if kind == "caller":
        return CallerNamed(_int(obj, "seat", "a seat is a whole number from 0"))
    if kind == "stall":
        return RoundStalled()
    if kind == "stacks":
        return StacksEntered(_counts(obj))
    if kind == "middle":
        return MiddleEntered(_counts(obj))
    if kind == "left":
        return CardsLeftEntered(_counts(obj))
    if kind == "claim":
        return _claim(obj)
    if kind == "finish":
        return GameFinished()
    if kind == "undo":
        return EntryUndone()
    if kind == "game":
        return _game(obj)
    raise InvalidEventError(
        f"event type {kind!r} is unknown: the log knows game, round, go, press, release, "
        "caller, stall, stacks, middle, left, claim, finish and undo"
    )


_TYPES: Final[dict[type, str]] = {
    GameCreated: "game",
    RoundStarted: "round",
    StartSignalled: "go",
    PadPressed: "press",
    PadReleased: "release",
    CallerNamed: "caller",
    RoundStalled: "stall",
    StacksEntered: "stacks",
    MiddleEntered: "middle",
    CardsLeftEntered: "left",
    ClaimSettled: "claim",
    GameFinished: "finish",
    EntryUndone: "undo",
}


def event_type(event: Event) -> str:
    """The `type` the game log gives this event."""
    return _TYPES[type(event)]


def event_to_dict(event: Event) -> dict[str, Any]:
    """The JSON object of the game log for this event (fields that are None left out)."""
    out: dict[str, Any] = {"type": event_type(event)}
    for name in getattr(event, "__slots__", ()):
        value = getattr(event, name)
        if value is None:
            continue
        if isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, Mapping):
            value = dict(value)
        out[name] = value
    return out
