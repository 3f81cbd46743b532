"""The box's web errors (a phone's press time), and which HTTP status each error
gets (the JSON and the handlers are the server's, server/refusals.py).

A malformed event or request is 400, one the rules forbid now is 409 (a phone's seat
refused now too), a game that is not in the log 404, an export of an unfinished game
409, a body over its endpoint's size 413 (server/limits.py), too many presses 429, a
log that cannot be written 503. Nothing a phone sends is answered with a 500.
"""

from __future__ import annotations

from flask import Flask

from buzzerbox.box.errors import (
    GameNotFoundError,
    NoGameError,
    NotFinishedError,
    PhoneSeatRefusedError,
)
from buzzerbox.errors import BuzzerboxError, InputError, StoreError, Words
from buzzerbox.rules.errors import IllegalEventError
from buzzerbox.server.errors import TooLargeError
from buzzerbox.server.refusals import register_refusals


class PhoneTimeError(InputError):
    """A press's times are not numbers of the kind the box takes: answered with 400."""


class TooFastError(InputError):
    """Over a rate: answered with 429 (Retry-After)."""

    def __init__(self, message: str | Words, wait_s: float) -> None:
        super().__init__(message, code="too-fast")
        self.wait_s = wait_s


def status_of(exc: BuzzerboxError) -> int:
    if isinstance(exc, TooLargeError):
        return 413
    if isinstance(exc, TooFastError):
        return 429
    if isinstance(exc, StoreError):
        return 503
    if isinstance(exc, GameNotFoundError):
        return 404
    if isinstance(exc, IllegalEventError | NotFinishedError | NoGameError | PhoneSeatRefusedError):
        return 409
    return 400


def register_errors(app: Flask) -> None:
    register_refusals(app, status_of)
