"""What a request body may cost the box, decided before it is read or parsed.

A guest needs no login to send a body: a press, a seat, a login. Each endpoint takes
at most the bytes it needs (`BODIES`: a press is a few hundred bytes); only the
admin's import is large, and only with an admin's session cookie. The size is checked
three times, each before the body costs anything:

- by the server's guard (guard.py, `Guard.body_limit`), when the request's head has
  arrived and before its body is read: a Content-Length over the endpoint's bytes, or
  a chunked body that grows past them, is answered 413 and the connection closed;
- by the app (`check_size`, before any view), from the Content-Length (waitress sets
  it for a chunked body once it is read): the same 413, under any server;
- by the parse (bodies.py calls `check_parse`): at most `MAX_ITEMS` values and
  `MAX_DEPTH` levels, counted on the bytes before `json.loads` builds anything.

Refusals say what the endpoint takes and what was sent, in words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from flask import Flask, request
from itsdangerous import BadSignature
from werkzeug.http import parse_cookie

from buzzerbox.errors import InputError, Words, plural_words
from buzzerbox.server.errors import TooLargeError

KIB = 1024
#: a press, a seat, a login, a switch: a few hundred bytes at most
SMALL = (Words("a request"), KIB)
#: path -> (what it is, the most bytes its body may have)
BODIES: dict[str, tuple[Words, int]] = {
    "/api/phones/press": (Words("a press"), KIB),
    "/api/phones/release": (Words("a release"), KIB),
    "/api/pads/press": (Words("a press"), KIB),
    "/api/pads/release": (Words("a release"), KIB),
    "/api/login": (Words("a login"), KIB),
    "/api/phones/seat": (Words("a seat request"), KIB),
    "/api/game": (Words("a new game"), 8 * KIB),
    "/api/event": (Words("a table entry"), 16 * KIB),
}
#: the admin's import of a log: the only large body, and only after login
IMPORT_PATH = "/api/import"
IMPORT = (Words("an import"), 4 * KIB * KIB)
UNLOGGED_IMPORT = (Words("an import without an admin login"), KIB)
#: a JSON body's values (commas, brackets) and nesting, at most
MAX_ITEMS = 2000
MAX_DEPTH = 32


def body_limit(path: str, is_admin: Callable[[], bool]) -> tuple[Words, int]:
    """(what, most bytes) for a body sent to `path`; `is_admin` is asked only for the
    import (the admin's session), never for a small body."""
    if path == IMPORT_PATH:
        return IMPORT if is_admin() else UNLOGGED_IMPORT
    return BODIES.get(path, SMALL)


def size_words(size: int) -> Words:
    if size >= KIB * KIB and size % (KIB * KIB) == 0:
        return Words("{n} MiB", {"n": size // (KIB * KIB)})
    if size >= KIB and size % KIB == 0:
        return Words("{n} KiB", {"n": size // KIB})
    return plural_words("{n} byte", "{n} bytes", size)


def too_large(what: Words, most: int, sent: int | None) -> Words:
    """The 413's words: what the endpoint takes, at most, and what was sent."""
    said = {"what": what, "most": size_words(most)}
    if sent is None:
        return Words("{what} is at most {most}: a body of unknown length was sent", said)
    return plural_words(
        "{what} is at most {most}: {n} byte was sent",
        "{what} is at most {most}: {n} bytes were sent",
        sent,
        said,
    )


def check_size(path: str, content_length: int | None, is_admin: Callable[[], bool]) -> None:
    """Raise TooLargeError if a body of `content_length` bytes is over `path`'s limit."""
    if not content_length:
        return
    what, most = body_limit(path, is_admin)
    if content_length > most:
        raise TooLargeError(too_large(what, most, content_length), code="too-large")


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(rb"[\[\]{}]")


def check_parse(raw: bytes, error: type[InputError]) -> None:
    """Raise `error` if the JSON text `raw` holds over MAX_ITEMS values or nests over
    MAX_DEPTH levels: counted on the bytes, strings left out, before anything is built."""
    bare = _STRING.sub(b'""', raw)
    depth = 0
    for found in _BRACKET.finditer(bare):
        depth += 1 if found.group() in (b"[", b"{") else -1
        if depth > MAX_DEPTH:
            raise error(deep_words(), code="too-deep")
    items = bare.count(b",") + bare.count(b":") + bare.count(b"[") + bare.count(b"{")
    if items > MAX_ITEMS:
        said = {"most": MAX_ITEMS, "n": items}
        words = Words("the body holds over {most} values ({n}): the API's are small", said)
        raise error(words, code="too-many-values")


def deep_words() -> Words:
    return Words(
        "the body nests deeper than {most} levels: the API's are flat", {"most": MAX_DEPTH}
    )


def install(app: Flask, has_session: Callable[[object], bool], guard: Any) -> None:
    """Check every request's body size in `app` before its view, and give the server's
    `guard` the same sizes (it refuses before reading the body). `has_session(sid)`
    says whether a session cookie's id is an open admin session."""
    serializer = app.session_interface.get_signing_serializer(app)  # type: ignore[attr-defined]
    name = str(app.config["SESSION_COOKIE_NAME"])
    lifetime = int(app.permanent_session_lifetime.total_seconds())

    def cookie_is_admin(header: str) -> bool:
        value = parse_cookie(header).get(name)
        if not value or serializer is None:
            return False
        try:
            data = serializer.loads(value, max_age=lifetime)
        except BadSignature:
            return False
        return isinstance(data, dict) and has_session(data.get("sid"))

    def for_guard(path: str, cookie: str) -> tuple[Words, int]:
        return body_limit(path, lambda: cookie_is_admin(cookie))

    @app.before_request
    def sizes() -> None:
        header = request.headers.get("Cookie", "")
        check_size(request.path, request.content_length, lambda: cookie_is_admin(header))

    guard.body_limit = for_guard
