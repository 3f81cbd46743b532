"""Refusals as JSON: {"error": reason, "field"?: the player or field it concerns}.

The field is the rules error's `subject`, set where the refusal is raised.

A malformed event or request is 400, one the rules forbid now is 409, a game that is
not in the log 404, an export of an unfinished game 409, a body over its endpoint's
size 413 (limits.py), a log that cannot be written 503. An HTTP error keeps the
headers it carries (a 405 says what is Allowed). Nothing a phone sends is answered
with a 500; a bug would be, and is logged.
"""

from __future__ import annotations

import logging
import math

from flask import Flask
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from buzzerbox.box import GameNotFoundError, NoGameError, NotFinishedError
from buzzerbox.errors import BuzzerboxError
from buzzerbox.rules.errors import IllegalEventError, InvalidEventError
from buzzerbox.store.log import StoreError
from buzzerbox.web.auth import refuse
from buzzerbox.web.bodies import BadBody
from buzzerbox.web.limits import TooLarge
from buzzerbox.web.rates import TooFast

log = logging.getLogger(__name__)


def status_of(exc: BuzzerboxError) -> int:
    if isinstance(exc, TooLarge):
        return 413
    if isinstance(exc, TooFast):
        return 429
    if isinstance(exc, StoreError):
        return 503
    if isinstance(exc, GameNotFoundError):
        return 404
    if isinstance(exc, IllegalEventError | NotFinishedError | NoGameError):
        return 409
    return 400


def register_errors(app: Flask) -> None:
    @app.errorhandler(BuzzerboxError)
    def refused(exc: BuzzerboxError) -> ResponseReturnValue:
        message = str(exc)
        if isinstance(exc, InvalidEventError | IllegalEventError) and exc.subject is not None:
            return refuse(status_of(exc), message, field=exc.subject)
        if isinstance(exc, StoreError):
            log.error("the log failed: %s", exc)
        response = refuse(status_of(exc), message)
        if isinstance(exc, TooFast):
            response.headers["Retry-After"] = str(max(1, math.ceil(exc.wait_s)))  # type: ignore[union-attr]
        return response

    @app.errorhandler(BadBody)
    def bad_body(exc: BadBody) -> ResponseReturnValue:
        return refuse(400, str(exc))

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> ResponseReturnValue:
        # the exception's own headers (a 405's Allow, RFC 9110 15.5.6; a 429's
        # Retry-After), but for its Content-Type: the refusal is JSON
        kept = {k: v for k, v in exc.get_headers() if k.lower() != "content-type"}
        return refuse(exc.code or 500, exc.description or exc.name, headers=kept)

    @app.errorhandler(Exception)
    def failed(exc: Exception) -> ResponseReturnValue:
        log.exception("a request failed")
        return refuse(500, f"the box failed ({type(exc).__name__}): this is a bug")
