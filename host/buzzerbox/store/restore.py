"""Loading a game back from its events: the log's, or an imported file's.

The one place the store meets the rules. It has no replay of its own: it hands the
lines to the rules' one replay path (buzzerbox.rules.gamelog), numbered by their `seq` in
the box's log or by their line in an imported file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from buzzerbox.rules.engine import Engine
from buzzerbox.rules.gamelog import Line, Rejected, fold, read_lines
from buzzerbox.store.eventlog import StoredEvent

__all__ = ["Line", "load_lines", "replay_events", "replay_stored"]


def load_lines(text: str) -> list[Line]:
    """The non-blank lines of a JSON Lines text (an imported file), numbered and parsed."""
    return read_lines(text.splitlines())


def replay_stored(lines: Sequence[Line]) -> tuple[Engine, list[Any], list[Rejected]]:
    """The engine after every line, the objects it accepted, and the lines it refused."""
    return fold(lines)


def replay_events(events: Sequence[StoredEvent]) -> tuple[Engine, list[Rejected]]:
    """A game from the log (its `game` line first): the engine, and the events refused."""
    engine, _, rejected = fold((e.seq, e.body) for e in events)
    return engine, rejected
