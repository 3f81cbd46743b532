"""The hub's errors, under the one root (buzzerbox/errors.py)."""

from __future__ import annotations

from buzzerbox.errors import BuzzerboxError, Words


class InvalidMessageError(BuzzerboxError, ValueError):
    """A message the hub drops; the text is the reason (a short label)."""


class NotRemovableError(BuzzerboxError, ValueError):
    """The admin asked to remove a table that is not there or is online; says why."""

    def __init__(self, status: int, message: str | Words, code: str = "not-on-the-board") -> None:
        super().__init__(message, code=code)
        self.status = status


def no_table(box: str) -> Words:
    return Words("there is no table {box} on the board (any more)", {"box": box})


def no_result(box: str, game_id: int) -> Words:
    return Words("there is no result of game {game} of table {box}", {"game": game_id, "box": box})
