"""A table entry's fields are of the kinds the API document gives them, whatever the
entry's type: a field the type does not use is still refused when it is of the wrong
kind (a `left` of text on a `finish`), as the document says, never silently dropped.

The kinds are read from the document itself (web/openapi.json, `TableEntry`), so the
two cannot drift apart: a whole number (a JSON integer, never true or 1.0) from its
minimum, a {name: whole number} object, one of an enum's values, text.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from buzzerbox.errors import Words
from buzzerbox.server.errors import BadBodyError
from buzzerbox.web.openapi import document


@cache
def _entry_fields() -> dict[str, dict[str, Any]]:
    schema = document()["components"]["schemas"]["TableEntry"]
    # the type is the box's own to refuse: it says why ("go ... come from the box")
    return {key: kind for key, kind in schema["properties"].items() if key != "type"}


def _fits(value: object, kind: dict[str, Any]) -> bool:
    if "enum" in kind:
        return any(type(value) is type(v) and value == v for v in kind["enum"])
    if kind.get("type") == "integer":
        return type(value) is int and value >= kind.get("minimum", value)
    if kind.get("type") == "string":
        return isinstance(value, str)
    if kind.get("type") == "object":
        inner = kind.get("additionalProperties", {})
        return isinstance(value, dict) and all(_fits(v, inner) for v in value.values())
    return True


def _allowed(kind: dict[str, Any]) -> Words:
    if "enum" in kind:
        return Words("one of {values}", {"values": ", ".join(str(v) for v in kind["enum"])})
    if kind.get("type") == "integer":
        return Words("a whole number from {least}", {"least": kind.get("minimum", 0)})
    if kind.get("type") == "object":
        return Words("{{name: whole number}}")
    return Words("text")


def check_entry_fields(body: dict[str, object]) -> None:
    """BadBodyError naming the first field of `body` that is not of its documented kind."""
    for key, kind in _entry_fields().items():
        if key in body and not _fits(body[key], kind):
            sent = json.dumps(body[key])[:40]
            said = {"key": key, "allowed": _allowed(kind), "sent": sent}
            words = Words("a table entry's {key} is {allowed}: {sent} was sent", said)
            raise BadBodyError(words, code="field-not-allowed")
