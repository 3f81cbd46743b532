"""The box's errors: no game, an import it refuses, a phone's seat it refuses.

All under the one root (buzzerbox/errors.py). The rules' own refusals of an event
(rules/errors.py) pass through the box as they are; these are the box's.
"""

from __future__ import annotations

from buzzerbox.errors import BuzzerboxError, InputError, Words

#: a rematch asked before any game
NO_REMATCH = Words("no game has been played: a rematch repeats one")


class NoGameError(BuzzerboxError, LookupError):
    """There is no game yet."""


class GameNotFoundError(NoGameError):
    """No game with that id is in the log."""


class NotFinishedError(BuzzerboxError, ValueError):
    """The game is not finished, and what was asked needs a finished game."""


class ImportRefusedError(InputError):
    """An import that is too big, or mostly refused: nothing was changed."""


class PhoneSeatError(BuzzerboxError, ValueError):
    """A phone's seat (phones as pads) is refused."""


class PhoneSeatInvalidError(PhoneSeatError):
    """The request is malformed: a seat that does not exist, on/off that is no boolean."""


class PhoneSeatRefusedError(PhoneSeatError):
    """Well formed, but refused now: phones are off, the seat is taken, the phone has none."""


class PhoneTokenError(PhoneSeatInvalidError, InputError):
    """A phone sent no usable token: answered with 400."""


class SeatsFileError(BuzzerboxError, ValueError):
    """The phone seats file is not one the box wrote: `words` say why."""

    def __init__(self, words: Words) -> None:
        super().__init__(words.english())
        self.words = words


__all__ = [
    "NO_REMATCH",
    "GameNotFoundError",
    "ImportRefusedError",
    "NoGameError",
    "NotFinishedError",
    "PhoneSeatError",
    "PhoneSeatInvalidError",
    "PhoneSeatRefusedError",
    "PhoneTokenError",
]
