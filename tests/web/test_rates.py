"""Issue 28, item 8: what a guest may cost without a login (web/rates.py): presses per
seat and per address (token buckets on a driven clock), seats per address, and
GET /api/stats computed once per set of finished games."""

from __future__ import annotations

from typing import Any

import pytest
from buzzerbox.web import create_app
from buzzerbox.web.rates import Buckets, Cached, PressRates
from flask import Flask
from flask.testing import FlaskClient

from .web_fakes import ManualClock, Seconds, new_game, play

GUEST = {"REMOTE_ADDR": "10.0.0.5"}
TOKENS = [c * 20 for c in "abcd"]


@pytest.fixture
def app(box: Any, app_config: dict[str, Any], seconds: Seconds) -> Flask:
    return create_app(box, {**app_config, "PRESS_RATES": PressRates(clock=seconds)})


def guest(app: Flask) -> FlaskClient:
    client = app.test_client()
    client.environ_base.update(GUEST)
    return client


def test_a_bucket_gives_its_burst_then_its_rate() -> None:
    now = [0.0]
    bucket = Buckets(10.0, 20, lambda: now[0])
    assert [bucket.take("seat 0") for _ in range(20)] == [0.0] * 20
    assert bucket.take("seat 0") == pytest.approx(0.1)
    assert bucket.take("seat 1") == 0.0  # another key has its own
    now[0] += 0.1
    assert bucket.take("seat 0") == 0.0 and bucket.take("seat 0") > 0
    assert bucket.refused == 2


def test_a_seat_pressing_too_fast_is_refused_in_words(
    app: Flask, admin: FlaskClient, clock: ManualClock, seconds: Seconds
) -> None:
    phone = guest(app)
    new_game(admin)
    admin.post("/api/phones", json={"on": True})
    assert phone.post("/api/phones/seat", json={"seat": 0, "token": TOKENS[0]}).status_code == 200
    play(admin, {"type": "round"})
    clock.advance(4_000_000)
    statuses = []
    for _ in range(25):  # no time passes on the driven clock: the burst, then refusals
        reply = phone.post("/api/phones/release", json={"token": TOKENS[0], "pad": "stop"})
        statuses.append(reply.status_code)
    assert statuses.count(429) == 5, statuses
    assert reply.json == {
        "error": "seat 0 pressed more than 10 times a second: wait 0.10 s",
        "code": "too-fast",
    }
    assert reply.headers["Retry-After"] == "1"
    seconds.now += 1.0  # ten more a second later
    reply = phone.post("/api/phones/release", json={"token": TOKENS[0], "pad": "stop"})
    assert reply.status_code != 429


def test_one_address_takes_two_seats_at_most(app: Flask, admin: FlaskClient) -> None:
    phone = guest(app)
    new_game(admin, players=["Ann", "Ben", "Cem", "Dan"])
    admin.post("/api/phones", json={"on": True})
    for seat in (0, 1):
        assert (
            phone.post("/api/phones/seat", json={"seat": seat, "token": TOKENS[seat]}).status_code
            == 200
        )
    reply = phone.post("/api/phones/seat", json={"seat": 2, "token": TOKENS[2]})
    assert reply.status_code == 400
    assert "this address holds 2 seats already: at most 2" in str(reply.json)
    # the same token moving to another seat is no new seat
    assert phone.post("/api/phones/seat", json={"seat": 3, "token": TOKENS[1]}).status_code == 200
    # another address is not held back
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.6"
    assert other.post("/api/phones/seat", json={"seat": 2, "token": TOKENS[2]}).status_code == 200


def test_stats_are_computed_once_per_set_of_finished_games(
    client: FlaskClient, admin: FlaskClient
) -> None:
    first = client.get("/api/stats").json
    for _ in range(5):
        assert client.get("/api/stats").json == first
    cache = next(
        c.cell_contents
        for c in (client.application.view_functions["pastgames.stats"].__closure__ or ())
        if isinstance(c.cell_contents, Cached)
    )
    assert cache.computed == 1
    new_game(admin)  # a game that is not finished changes no figure: not computed again
    admin.post("/api/event", json={"type": "round"})
    client.get("/api/stats")
    assert cache.computed == 1
    admin.post("/api/event", json={"type": "finish"})  # now it counts: computed again, once
    client.get("/api/stats")
    client.get("/api/stats")
    assert cache.computed == 2


def test_an_address_saying_its_phone_is_here_too_often_is_refused_in_words(
    app: Flask, admin: FlaskClient, seconds: Seconds
) -> None:
    phone = guest(app)
    new_game(admin)
    admin.post("/api/phones", json={"on": True})
    assert phone.post("/api/phones/seat", json={"seat": 0, "token": TOKENS[0]}).status_code == 200
    statuses = [
        phone.post("/api/phones/here", json={"token": TOKENS[0]}).status_code for _ in range(12)
    ]
    assert statuses == [200] * 10 + [429] * 2, statuses  # the burst, then refusals
    reply = phone.post("/api/phones/here", json={"token": TOKENS[0]})
    assert reply.json == {
        "error": "a phone says it is here more than 2 times a second from this address: "
        "wait 0.50 s",
        "code": "too-fast",
    }
    seconds.now += 0.5  # one more half a second later: a phone's every 3 s is far within
    assert phone.post("/api/phones/here", json={"token": TOKENS[0]}).status_code == 200
    # the box's own screen is not capped
    for _ in range(12):
        assert admin.post("/api/phones/here", json={"token": TOKENS[0]}).status_code == 200
