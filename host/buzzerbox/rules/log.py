"""Replaying a game log (version 1.1, game-log.md): lines in, the engine (and its state
object) out.

The one replay path: `buzzerbox replay`, an imported file and the box's own SQLite
log (buzzerbox.store.replay) all fold their lines through `fold`. Pure: it takes the
lines, the caller reads the file or the database.

A line is numbered (its 1-based line in a file, or its `seq` in the box's log). A
line the rules refuse, or one that cannot be read (not UTF-8, not JSON), is listed
in `rejected` with its number and reason, and changes nothing; a log whose first
line is no valid `game` raises InvalidEventError.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from buzzerbox.errors import BuzzerboxError
from buzzerbox.rules.engine import Engine
from buzzerbox.rules.errors import InvalidEventError

#: a log line: its number and its object (an `Unreadable` when it could not be read)
Line = tuple[int, Any]

_decode = json.JSONDecoder().raw_decode


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A line that is no JSON text: why."""

    reason: str


_BLANK = Unreadable("a blank line")  # skipped, never listed


def _load(raw: str | bytes) -> object:
    """One line's JSON value (the whole line: trailing text is refused)."""
    try:
        line = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        return Unreadable("this line is not UTF-8 text")
    line = line.strip(" \t\n\r")  # the whitespace JSON allows around a value
    if not line or (line[0].isspace() and not line.strip()):
        return _BLANK
    try:
        obj, end = _decode(line)
        if end != len(line):
            raise ValueError(f"extra text after the JSON value at column {end + 1}")
    except ValueError as exc:
        return Unreadable(f"this line is not JSON ({exc.args[0]})")
    except RecursionError:
        return Unreadable("this line nests too deep to read: a log line is flat")
    try:
        if isinstance(raw, str):
            line.encode("utf-8")  # a str may hold a raw lone surrogate; decoded bytes cannot
        if "\\u" in line:  # only a \u escape in the JSON text can make one
            json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return Unreadable("this line holds a lone surrogate (such as \\ud800): not Unicode text")
    return obj


def read_lines(lines: Iterable[str | bytes]) -> list[Line]:
    """The non-blank lines of a JSON Lines text, numbered and parsed; a line that cannot
    be read is kept as `Unreadable`, for `fold` to refuse."""
    read = ((number, _load(raw)) for number, raw in enumerate(lines, start=1))
    return [(number, obj) for number, obj in read if obj is not _BLANK]


def fold(lines: Iterable[Line]) -> tuple[Engine, list[Any], list[dict[str, Any]]]:
    """The engine after every line, the objects it accepted, and the lines it refused.
    The first line must be a valid `game` line (InvalidEventError if not)."""
    engine: Engine | None = None
    accepted: list[Any] = []
    rejected: list[dict[str, Any]] = []
    for number, obj in lines:
        if engine is None:
            reason = obj.reason if isinstance(obj, Unreadable) else None
            try:
                if reason is not None:
                    raise InvalidEventError(reason)
                engine = Engine.from_dict(obj)
            except InvalidEventError as exc:
                raise InvalidEventError(f"line {number}: {exc}") from None
            continue
        if isinstance(obj, Unreadable):
            rejected.append({"line": number, "reason": obj.reason})
            continue
        try:
            engine.apply_dict(obj)
        except BuzzerboxError as exc:
            rejected.append({"line": number, "reason": str(exc)})
            continue
        accepted.append(obj)
    if engine is None:
        raise InvalidEventError("the log is empty: a game log starts with a 'game' line")
    return engine, accepted, rejected


def replay(lines: Iterable[str | bytes]) -> tuple[Engine, list[dict[str, Any]]]:
    """The engine after every line of a JSON Lines text, and the lines it rejected."""
    engine, _, rejected = fold(read_lines(lines))
    return engine, rejected


def replay_state(lines: Iterable[str | bytes]) -> dict[str, Any]:
    """The state object `buzzerbox replay` prints."""
    engine, rejected = replay(lines)
    state = engine.state()
    state["rejected"] = rejected
    state["rejected_count"] = len(rejected)  # as the box's state has it (it lists 20 at most)
    return state
