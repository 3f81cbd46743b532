"""The hub's errors, under the one root (buzzerbox/errors.py)."""

from __future__ import annotations

from buzzerbox.errors import BuzzerboxError


class Invalid(BuzzerboxError, ValueError):
    """A message the hub drops; the text is the reason (a short label)."""


class NotRemovable(BuzzerboxError, ValueError):
    """The admin asked to remove a table that is not there or is online; says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
