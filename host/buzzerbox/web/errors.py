"""Refusals as JSON: {"error": reason, "field"?: the player or field it concerns}.

A malformed event or request is 400, one the rules forbid now is 409, a game that is
not in the log 404, an export of an unfinished game 409, a log that cannot be written
503. Nothing a phone sends is answered with a 500; a bug would be, and is logged.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from flask import Flask
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from buzzerbox.box import GameNotFoundError, NoGameError, NotFinishedError
from buzzerbox.errors import BuzzerboxError
from buzzerbox.rules.errors import IllegalEventError, InvalidEventError
from buzzerbox.store.log import StoreError
from buzzerbox.web.api import BadBody
from buzzerbox.web.auth import refuse

log = logging.getLogger(__name__)

#: fields of events and requests a refusal may name, in the order they are looked for
FIELDS = ("counts", "victim", "result", "seat", "pad", "pile", "target", "rounds", "players")


#: where a refusal starts listing every player (those names are not its subject)
LISTS = re.compile(r"the players are|is one of")


def refusal_field(message: str, players: list[str]) -> str | None:
    """The player a refusal concerns, else the field it names, else None.

    The rules' messages start with the player they are about ("Ann: 12 cards ...") or
    end on them ("... only possible for the caller, Ben; Ann has 1 to 10 cards left"):
    the player a message starts with, else the last one it names.
    """
    text = LISTS.split(message, maxsplit=1)[0]
    hits = []
    for name in players:
        for hit in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text):
            hits.append((hit.start(), name))
    if hits:
        first = min(hits)
        return first[1] if first[0] == 0 else max(hits)[1]
    for key in FIELDS:
        if re.search(rf"\b{key}\b", text):
            return key
    return None


def status_of(exc: BuzzerboxError) -> int:
    if isinstance(exc, StoreError):
        return 503
    if isinstance(exc, GameNotFoundError):
        return 404
    if isinstance(exc, IllegalEventError | NotFinishedError | NoGameError):
        return 409
    return 400


def register_errors(app: Flask, players: Callable[[], list[str]]) -> None:
    @app.errorhandler(BuzzerboxError)
    def refused(exc: BuzzerboxError) -> ResponseReturnValue:
        message = str(exc)
        if isinstance(exc, InvalidEventError | IllegalEventError):
            field = exc.subject or refusal_field(message, players())
            if field is not None:
                return refuse(status_of(exc), message, field=field)
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
