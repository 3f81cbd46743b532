"""Fakes for the web tests (a module of its own: test modules import from it)."""

from __future__ import annotations

import http.client
import json
from typing import Any

from buzzerbox.fixtures import PIN as PIN
from buzzerbox.fixtures import Seconds as Seconds
from buzzerbox.testing import ManualClock as ManualClock
from buzzerbox.testing import Timer as Timer
from flask.testing import FlaskClient


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


def one_round_of_kids(admin: FlaskClient, clock: ManualClock, countdown_us: int) -> None:
    """A game of Ligretto Kids, Ann and Ben, one round: stalled, Ann 2 and Ben 5 left."""
    new_game(admin, "kids", players=["Ann", "Ben"], rounds=1)
    play(admin, {"type": "round"})
    clock.advance(countdown_us)
    play(admin, {"type": "stall"}, {"type": "left", "counts": {"Ann": 2, "Ben": 5}})


class Admin:
    """The admin's phone against a real `buzzerbox serve`: logged in, one connection."""

    def __init__(self, port: int, pin: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.headers = {"Content-Type": "application/json"}
        self.conn.request("POST", "/api/login", json.dumps({"pin": pin}), self.headers)
        response = self.conn.getresponse()
        token = json.loads(response.read())["csrf"]
        cookie = (response.getheader("Set-Cookie") or "").split(";", 1)[0]
        self.headers.update({"Cookie": cookie, "X-CSRF-Token": token})

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        self.conn.request("POST", path, json.dumps(body), self.headers)
        response = self.conn.getresponse()
        data: dict[str, Any] = json.loads(response.read())
        assert response.status == 200, (path, body, data)
        return data

    def close(self) -> None:
        self.conn.close()

    def state(self) -> dict[str, Any]:
        self.conn.request("GET", "/api/state", headers=self.headers)
        data: dict[str, Any] = json.loads(self.conn.getresponse().read())
        return data
