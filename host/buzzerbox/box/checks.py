"""What the box refuses before the rules see it: a phone's entry, an imported log.

The rules (rules/) decide whether an entry is allowed in the game's state; this is
what the box itself refuses before that: event types that come from the box and the
pads, not from a phone (`go`, `press`, `release`). Variants and `first` are the
rules' to check (rules/events.py). An imported log is refused whole when it is too big
or mostly refused by the rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from buzzerbox.box.errors import ImportRefusedError
from buzzerbox.errors import Words
from buzzerbox.rules.errors import InvalidEventError
from buzzerbox.rules.eventjson import parse_event
from buzzerbox.rules.events import TABLE_ENTRIES, Event
from buzzerbox.rules.gamelog import Rejected

#: an imported game log: at most this many characters and lines
MAX_IMPORT_CHARS = 2 * 1024 * 1024
MAX_IMPORT_LINES = 50_000
#: the refused lines the state carries (the rest are counted)
REJECTED_SHOWN = 20


def check_import_size(text: str) -> None:
    """ImportRefusedError if the file is bigger than a game log can be."""
    if len(text) > MAX_IMPORT_CHARS:
        said = {"n": len(text), "most": MAX_IMPORT_CHARS}
        raise ImportRefusedError(
            Words(
                "the file has {n:,} characters: a game log is at most {most:,} "
                "(nothing was imported)",
                said,
            ),
            code="import-too-big",
        )
    lines = text.count("\n") + 1
    if lines > MAX_IMPORT_LINES:
        said = {"n": lines, "most": MAX_IMPORT_LINES}
        raise ImportRefusedError(
            Words(
                "the file has {n:,} lines: a game log is at most {most:,} (nothing was imported)",
                said,
            ),
            code="import-too-big",
        )


def check_mostly_accepted(accepted: int, rejected: list[Rejected]) -> None:
    """ImportRefusedError if more lines were refused than accepted (and more than a few):
    the file is not this kind of game's log, and replaces nothing."""
    if len(rejected) > max(accepted, REJECTED_SHOWN // 2):
        first = rejected[0]
        said: dict[str, object] = {"n": len(rejected), "of": len(rejected) + accepted}
        said |= {"line": first.line, "why": first.reason}
        raise ImportRefusedError(
            Words(
                "{n:,} of {of:,} lines are refused by the rules (line {line}: {why}): "
                "is it a game log? (nothing was imported)",
                said,
            ),
            code="import-refused",
        )


def shown_rejected(rejected: list[Rejected]) -> list[Rejected]:
    return rejected[:REJECTED_SHOWN]


#: table entries a phone may post; `go`, `press` and `release` come from the box and pads
TABLE_EVENTS = frozenset(
    {"round", *TABLE_ENTRIES, "undo"}  # caller, stall, counts, claim, void, amend, finish
)


def table_entry(obj: Mapping[str, Any]) -> Event:
    """The table entry a phone posted (a JSON object), parsed once: InvalidEventError
    unless it is one a phone may post and well formed."""
    check_table_entry(obj.get("type"))
    return parse_event(dict(obj))


def check_table_entry(kind: object) -> None:
    """InvalidEventError unless `kind` (an event's type) is a table entry a phone may post."""
    if not isinstance(kind, str) or kind not in TABLE_EVENTS:
        said = {"kind": kind, "kinds": ", ".join(sorted(TABLE_EVENTS))}
        raise InvalidEventError(
            Words(
                "event type {kind!r} cannot be posted: the table posts {kinds}; "
                "go, press and release come from the box",
                said,
            ),
            subject="type",
            code="not-a-table-entry",
        )
