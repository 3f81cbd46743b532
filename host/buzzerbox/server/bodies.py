"""Reading a request's JSON body without trusting it.

`read_json()` is the body as JSON, or None when it is not JSON (the endpoint says
what it expected). Python's parser raises RecursionError on deep nesting, and takes
"\\ud800" (a lone surrogate: no Unicode text) into a str that fails later, when it
is written: both are refused here, as 400s that say why (BadBodyError). The body's size
(per endpoint) was checked before it was read, and its values and depth are counted
on its bytes before it is parsed (limits.py).

`whole(body, key, what)` is a member that must be a whole number: JSON's true is not
1 and 1e-05 or 1.0 is no seat, though Python's == and int() would take them.
"""

from __future__ import annotations

import json

from flask import request

from buzzerbox.errors import Words
from buzzerbox.server.errors import BadBodyError
from buzzerbox.server.limits import check_parse, deep_words

#: how deep a body may nest (the deepest the API takes is 3: an object of lists)
MAX_DEPTH = 32


def check_json(value: object) -> object:
    """`value` if it nests at most MAX_DEPTH deep and every text in it is Unicode text."""
    pending: list[tuple[object, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise BadBodyError(deep_words(), code="too-deep")
        if isinstance(item, str):
            check_text(item)
        elif isinstance(item, dict):
            for key, inner in item.items():
                check_text(key)
                pending.append((inner, depth + 1))
        elif isinstance(item, list):
            pending.extend((inner, depth + 1) for inner in item)
    return value


def whole(body: dict[str, object], key: str, what: Words, *, least: int = 0) -> int:
    """`body[key]` if it is a whole number (a JSON integer) from `least`, else BadBodyError
    naming the field, the value and what is allowed (`what`)."""
    if key not in body:
        words = Words("{key!r} is missing: {what}", {"key": key, "what": what})
        raise BadBodyError(words, code="field-missing")
    value = body[key]
    if type(value) is not int or value < least:
        said = {"key": key, "value": json.dumps(value)[:24], "what": what}
        words = Words("{key} {value} is not allowed: {what}", said)
        raise BadBodyError(words, code="field-not-allowed")
    return value


def check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        said = {"text": text[:20]}
        words = Words(
            "{text!r} is not Unicode text (it holds a lone surrogate such as \\ud800)", said
        )
        raise BadBodyError(words, code="not-unicode") from None


def read_json() -> object:
    """The request's JSON body (Content-Type: application/json), or None if there is none."""
    if not request.is_json:
        return None
    raw = request.get_data(cache=True)
    check_parse(raw, BadBodyError)  # its values and depth, before json.loads builds them
    try:
        value = json.loads(raw)
    except RecursionError:
        raise BadBodyError(deep_words(), code="too-deep") from None
    except ValueError:  # not JSON, not UTF-8
        return None
    return check_json(value)
