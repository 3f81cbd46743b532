"""A game log's JSON objects and its events (events.py): `parse_event` turns one JSON
object of a game log into an event, checking only its form (types and allowed values);
whether the rules accept it now is the game's business. `event_to_dict` is the inverse,
for writing logs. `parse_edge` checks a pad edge handed in apart as a log line's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from buzzerbox.errors import Words
from buzzerbox.rules.errors import InvalidEventError
from buzzerbox.rules.events import (
    CLAIM_RESULTS,
    GAMES,
    PADS,
    CallerNamed,
    CardsLeftEntered,
    ClaimSettled,
    EntryUndone,
    Event,
    GameCreated,
    GameFinished,
    MiddleEntered,
    PadPressed,
    PadReleased,
    PressVoided,
    RoundAmended,
    RoundStalled,
    RoundStarted,
    StacksEntered,
    StartSignalled,
    event_type,
)
from buzzerbox.rules.names import clean_counts, clean_name, player_names, variant_names

SEAT: Final = Words("a seat is a whole number from 0")
TIME: Final = Words("a time is whole µs on the host timeline, from 0")
MAX_WHOLE: Final = 2**53 - 1  # the largest whole number a phone's JSON reads exactly


def _int(obj: Mapping[str, Any], key: str, what: Words) -> int:
    said = {"type": obj.get("type"), "key": key, "what": what}
    if key not in obj:
        words = Words("{type} needs {key!r}: {what}", said)
        raise InvalidEventError(words, subject=key, code="field-missing")
    value = obj[key]
    if type(value) is not int or value < 0:
        words = Words("{key} {value!r} is not allowed: {what}", {**said, "value": value})
        raise InvalidEventError(words, subject=key, code="field-not-allowed")
    if value > MAX_WHOLE:  # issue 39: a go at 10^4000 - 1 set the box's clock for good
        said = {"key": key, "most": MAX_WHOLE, "digits": len(str(value))}
        words = Words("{key} has {digits} digits: at most {most}, what a phone reads exactly", said)
        raise InvalidEventError(words, subject=key, code="field-not-allowed")
    return value


def _counts(obj: Mapping[str, Any], key: str = "counts") -> dict[str, int]:
    counts = obj.get(key)
    if not isinstance(counts, dict):
        said = {"type": obj["type"], "key": key}
        words = Words("{type} needs {key!r}: an object with a whole number for every player", said)
        raise InvalidEventError(words, subject=key, code="field-missing")
    for name, n in counts.items():
        if type(n) is not int:
            said = {"name": name, "n": n}
            words = Words("{name}: {n!r} is not a number of cards: give a whole number", said)
            raise InvalidEventError(words, subject=name, code="not-a-count")
    return clean_counts(counts)


ERROR: Final = Words("a timing error is whole µs, from 0")


def _pad_fields(obj: Mapping[str, Any]) -> tuple[int, str, int, int | None, int | None]:
    seat = _int(obj, "seat", SEAT)
    pad = obj.get("pad")
    if pad not in PADS:
        words = Words("pad {pad!r} is unknown: a pad is stop, slap or pile", {"pad": pad})
        raise InvalidEventError(words, subject="pad", code="unknown-pad")
    t_us = _int(obj, "t_us", TIME)
    pile = None
    if pad == "pile":
        pile = _int(obj, "pile", Words("a pile press names its pile space, counted from 0"))
    error_us = _int(obj, "error_us", ERROR) if obj.get("error_us") is not None else None
    return seat, pad, t_us, pile, error_us


def _game(obj: Mapping[str, Any]) -> GameCreated:
    game = obj.get("game")
    if game not in GAMES:
        said = {"game": game, "games": ", ".join(GAMES)}
        words = Words("game {game!r} is unknown: the box plays {games}", said)
        raise InvalidEventError(words, subject="game", code="unknown-game")
    names = player_names(obj.get("players"))
    target = obj.get("target")
    rounds = obj.get("rounds")
    if target is not None and type(target) is not int:
        said = {"target": target}
        words = (
            Words("target {target!r} is not a whole number: ligretto plays to 50, 99 or 150", said)
            if isinstance(target, float)
            else Words("target {target!r} is not a number: ligretto plays to 50, 99 or 150", said)
        )
        raise InvalidEventError(words, subject="target", code="target-not-offered")
    if rounds is not None and (type(rounds) is not int or rounds < 1):
        words = Words(
            "rounds {rounds!r} is not allowed: give a whole number from 1",
            {"rounds": rounds},
        )
        raise InvalidEventError(words, subject="rounds", code="rounds-not-allowed")
    first = obj.get("first")
    if first is not None:
        if game != "twinit":
            words = Words("first is the seat that starts Twin It!: other games take no 'first'")
            raise InvalidEventError(words, subject="first", code="no-first")
        if type(first) is not int or not 0 <= first < len(names):
            said = {"first": first, "last": len(names) - 1}
            words = Words("first {first!r} is not a seat of this game: give 0-{last}", said)
            raise InvalidEventError(words, subject="first", code="no-seat")
    return GameCreated(game, names, target, rounds, variant_names(obj.get("variants")), first)


def _claim(obj: Mapping[str, Any]) -> ClaimSettled:
    result = obj.get("result")
    if result not in CLAIM_RESULTS:
        said = {"result": result}
        words = Words("claim result {result!r} is unknown: it is pair, steal, error or split", said)
        raise InvalidEventError(words, subject="result", code="unknown-result")
    victim = obj.get("victim")
    if result == "steal":
        if not isinstance(victim, str):
            words = Words("a steal names its victim: the player whose take is stolen")
            raise InvalidEventError(words, subject="victim", code="no-victim")
        return ClaimSettled(result, clean_name(victim))
    return ClaimSettled(result)


def _amend(obj: Mapping[str, Any]) -> RoundAmended:
    number = _int(obj, "round", Words("amend names a scored round by its number, from 1"))
    given = {key: _counts(obj, key) for key in ("stacks", "middle", "left") if key in obj}
    if not given or number < 1:
        words = Words(
            "amend names a scored round (from 1) and its corrected counts: "
            "stacks and/or middle for ligretto, left for twist and kids"
        )
        raise InvalidEventError(words, subject="round" if given else "counts", code="bad-amend")
    return RoundAmended(number, given.get("stacks"), given.get("middle"), given.get("left"))


class _EdgeDraft:
    """A pad edge while it is made: the layout of PadPressed and PadReleased, unfrozen.

    Replay makes one of them for most lines. A frozen dataclass sets each field through
    object.__setattr__, which costs about three times what the whole event costs made
    this way: the fields set here, then the object's class becomes the event's (the
    layouts are the same, so Python allows it). tests/rules checks the two ways agree.
    """

    __slots__ = ("seat", "pad", "t_us", "pile", "error_us")  # noqa: RUF023 (the layout)
    seat: int
    pad: str
    t_us: int
    pile: int | None
    error_us: int | None


def _edge(cls: type[PadPressed] | type[PadReleased]) -> Callable[[Mapping[str, Any]], Event]:
    """The parser of a pad edge: a fast path for a well-formed one, else the checks."""
    assert cls.__slots__ == _EdgeDraft.__slots__
    new = object.__new__

    def parse(obj: Mapping[str, Any]) -> Event:
        try:
            seat, pad, t_us = obj["seat"], obj["pad"], obj["t_us"]
        except KeyError:
            return cls(*_pad_fields(obj))
        if (
            type(seat) is int
            and type(t_us) is int
            and seat >= 0
            and t_us >= 0
            and obj.get("error_us") is None
        ):
            pile = None
            if pad == "pile":
                pile = obj.get("pile")
                if type(pile) is not int or pile < 0:
                    return cls(*_pad_fields(obj))
            elif pad != "stop" and pad != "slap":
                return cls(*_pad_fields(obj))
            event = new(_EdgeDraft)
            event.seat, event.pad, event.t_us, event.pile = seat, pad, t_us, pile
            event.error_us = None
            event.__class__ = cls  # type: ignore[assignment]
            return event  # type: ignore[return-value]
        return cls(*_pad_fields(obj))

    return parse


#: each `type`'s parser of a log line's object (parse_event picks one and says a refusal)
PARSERS: Final[Mapping[object, Callable[[Mapping[str, Any]], Event]]] = {
    "press": _edge(PadPressed),
    "release": _edge(PadReleased),
    "go": lambda obj: StartSignalled(_int(obj, "t_us", TIME)),
    "round": lambda obj: RoundStarted(),
    "caller": lambda obj: CallerNamed(_int(obj, "seat", SEAT)),
    "stall": lambda obj: RoundStalled(),
    "stacks": lambda obj: StacksEntered(_counts(obj)),
    "middle": lambda obj: MiddleEntered(_counts(obj)),
    "left": lambda obj: CardsLeftEntered(_counts(obj)),
    "claim": _claim,
    "void": lambda obj: PressVoided(_int(obj, "seat", SEAT), _int(obj, "t_us", TIME)),
    "amend": _amend,
    "finish": lambda obj: GameFinished(),
    "undo": lambda obj: EntryUndone(),
    "game": _game,
}


def parse_edge(
    pressed: bool,
    seat: object,
    pad: object,
    t_us: object,
    pile: object = None,
    error_us: int | None = None,
) -> PadPressed | PadReleased:
    """A pad edge handed in apart (a page's seat, pad and pile, and its time, give or take
    `error_us` as the box measured it), checked as a log line's `press` or `release` is:
    InvalidEventError says what is wrong."""
    obj: dict[str, object] = {"type": "press" if pressed else "release"}
    obj |= {"seat": seat, "pad": pad, "t_us": t_us}
    if pile is not None:
        obj["pile"] = pile
    if error_us:
        obj["error_us"] = error_us
    event = PARSERS[obj["type"]](obj)
    assert isinstance(event, PadPressed | PadReleased)
    return event


def parse_event(obj: object) -> Event:
    """The event one line of a game log says, or InvalidEventError if it says none."""
    if not isinstance(obj, dict):
        words = Words("a log line must be a JSON object with a 'type'")
        raise InvalidEventError(words, code="not-an-event")
    kind = obj.get("type")
    try:
        parser = PARSERS[kind]
    except (KeyError, TypeError):
        words = Words(
            "event type {kind!r} is unknown: the log knows game, round, go, press, release, "
            "caller, stall, stacks, middle, left, claim, void, amend, finish and undo",
            {"kind": kind},
        )
        raise InvalidEventError(words, subject="type", code="unknown-type") from None
    return parser(obj)


def event_to_dict(event: Event) -> dict[str, Any]:
    """The JSON object of the game log for this event (fields that are None or empty
    left out, so a version 1 line is written back as it was)."""
    out: dict[str, Any] = {"type": event_type(event)}
    for name in getattr(event, "__slots__", ()):
        value = getattr(event, name)
        if value is None or value == ():
            continue
        if isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, Mapping):
            value = dict(value)
        out[name] = value
    return out
