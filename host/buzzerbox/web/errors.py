"""The box's web errors (a phone's press time), and which HTTP status each error
gets (the JSON and the handlers are the server's, server/refusals.py).

A malformed event or request is 400, one the rules forbid now is 409 (a phone's seat
refused now too), a game that is not in the log 404, an export of an unfinished game
409, a log that cannot be written 503. Nothing a phone sends is answered with a 500.
"""

from __future__ import annotations

from flask import Flask

from buzzerbox.box.errors import (
    GameNotFoundError,
    NoGameError,
    NotFinishedError,
    PhoneSeatRefusedError,
)
from buzzerbox.errors import BuzzerboxError, InputError, StoreError
from buzzerbox.rules.errors import IllegalEventError
from buzzerbox.server.refusals import register_refusals


def status_of(exc: BuzzerboxError) -> int:
    if isinstance(exc, StoreError):
        return 503
    if isinstance(exc, GameNotFoundError):
        return 404
    if isinstance(exc, IllegalEventError | NotFinishedError | NoGameError | PhoneSeatRefusedError):
        return 409
    return 400


def register_errors(app: Flask) -> None:
    register_refusals(app, status_of)


class PhoneTimeError(InputError):
    """A press's times are not numbers of the kind the box takes: answered with 400."""
