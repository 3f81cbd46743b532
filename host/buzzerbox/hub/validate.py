"""What the hub takes from the broker: every message checked, bounded and copied.

Anyone on the venue's network may publish under `buzzerbox/`, so nothing from the
broker is trusted: a message is read only if it is small (`MAX_PAYLOAD`), valid
UTF-8 JSON without NaN or a lone surrogate, and every field the board uses has the
type and size it should. The board keeps only the typed copy these functions
return (messages.py: the fields it shows, nothing else), so what reaches a page is
always JSON a browser can read. A message that fails raises `InvalidMessageError` with
the reason it is dropped (counted per reason on the board). No I/O.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, TypedDict

from buzzerbox.hub.errors import InvalidMessageError
from buzzerbox.hub.messages import (
    EventMessage,
    Late,
    Message,
    RaceMessage,
    RacePress,
    ResultMessage,
    StateMessage,
    Stats,
    TableGame,
    Total,
)

#: the largest message the hub reads (a state of a 12-player game is about 6 KiB)
MAX_PAYLOAD = 64 * 1024
MAX_NAME = 64
MAX_TEXT = 200
MAX_PLAYERS = 32
MAX_PRESSES = 32
MAX_INT = 2**53


def parse(payload: bytes) -> Mapping[str, object]:
    """The JSON object of a message, with an int `seq`; InvalidMessageError otherwise."""
    if len(payload) > MAX_PAYLOAD:
        raise InvalidMessageError("too large")
    try:
        text: str | bytes = payload.decode("utf-8")  # strict: no lone surrogate from bytes
    except UnicodeDecodeError:
        text = payload  # json's own detection (UTF-16, surrogates passed): every string read
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise InvalidMessageError("not JSON") from None
    if not isinstance(data, dict):
        raise InvalidMessageError("not an object")
    if isinstance(text, bytes) or "\\u" in text:  # a \u escape may make a lone surrogate
        _check_text(data, 0)
    seq = data.get("seq")
    if not isinstance(seq, int) or not _is_int(seq) or seq < 0:
        raise InvalidMessageError("bad seq")
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _check_text(value: Any, depth: int) -> None:
    """Every string (keys too) encodes as UTF-8: no lone surrogate ("\\ud800")."""
    if depth > 12:
        raise InvalidMessageError("too deep")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidMessageError("bad text") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(key, depth)
            _check_text(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_text(item, depth + 1)


def _check_depth(value: Mapping[str, object] | list[object], depth: int) -> None:
    """No container nests deeper than `_check_text` allows: for what the hub keeps as
    sent (an event); the rest of a message is read field by field, whatever its depth."""
    for item in value.values() if isinstance(value, dict) else value:
        if depth >= 12:  # an item at 13
            raise InvalidMessageError("too deep")
        if isinstance(item, dict | list):
            _check_depth(item, depth + 1)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) < MAX_INT


def integer(value: Any, what: str, *, optional: bool = True) -> int | None:
    if value is None and optional:
        return None
    if not _is_int(value):
        raise InvalidMessageError(f"bad {what}")
    return int(value)


def number(value: Any, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidMessageError(f"bad {what}")
    return float(value)


def text(value: Any, what: str, *, limit: int = MAX_TEXT, optional: bool = True) -> str | None:
    """A string of at most `limit` characters, without a control or format character
    (the box's own rule, rules/names.py: U+202E would show "ecilA" as "Alice")."""
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise InvalidMessageError(f"bad {what}")
    if not (value.isascii() and value.isprintable()) and any(
        unicodedata.category(ch) in ("Cc", "Cf") for ch in value
    ):  # control and format characters, refused as the box's names refuse them
        raise InvalidMessageError("hidden character")
    return value


def name(value: Any) -> str:
    out = text(value, "name", limit=MAX_NAME, optional=False)
    assert out is not None
    if not out:
        raise InvalidMessageError("bad name")
    return out


def items(value: Any, what: str, limit: int) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > limit:
        raise InvalidMessageError(f"bad {what}")
    return value


def objects(value: Any, what: str, limit: int) -> list[Mapping[str, object]]:
    out = items(value, what, limit)
    if not all(isinstance(i, dict) for i in out):
        raise InvalidMessageError(f"bad {what}")
    return out


class _EnvelopeFields(TypedDict):
    id: str | None
    seq: int
    game_id: int | None
    at: float | None


def _envelope(data: Mapping[str, object]) -> _EnvelopeFields:
    """The fields of `Envelope`, checked (for the message's constructor)."""
    seq = integer(data.get("seq"), "seq", optional=False)
    assert seq is not None
    return {
        "id": text(data.get("id"), "id"),
        "seq": seq,
        "game_id": integer(data.get("game_id"), "game_id"),
        "at": number(data.get("at"), "at"),
    }


def _totals(value: object) -> tuple[Total, ...]:
    return tuple(
        Total(name(p.get("name")), integer(p.get("total"), "total"))
        for p in objects(value, "players", MAX_PLAYERS)
    )


def _names(value: object, what: str) -> tuple[str, ...]:
    return tuple(name(w) for w in items(value, what, MAX_PLAYERS))


def state_message(data: Mapping[str, object]) -> StateMessage:
    """A `state` message: the envelope, the summary fields and the game's state."""
    state = data.get("state")
    if state is not None and not isinstance(state, dict):
        raise InvalidMessageError("bad state")
    game: TableGame | None = None
    if state is not None:
        race = objects(state.get("race"), "race", MAX_PRESSES)
        game = TableGame(
            game=text(state.get("game"), "game", limit=32),
            title=text(state.get("title"), "title"),
            round=integer(state.get("round"), "round") or 0,
            rounds=integer(state.get("rounds"), "rounds"),
            target=integer(state.get("target"), "target"),
            winners=_names(state.get("winners"), "winners"),
            caller=text(state.get("caller"), "caller", limit=MAX_NAME),
            players=_totals(state.get("players")),
            first=name(race[0].get("name")) if race else None,
        )
    return StateMessage(
        **_envelope(data),
        title=text(data.get("title"), "title"),
        phase=text(data.get("phase"), "phase", limit=32) or "idle",
        leader=text(data.get("leader"), "leader", limit=MAX_TEXT * 4) or "",
        finished=bool(data.get("finished") is True),
        state=game,
    )


def event_message(data: Mapping[str, object]) -> EventMessage:
    """An `event` message: the envelope, `prev` and the event object (kept as sent)."""
    event = data.get("event")
    if not isinstance(event, dict):
        raise InvalidMessageError("bad event")
    _check_depth(event, 1)
    return EventMessage(**_envelope(data), prev=integer(data.get("prev"), "prev"), event=event)


def _press(p: Mapping[str, object]) -> RacePress:
    return RacePress(
        seat=integer(p.get("seat"), "seat"),
        name=name(p.get("name")),
        pad=text(p.get("pad"), "pad", limit=32),
        lead_us=integer(p.get("lead_us"), "lead_us"),
    )


def race_message(data: Mapping[str, object]) -> RaceMessage:
    """A `race` message: who was first, by how much."""
    envelope = _envelope(data)
    key = text(data.get("key"), "key", limit=MAX_TEXT, optional=False)
    assert key is not None
    return RaceMessage(
        **envelope,
        key=key,
        title=text(data.get("title"), "title"),
        round=integer(data.get("round"), "round"),
        first=name(data.get("first")),
        pad=text(data.get("pad"), "pad", limit=32),
        reaction_us=integer(data.get("reaction_us"), "reaction_us"),
        # the runner-up's lead; `margin_us` is its name before issue 37 (a box not updated)
        lead_us=integer(data.get("lead_us", data.get("margin_us")), "lead_us"),
        # too close to call (issue 41): true, or left out (a box before it)
        close=data.get("close") is True,
        presses=tuple(_press(p) for p in objects(data.get("presses"), "presses", MAX_PRESSES)),
        late=tuple(
            Late(name(p.get("name")), integer(p.get("lead_us"), "lead_us"))
            for p in objects(data.get("late"), "late", MAX_PRESSES)
        ),
    )


def result_message(data: Mapping[str, object]) -> ResultMessage:
    """A `games/<id>` message: a game's result (or `finished: false`, withdrawn)."""
    if integer(data.get("game_id"), "game_id") is None:
        raise InvalidMessageError("bad game_id")
    stats = {} if data.get("stats") is None else data["stats"]
    if not isinstance(stats, dict) or len(stats) > MAX_PLAYERS:
        raise InvalidMessageError("bad stats")
    clean_stats = {}
    for who, s in stats.items():
        if not isinstance(s, dict):
            raise InvalidMessageError("bad stats")
        clean_stats[name(who)] = Stats(
            fastest_us=integer(s.get("fastest_us"), "fastest_us"),
            closest_us=integer(s.get("closest_us"), "closest_us"),
        )
    return ResultMessage(
        **_envelope(data),
        finished=data.get("finished") is True,
        title=text(data.get("title"), "title"),
        high_wins=data.get("high_wins") is not False,
        players=_totals(data.get("players")),
        winners=_names(data.get("winners"), "winners"),
        stats=clean_stats,
    )


#: the check of each kind of message the board folds (a status is not JSON: apply's own)
BY_KIND: dict[str, Callable[[Mapping[str, object]], Message]] = {
    "state": state_message,
    "event": event_message,
    "race": race_message,
    "games": result_message,
}


def message(kind: str, payload: bytes) -> Message:
    """A message of a kind the board folds (`BY_KIND`), checked and copied."""
    return BY_KIND[kind](parse(payload))
