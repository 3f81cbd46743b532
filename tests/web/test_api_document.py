"""The OpenAPI document says what the box takes, and the box refuses what it refuses
(issue 26, item 4), case by case: each request the box answers 400 is one the document
forbids, and each one the document forbids (a boolean or a fraction where a seat is
meant) the box refuses, in words naming the field, the value and what is allowed.
tests/web/test_openapi.py has schemathesis look for more."""

from __future__ import annotations

from typing import Any

import pytest
from buzzerbox.web.openapi import document
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator

from .web_fakes import new_game

TOKEN = "t" * 16


def allowed(path: str, body: Any) -> bool:
    """Whether the document allows `body` as the request body of POST `path`."""
    doc = document()
    content = doc["paths"][path]["post"]["requestBody"]["content"]
    schema = next(iter(content.values()))["schema"]
    validator = Draft202012Validator({**schema, "components": doc["components"]})
    return bool(validator.is_valid(body))


#: requests the box refuses as malformed (400), whatever the game
MALFORMED: list[tuple[str, Any]] = [
    ("/api/enrol", {}),
    ("/api/enrol", {"reset": False}),
    ("/api/enrol", {"seat": True}),
    ("/api/enrol", {"seat": 1.5}),
    ("/api/game", {"game": "kids", "players": []}),
    ("/api/game", {"game": "kids", "players": ["A", "B", "C", "D", "E", "F"]}),
    ("/api/game", {"game": "twist", "players": ["A", "B", "C", "D", "E"]}),
    ("/api/game", {"game": "kids", "players": ["A", "B"], "first": 0}),
    ("/api/game", {"game": "kids", "players": ["A", "x" * 41]}),
    ("/api/pads/press", {"seat": 0, "pad": "pile"}),
    ("/api/event", {"type": "left"}),
    ("/api/event", {"type": "claim"}),
    ("/api/event", {"type": "amend"}),
    ("/api/event", {"type": "caller"}),
    ("/api/event", {"type": "void", "seat": 0}),
    # a field the entry's type does not use is still of its documented kind (fields.py)
    ("/api/event", {"type": "finish", "left": {"Ann": {}}}),
    ("/api/event", {"type": "round", "seat": True}),
    ("/api/event", {"type": "undo", "victim": 3}),
    ("/api/import", ""),
    ("/api/phones/seat", {"seat": 0, "token": "short"}),
    ("/api/phones/seat", {"seat": 0, "token": "é" * 16}),
    ("/api/phones/press", {"token": "short", "pad": "stop"}),
    ("/api/phones/press", {"token": TOKEN, "pad": "stop", "touch_us": 5}),
    ("/api/phones/free", {"seat": True}),
    ("/api/phones/free", {"seat": 1e-05}),
    ("/api/phones/free", {"seat": -1}),
    ("/api/phones/free", {}),
]


@pytest.mark.parametrize(("path", "body"), MALFORMED, ids=[f"{p} {b!r}" for p, b in MALFORMED])
def test_what_the_box_refuses_the_document_forbids(
    admin: FlaskClient, path: str, body: Any
) -> None:
    new_game(admin, "kids", players=["Ann", "Ben"])
    assert admin.post("/api/phones", json={"on": True}).status_code == 200
    assert admin.post("/api/phones/seat", json={"seat": 1, "token": TOKEN}).status_code == 200
    if isinstance(body, str):
        reply = admin.post(path, data=body, content_type="text/plain")
    else:
        reply = admin.post(path, json=body)
    assert reply.status_code == 400, (path, body, reply.json)
    assert not allowed(path, body), f"the document allows {path} {body!r}, refused: {reply.json}"


def test_a_seat_is_a_whole_number_not_true_nor_a_fraction(admin: FlaskClient) -> None:
    """{"seat": true} freed seat 1 (Python's True == 1), {"seat": 1e-05} was a 200. 1.0
    is refused too, as the game log refuses it (game-log.md), though JSON Schema's
    "integer" takes it: the document says so in words."""
    new_game(admin, "kids", players=["Ann", "Ben"])
    admin.post("/api/phones", json={"on": True})
    assert admin.post("/api/phones/seat", json={"seat": 1, "token": TOKEN}).status_code == 200
    for seat in (True, 1e-05, 1.0, "1", -1):
        reply = admin.post("/api/phones/free", json={"seat": seat})
        assert reply.status_code == 400, seat
        error = reply.json["error"]  # type: ignore[index]
        assert error.startswith("seat ") and "whole number from 0" in error, error
    assert admin.get("/api/state").json["box"]["phones"]["taken"] == [1]  # type: ignore[index]
    assert admin.post("/api/phones/free", json={"seat": 1}).status_code == 200
    assert admin.get("/api/state").json["box"]["phones"]["taken"] == []  # type: ignore[index]
    reply = admin.post("/api/enrol", json={"seat": True})
    assert reply.json == {
        "error": "seat true is not allowed: the seat to enrol is a whole number from 0",
        "code": "field-not-allowed",
    }


def test_what_the_document_allows_the_box_takes(admin: FlaskClient) -> None:
    new_game(admin, "kids", players=["Ann", "Ben"])
    admin.post("/api/phones", json={"on": True})
    for path, body in [
        ("/api/phones/seat", {"seat": 0, "token": TOKEN}),
        ("/api/phones/free", {"seat": 0}),
        ("/api/phones/free", {"seat": 7}),  # nobody holds it: nothing to free
        ("/api/game", {"game": "twinit", "players": ["A", "B"], "first": 1}),
        ("/api/game", {"game": "twist", "players": ["A", "B", "C", "D"]}),
    ]:
        assert allowed(path, body), (path, body)
        reply = admin.post(path, json=body)
        assert reply.status_code == 200, (path, body, reply.json)
