"""The box: the game in progress, and the parts it holds (README.md beside this file)."""

from buzzerbox.box.core import COUNTDOWN_US, Box
from buzzerbox.box.errors import GameNotFoundError, NoGameError, NotFinishedError
from buzzerbox.box.outcome import EdgeOutcome, Enrolled, Played, Refused
from buzzerbox.pads.pad import Pad

__all__ = [
    "COUNTDOWN_US",
    "Box",
    "EdgeOutcome",
    "Enrolled",
    "GameNotFoundError",
    "NoGameError",
    "NotFinishedError",
    "Pad",
    "Played",
    "Refused",
]
