"""HTTP refusals keep what HTTP says they carry (issue 26, item 3): a 405 names the
methods the resource takes in `Allow` (RFC 9110 15.5.6), and the JSON error handler
(web/errors.py) keeps the headers an HTTP exception brings, but for its Content-Type."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient
from werkzeug.exceptions import TooManyRequests


def _allowed(reply: object) -> set[str]:
    allow = reply.headers.get("Allow", "")  # type: ignore[attr-defined]
    return {method.strip() for method in allow.split(",") if method.strip()}


def test_a_405_says_what_is_allowed(client: FlaskClient) -> None:
    reply = client.get("/api/event")
    assert reply.status_code == 405
    assert reply.mimetype == "application/json"
    assert "error" in reply.json  # type: ignore[operator]
    assert "POST" in _allowed(reply) and "GET" not in _allowed(reply)
    reply = client.delete("/api/state")
    assert reply.status_code == 405
    assert {"GET", "HEAD"} <= _allowed(reply) and "DELETE" not in _allowed(reply)


def test_an_http_error_keeps_its_headers(app: Flask) -> None:
    @app.get("/test/slow-down")
    def slow_down() -> str:
        raise TooManyRequests(retry_after=7)

    reply = app.test_client().get("/test/slow-down")
    assert reply.status_code == 429
    assert reply.headers["Retry-After"] == "7"
    assert reply.mimetype == "application/json"
    assert reply.json is not None and "error" in reply.json
