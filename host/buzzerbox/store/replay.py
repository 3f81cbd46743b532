"""Loading a game back from its events: the log's, or an imported file's.

The one place the store meets the rules: it folds stored event objects through a
rules `Engine`. A line the rules refuse is listed in `rejected` (line number and
reason, as `buzzerbox replay` prints them) and changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from buzzerbox.rules.engine import Engine
from buzzerbox.rules.errors import BuzzerboxError, InvalidEventError

#: a log line: its number (1-based line of a file, or `seq` in the box's log) and object
Line = tuple[int, Any]


def load_lines(text: str) -> list[Line]:
    """The non-blank lines of a JSON Lines text, parsed; a line that is not JSON is kept
    as its text, for the rules to refuse. InvalidEventError if the first is no object."""
    lines: list[Line] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            lines.append((number, json.loads(raw)))
        except ValueError as exc:
            if not lines:
                raise InvalidEventError(f"line {number} is not JSON ({exc.args[0]})") from None
            lines.append((number, raw))
    if not lines:
        raise InvalidEventError("the log is empty: a game log starts with a 'game' line")
    return lines


def replay_stored(lines: Sequence[Line]) -> tuple[Engine, list[Any], list[dict[str, Any]]]:
    """The engine after every line, the objects it accepted, and the lines it refused."""
    number, first = lines[0]
    try:
        engine = Engine.from_dict(first)
    except InvalidEventError as exc:
        raise InvalidEventError(f"line {number}: {exc}") from None
    accepted: list[Any] = []
    rejected: list[dict[str, Any]] = []
    for number, obj in lines[1:]:
        if isinstance(obj, str):
            rejected.append({"line": number, "reason": "this line is not JSON"})
            continue
        try:
            engine.apply_dict(obj)
        except BuzzerboxError as exc:
            rejected.append({"line": number, "reason": str(exc)})
            continue
        accepted.append(obj)
    return engine, accepted, rejected
