"""The engine: a game plus undo. Events in, state out; no I/O, no clock.

    engine = Engine.from_dict({"type": "game", "game": "kids", "players": ["Ann", "Ben"]})
    engine.apply_dict({"type": "round"})        # raises BuzzerboxError if refused
    engine.state()                               # the state object of game-log.md

A refused event raises and changes nothing. `undo` takes back the last table
entry of the current round (or a `finish`) by restoring the copy of the game
taken just before it.
"""

from __future__ import annotations

from typing import Any

from buzzerbox.rules.base import Game
from buzzerbox.rules.errors import IllegalEventError, InvalidEventError
from buzzerbox.rules.events import (
    TABLE_ENTRIES,
    EntryUndone,
    Event,
    GameCreated,
    RoundStarted,
    event_type,
    parse_event,
)
from buzzerbox.rules.kids import Kids
from buzzerbox.rules.ligretto import Ligretto
from buzzerbox.rules.twinit import TwinIt
from buzzerbox.rules.twist import Twist

GAME_CLASSES: dict[str, type[Game]] = {
    "ligretto": Ligretto,
    "twist": Twist,
    "kids": Kids,
    "twinit": TwinIt,
}


class Engine:
    """A game in progress, with the copies that undo needs."""

    def __init__(self, created: GameCreated) -> None:
        self.created = created
        self.game: Game = GAME_CLASSES[created.game](created)
        self._undo: list[tuple[str, Game]] = []

    @classmethod
    def from_dict(cls, obj: object) -> Engine:
        """A new game from the first line of a log; InvalidEventError if it is no `game`."""
        if not isinstance(obj, dict) or obj.get("type") != "game":
            raise InvalidEventError("a game log starts with a 'game' line")
        event = parse_event(obj)
        assert isinstance(event, GameCreated)
        return cls(event)

    def apply_dict(self, obj: object) -> Event:
        """Parse and apply one log line's object; returns the event applied."""
        event = parse_event(obj)
        self.apply(event)
        return event

    def apply(self, event: Event) -> None:
        """Apply one event. A refused one raises BuzzerboxError and changes nothing."""
        if isinstance(event, GameCreated):
            raise IllegalEventError(
                f"a {self.game.title} game is already under way: a new game starts a new log"
            )
        if isinstance(event, EntryUndone):
            self.undo()
            return
        kind = event_type(event)
        if kind in TABLE_ENTRIES:
            before = self.game.snapshot()
            try:
                self.game.apply(event)
            except Exception:
                self.game = before
                raise
            self._undo.append((kind, before))
            return
        self.game.apply(event)
        if isinstance(event, RoundStarted):
            self._undo.clear()

    def undo(self) -> None:
        if not self._undo:
            game = self.game
            if game.round == 0:
                raise IllegalEventError("nothing to undo: no table entry has been made yet")
            raise IllegalEventError(
                f"nothing to undo in round {game.round}: only the table entries of the "
                "current round and a finish can be taken back"
            )
        _, self.game = self._undo.pop()

    @property
    def undoable(self) -> str | None:
        """The type of the entry `undo` would take back, if any."""
        return self._undo[-1][0] if self._undo else None

    def state(self) -> dict[str, Any]:
        """The state object of game-log.md (without `rejected`, which replay adds)."""
        state = self.game.to_json()
        state["undoable"] = self.undoable
        return state
