"""Issue 28, item 1: a body's size per endpoint is checked before it is read or parsed
(server/limits.py), and the parse is bounded on the bytes before json.loads."""

from __future__ import annotations

from typing import Any

import pytest
from buzzerbox.errors import Words
from buzzerbox.server import bodies, limits
from buzzerbox.server.errors import BadBodyError
from flask.testing import FlaskClient

JSON = {"Content-Type": "application/json"}
MIB = 1024 * 1024


@pytest.fixture
def no_parse(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the times a body reaches the parse (the bounds' scan or json.loads)."""
    reached: list[int] = []

    def scan(raw: bytes, error: Any) -> None:
        reached.append(len(raw))

    monkeypatch.setattr(bodies, "check_parse", scan)
    return reached


def test_a_big_press_is_a_413_in_words_and_never_parsed(
    client: FlaskClient, no_parse: list[int]
) -> None:
    body = b"[" + b"0," * (2 * MIB - 1) + b"0]"
    reply = client.post("/api/phones/press", data=body, headers=JSON)
    assert reply.status_code == 413
    assert reply.json == {
        "error": f"a press is at most 1 KiB: {len(body)} bytes were sent",
        "code": "too-large",
    }
    assert no_parse == []
    reply = client.post("/api/login", data=b'{"pin": "' + b"1" * 2000 + b'"}', headers=JSON)
    assert reply.status_code == 413 and no_parse == []


def test_the_import_is_large_only_for_the_admin(
    client: FlaskClient, admin: FlaskClient, no_parse: list[int]
) -> None:
    text = "x" * (64 * 1024)
    reply = client.post("/api/import", data=text)
    assert reply.status_code == 413
    assert "an import without an admin login is at most 1 KiB" in str(reply.json)
    reply = admin.post("/api/import", data=text)
    assert reply.status_code == 400  # read, and refused by the log's reader: not a 413


def test_the_parse_counts_values_and_depth_before_building() -> None:
    limits.check_parse(b'{"pin": "[[[[,,,,"}', BadBodyError)  # strings do not count
    with pytest.raises(BadBodyError, match="over 2000 values"):
        limits.check_parse(b"[" + b"0," * 2000 + b"0]", BadBodyError)
    with pytest.raises(BadBodyError, match="nests deeper than 32"):
        limits.check_parse(b"[" * 33 + b"]" * 33, BadBodyError)


def test_the_guard_is_given_the_same_sizes(client: FlaskClient) -> None:
    guard = client.application.extensions["buzzerbox"]["guard"]
    assert guard.body_limit("/api/phones/press", "") == (Words("a press"), 1024)
    assert guard.body_limit("/api/import", "session=forged") == (
        Words("an import without an admin login"),
        1024,
    )
