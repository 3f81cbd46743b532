"""What the box reads off a game: the state before any game, what the log keeps beside
its events, the latest time in them; and the seat it draws to start Twin It!."""

from __future__ import annotations

import random

from buzzerbox.rules.engine import Engine
from buzzerbox.rules.phase import Phase
from buzzerbox.rules.statejson import StateJson
from buzzerbox.store.eventlog import Progress


def draw_seat(players: object) -> int:
    """Twin It!: the seat that starts, drawn at random (rulebook 003: the table may pick)."""
    return random.randrange(len(players)) if isinstance(players, list) and players else 0


def idle_state() -> StateJson:
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
