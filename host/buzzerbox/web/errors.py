"""Refusals as JSON: {"error": reason, "field"?: the player or field it concerns}.

The field is the rules error's `subject`, set where the refusal is raised.

A malformed event or request is 400, one the rules forbid now is 409 (a phone's seat
refused now too), a game that is
not in the log 404, an export of an unfinished game 409, a log that cannot be written
503. Nothing a phone sends is answered with a 500; a bug would be, and is logged.
"""

from __future__ import annotations

import logging

from flask import Flask
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from buzzerbox.box.errors import (
    GameNotFoundError,
    NoGameError,
    NotFinishedError,
    PhoneSeatError,
    PhoneSeatRefusedError,
)
from buzzerbox.errors import BuzzerboxError
from buzzerbox.rules.errors import IllegalEventError, InvalidEventError
from buzzerbox.store.log import StoreError
from buzzerbox.web.auth import refuse
from buzzerbox.web.bodies import BadBody

log = logging.getLogger(__name__)


def status_of(exc: BuzzerboxError) -> int:
    if isinstance(exc, StoreError):
        return 503
    if isinstance(exc, GameNotFoundError):
        return 404
    if isinstance(exc, IllegalEventError | NotFinishedError | NoGameError | PhoneSeatRefusedError):
        return 409
    return 400


def register_errors(app: Flask) -> None:
    @app.errorhandler(BuzzerboxError)
    def refused(exc: BuzzerboxError) -> ResponseReturnValue:
        message = str(exc)
        named = InvalidEventError | IllegalEventError | PhoneSeatError
        if isinstance(exc, named) and exc.subject is not None:
            return refuse(status_of(exc), message, field=exc.subject)
        if isinstance(exc, StoreError):
            log.error("the log failed: %s", exc)
        return refuse(status_of(exc), message)

    @app.errorhandler(BadBody)
    def bad_body(exc: BadBody) -> ResponseReturnValue:
        return refuse(400, str(exc))

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> ResponseReturnValue:
        return refuse(exc.code or 500, exc.description or exc.name)

    @app.errorhandler(Exception)
    def failed(exc: Exception) -> ResponseReturnValue:
        log.exception("a request failed")
        return refuse(500, f"the box failed ({type(exc).__name__}): this is a bug")
