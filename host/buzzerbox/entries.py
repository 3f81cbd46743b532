"""What a phone may post to the box, and what the box reads off a game for its log.

The rules (rules/) decide whether an entry is allowed in the game's state; this is
what the box itself refuses before that: event types that come from the box and the
pads, not from a phone (`go`, `press`, `release`). Variants and `first` are the
rules' to check (rules/events.py).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from buzzerbox.rules.engine import Engine
from buzzerbox.rules.errors import InvalidEventError
from buzzerbox.rules.events import TABLE_ENTRIES
from buzzerbox.rules.phase import Phase
from buzzerbox.store.log import Progress

#: table entries a phone may post; `go`, `press` and `release` come from the box and pads
TABLE_EVENTS = frozenset(
    {"round", *TABLE_ENTRIES, "undo"}  # caller, stall, counts, claim, void, amend, finish
)


def check_table_entry(obj: Mapping[str, Any]) -> None:
    """InvalidEventError unless `obj` is a table entry a phone may post."""
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in TABLE_EVENTS:
        raise InvalidEventError(
            f"event type {kind!r} cannot be posted: the table posts "
            f"{', '.join(sorted(TABLE_EVENTS))}; go, press and release come from the box"
        )


def draw_seat(players: object) -> int:
    """Twin It!: the seat that starts, drawn at random (rulebook 003: the table may pick)."""
    return random.randrange(len(players)) if isinstance(players, list) and players else 0


def idle_state() -> dict[str, Any]:
    """The state object before the box has seen any game."""
    return {
        "game": None,
        "title": None,
        "round": 0,
        "phase": Phase.IDLE,
        "players": [],
        "winners": [],
        "caller": None,
        "history": [],
        "undoable": None,
        "undo": None,
    }


def progress(engine: Engine) -> Progress:
    """What the log keeps beside a game's events: its phase and winners."""
    return Progress(engine.game.phase, tuple(engine.game.winners))


def last_t(engine: Engine) -> int:
    """The latest time in a game's events (box µs): the box timeline resumes after it."""
    game = engine.game
    return max(game.last_pad_t, game.go_t or 0, 0)
