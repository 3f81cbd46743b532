"""The rules engine: pure, events in, state out (see README.md)."""

from buzzerbox.rules.engine import GAME_CLASSES, Engine
from buzzerbox.rules.errors import IllegalEventError, InvalidEventError
from buzzerbox.rules.eventjson import event_to_dict, parse_event
from buzzerbox.rules.events import Event, event_type
from buzzerbox.rules.gamelog import replay, replay_state
from buzzerbox.rules.phase import BETWEEN_ROUNDS, IN_ROUND, Phase

__all__ = [
    "BETWEEN_ROUNDS",
    "GAME_CLASSES",
    "IN_ROUND",
    "Engine",
    "Event",
    "IllegalEventError",
    "InvalidEventError",
    "Phase",
    "event_to_dict",
    "event_type",
    "parse_event",
    "replay",
    "replay_state",
]
