"""The set-up the two API fuzzers share (web/test_openapi.py: answers against the
document; faults/test_api_admin_fuzz.py: what a refusal leaves behind): a box's app with
a wide-open login limiter, the admin's cookie and CSRF token, schemathesis on the app."""

from __future__ import annotations

from typing import Any

import schemathesis
from buzzerbox.box import Box
from buzzerbox.server.auth import LoginLimiter
from buzzerbox.web import create_app
from flask import Flask


def fuzzed_app_of(box: Box, pin: str, secret: bytes) -> Flask:
    config = {
        "ADMIN_PIN": pin,
        "SECRET_KEY": secret,
        "URLS": ["http://box.local:8000/"],
        "WIFI_SSID": "Table",
        "LOGIN_LIMITER": LoginLimiter(free=10**9),
    }
    return create_app(box, config)


def admin_auth_of(app: Flask, pin: str) -> dict[str, Any]:
    """What schemathesis sends with every request to be the admin."""
    client = app.test_client()
    token = client.post("/api/login", json={"pin": pin}).json["csrf"]  # type: ignore[index]
    cookie = client.get_cookie("session")
    assert cookie is not None
    return {"headers": {"X-CSRF-Token": token}, "cookies": {"session": cookie.value}}


def api_of(app: Flask) -> Any:
    return schemathesis.openapi.from_wsgi("/api/openapi.json", app)
