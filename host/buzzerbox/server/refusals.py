"""Refusals as JSON for an app on this server (the box's, the hub's):
{"error": reason, "field"?: what it concerns (the error's `subject`), "code"?: which
refusal, for machines}. The reason is said in the request's language (server/language.py).

`status_of` says which HTTP status an error of ours gets (the box's web/errors.py
knows the box's); by default a file that cannot be written is 503 and every other
refusal 400. An error that says how long to wait (`wait_s`, e.g. too many presses)
carries Retry-After; an HTTP error keeps the headers it carries (a 405 says what is
Allowed, RFC 9110). Nothing a client sends is answered with a 500; a bug would be,
and is logged.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

from flask import Flask, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from buzzerbox.errors import BuzzerboxError, StoreError, Words
from buzzerbox.server.auth import refuse
from buzzerbox.server.errors import BadBodyError

logger = logging.getLogger(__name__)


def _fields(exc: BuzzerboxError) -> dict[str, str]:
    """What a refusal's JSON says besides its reason: its `field` and its `code`."""
    extra = {"field": exc.subject} if exc.subject is not None else {}
    if exc.code is not None:
        extra["code"] = exc.code
    return extra


def http_words(exc: HTTPException) -> tuple[Words | str, str | None]:
    """An HTTP error's reason in words, and its code: the misuses of the API a client
    makes (a path or a method the box has not, a body of the wrong kind)."""
    said = {"method": request.method, "path": request.path[:80]}
    if exc.code == 404:
        return Words("{path} is not a page or an API of the box", said), "not-found"
    if exc.code == 405:
        allowed = ", ".join(sorted(getattr(exc, "valid_methods", None) or ()))
        said = {**said, "allowed": allowed or "-"}
        return Words("{method} is not taken by {path}: it takes {allowed}", said), "wrong-method"
    if exc.code == 415:
        return Words("{path} takes a JSON body (Content-Type: application/json)", said), (
            "wrong-content-type"
        )
    if exc.code == 429:
        return Words("too many requests: wait a moment and retry"), "too-many-requests"
    if exc.code == 400:
        return Words("the request is not one the box understands: {method} {path}", said), (
            "bad-request"
        )
    return exc.description or exc.name, None


def default_status(exc: BuzzerboxError) -> int:
    return 503 if isinstance(exc, StoreError) else 400


def register_refusals(
    app: Flask, status_of: Callable[[BuzzerboxError], int] = default_status
) -> None:
    @app.errorhandler(BuzzerboxError)
    def refused(exc: BuzzerboxError) -> ResponseReturnValue:
        if isinstance(exc, StoreError):
            logger.error("the log failed: %s", exc)
        wait_s = getattr(exc, "wait_s", None)
        headers = {"Retry-After": str(max(1, math.ceil(wait_s)))} if wait_s else None
        return refuse(status_of(exc), exc.words or str(exc), headers, **_fields(exc))

    @app.errorhandler(BadBodyError)
    def bad_body(exc: BadBodyError) -> ResponseReturnValue:
        return refuse(400, exc.words or str(exc), None, **_fields(exc))

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> ResponseReturnValue:
        # the exception's own headers (a 405's Allow, RFC 9110 15.5.6; a 429's
        # Retry-After), but for its Content-Type: the refusal is JSON
        kept = {k: v for k, v in exc.get_headers() if k.lower() != "content-type"}
        words, code = http_words(exc)
        extra = {"code": code} if code else {}
        return refuse(exc.code or 500, words, headers=kept, **extra)

    @app.errorhandler(Exception)
    def failed(exc: Exception) -> ResponseReturnValue:
        logger.exception("a request failed")
        said = {"kind": type(exc).__name__}
        words = Words("the box failed ({kind}): this is a bug", said)
        return refuse(500, words, code="bug")
