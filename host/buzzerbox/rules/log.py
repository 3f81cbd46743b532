"""Replaying a game log (version 1.1, game-log.md): lines of text in, the state object out.

Pure: it takes the lines, the caller reads the file. A line the rules refuse is
listed in `rejected` with its 1-based line number and reason, and changes
nothing; a log whose first line is no valid `game` raises InvalidEventError.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from buzzerbox.rules.engine import Engine
from buzzerbox.rules.errors import BuzzerboxError, InvalidEventError

_decode = json.JSONDecoder().raw_decode


def _load(line: str) -> object:
    """One stripped line's JSON value (the whole line: trailing text is refused)."""
    try:
        value, end = _decode(line)
        if end != len(line):
            raise ValueError(f"extra text after the JSON value at column {end + 1}")
        return value
    except ValueError as exc:
        raise InvalidEventError(f"this line is not JSON ({exc.args[0]})") from None
    except RecursionError:
        raise InvalidEventError("this line nests too deep to read: a log line is flat") from None


def replay(lines: Iterable[str | bytes]) -> tuple[Engine, list[dict[str, Any]]]:
    """The engine after every line, and the lines it rejected."""
    engine: Engine | None = None
    rejected: list[dict[str, Any]] = []
    for number, raw in enumerate(lines, start=1):
        try:
            line = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        except UnicodeDecodeError:
            if engine is None:
                raise InvalidEventError(f"line {number} is not UTF-8 text") from None
            rejected.append({"line": number, "reason": "this line is not UTF-8 text"})
            continue
        line = line.strip(" \t\n\r")  # the whitespace JSON allows around a value
        if not line or (line[0].isspace() and not line.strip()):
            continue  # a blank line
        if engine is None:
            try:
                engine = Engine.from_dict(_load(line))
            except InvalidEventError as exc:
                raise InvalidEventError(f"line {number}: {exc}") from None
            continue
        try:
            engine.apply_dict(_load(line))
        except BuzzerboxError as exc:
            rejected.append({"line": number, "reason": str(exc)})
    if engine is None:
        raise InvalidEventError("the log is empty: a game log starts with a 'game' line")
    return engine, rejected


def replay_state(lines: Iterable[str | bytes]) -> dict[str, Any]:
    """The state object `buzzerbox replay` prints."""
    engine, rejected = replay(lines)
    state = engine.state()
    state["rejected"] = rejected
    return state
