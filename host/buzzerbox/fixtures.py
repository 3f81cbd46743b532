"""The package's own pytest fixtures (as gpiozero ships its mock pin factory and Home
Assistant its test helpers): a box on a driven clock, its app, a viewer and the admin,
fake pad boards. A test folder loads them with

    pytest_plugins = ["buzzerbox.fixtures"]     # in the top conftest.py

and asks for what it needs by name:

    def test_a_round(box: Box, clock: ManualClock) -> None:
        box.new_game({"game": "kids", "players": ["Ann", "Ben"]})
        box.submit(table_entry({"type": "round"}))
        clock.advance(box.countdown_us)            # the countdown's go, on the box's clock

- `clock`: the box's `ManualClock` (time moves only in `advance`);
- `db_path`, `make_box`, `box`: the event log's file, a factory of boxes on it (a box
  made again on the same file is the box after a restart), and the first such box;
  every box made is closed after the test;
- `seconds`, `app_config`, `app`, `client`, `admin`: the web app of `box` (create_app,
  the admin PIN `PIN`), a viewer's client, and a client logged in as the admin (its
  CSRF header sent with every request);
- `ports`: the fake pad boards (`FakeBoardPort`) a test starts, all closed after it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from buzzerbox.box import Box
from buzzerbox.pads.fakes.port import FakeBoardPort
from buzzerbox.server.auth import LoginLimiter
from buzzerbox.store.eventlog import EventLog
from buzzerbox.testing import ManualClock
from buzzerbox.web import create_app

#: the admin PIN of `app`
PIN = "4711"

#: make_box(**kw) -> a Box on `db_path` and `clock` (kw: Box's own, e.g. pads=, phones=)
MakeBox = Callable[..., Box]


@dataclass
class Seconds:
    """A monotonic clock in seconds, driven by hand (the login limiter's)."""

    now: float = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "box.db"


@pytest.fixture
def make_box(db_path: Path, clock: ManualClock) -> Iterator[MakeBox]:
    """Boxes on the test's log file and clock (`path=`, `clock=` for others); closed after."""
    made: list[Box] = []

    def make(*, path: Path | None = None, **kw: Any) -> Box:
        kw.setdefault("clock", clock)
        made.append(Box(EventLog(path or db_path), **kw))
        return made[-1]

    yield make
    for box in reversed(made):
        box.close()


@pytest.fixture
def box(make_box: MakeBox) -> Box:
    return make_box()


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


@pytest.fixture
def ports() -> Iterator[list[FakeBoardPort]]:
    """The fake boards a test starts; all are closed after it."""
    started: list[FakeBoardPort] = []
    yield started
    for port in started:
        port.close()
