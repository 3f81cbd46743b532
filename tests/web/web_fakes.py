"""Fakes for the web tests (a module of its own: test modules import from it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from buzzerbox.testing import ManualClock as ManualClock
from buzzerbox.testing import Timer as Timer
from flask.testing import FlaskClient

PIN = "4711"


@dataclass
class Seconds:
    """A monotonic clock in seconds for the login limiter."""

    now: float = 100.0

    def __call__(self) -> float:
        return self.now


def play(admin: FlaskClient, *events: dict[str, Any]) -> dict[str, Any]:
    """Post table entries, each one accepted; the last state."""
    state: dict[str, Any] = {}
    for event in events:
        reply = admin.post("/api/event", json=event)
        assert reply.status_code == 200, (event, reply.json)
        state = reply.json  # type: ignore[assignment]
    return state


def new_game(admin: FlaskClient, game: str = "ligretto", **fields: Any) -> dict[str, Any]:
    body = {"game": game, "players": ["Ann", "Ben", "Cem"], **fields}
    reply = admin.post("/api/game", json=body)
    assert reply.status_code == 200, reply.json
    return reply.json  # type: ignore[return-value]
