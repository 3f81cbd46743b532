"""Fixtures of the web tests: a box on a driven clock, its app, a viewer and an admin;
and the browser tests' real `buzzerbox serve` and Chromium (browser_support.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from buzzerbox.box import Box
from buzzerbox.server.auth import LoginLimiter
from buzzerbox.store.eventlog import EventLog
from buzzerbox.web import create_app
from flask import Flask
from flask.testing import FlaskClient

from .browser_support import browser, playwright, served  # noqa: F401  (the browser tests')
from .web_fakes import PIN, ManualClock, Seconds


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "box.db"


@pytest.fixture
def box(db_path: Path, clock: ManualClock) -> Iterator[Box]:
    box = Box(EventLog(db_path), clock=clock)
    yield box
    box.close()


@pytest.fixture
def seconds() -> Seconds:
    return Seconds()


@pytest.fixture
def app_config(seconds: Seconds) -> dict[str, Any]:
    return {
        "ADMIN_PIN": PIN,
        "SECRET_KEY": b"k" * 32,
        "URLS": ["http://box.local:8000/"],
        "LOGIN_LIMITER": LoginLimiter(free=3, base_s=60, clock=seconds),
        "TESTING": True,
    }


@pytest.fixture
def app(box: Box, app_config: dict[str, Any]) -> Flask:
    return create_app(box, app_config)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def admin(app: Flask) -> FlaskClient:
    """A client logged in as the admin; its CSRF header is sent with every request."""
    client = app.test_client()
    reply = client.post("/api/login", json={"pin": PIN})
    assert reply.status_code == 200, reply.json
    client.environ_base["HTTP_X_CSRF_TOKEN"] = reply.json["csrf"]  # type: ignore[index]
    return client
