"""The hub's admin (issue 16, item 7): the PIN the hub prints, a session with its CSRF
token, and an offline table taken off the board; refusals in words."""

from __future__ import annotations

import json
from typing import Any

import pytest
from buzzerbox.cli import main
from buzzerbox.hub.app import create_app
from buzzerbox.hub.board import Board
from buzzerbox.live.sse import Live
from buzzerbox.server.auth import LoginLimiter
from flask.testing import FlaskClient

from .test_board import state

PIN = "24681357"


@pytest.fixture
def board() -> Board:
    board = Board()
    board.apply("buzzerbox/t1/state", state(3))
    board.apply("buzzerbox/t2/state", state(5))
    board.apply("buzzerbox/t2/status", b"offline")
    return board


@pytest.fixture
def live(board: Board) -> Live:
    return Live(board.snapshot, max_clients=2)


@pytest.fixture
def client(board: Board, live: Live) -> FlaskClient:
    config = {"ADMIN_PIN": PIN, "TESTING": True, "LOGIN_LIMITER": LoginLimiter(free=3)}
    return create_app(board, live, config).test_client()


def log_in(client: FlaskClient, pin: str = PIN) -> str:
    reply = client.post("/api/login", json={"pin": pin})
    assert reply.status_code == 200, reply.json
    csrf = reply.json["csrf"] if reply.json else None
    assert isinstance(csrf, str) and csrf
    return csrf


def tables(board: Board) -> list[str]:
    return [t["box"] for t in board.snapshot()["tables"]]


def error(reply: Any) -> str:
    return str(reply.json["error"])


def test_the_admin_removes_an_offline_table(client: FlaskClient, board: Board) -> None:
    csrf = log_in(client)
    assert client.get("/api/session").json == {"admin": True, "csrf": csrf}
    reply = client.delete("/api/tables/t2", headers={"X-CSRF-Token": csrf})
    assert reply.status_code == 200 and reply.json == {"removed": "t2"}
    assert tables(board) == ["t1"]


def test_an_online_table_or_one_not_there_is_refused_in_words(
    client: FlaskClient, board: Board
) -> None:
    csrf = log_in(client)
    online = client.delete("/api/tables/t1", headers={"X-CSRF-Token": csrf})
    assert online.status_code == 409
    assert error(online) == "table t1 is online; only an offline table can be removed"
    missing = client.delete("/api/tables/t9", headers={"X-CSRF-Token": csrf})
    assert missing.status_code == 404
    assert error(missing) == "there is no table t9 on the board (any more)"
    assert tables(board) == ["t1", "t2"]


def test_removing_needs_the_admin_and_the_csrf_token(client: FlaskClient, board: Board) -> None:
    guest = client.delete("/api/tables/t2")
    assert guest.status_code == 403 and "log in with the admin PIN" in error(guest)
    log_in(client)
    forged = client.delete("/api/tables/t2")  # the cookie alone: a cross-site request
    assert forged.status_code == 403 and "X-CSRF-Token" in error(forged)
    assert tables(board) == ["t1", "t2"]


def test_a_wrong_pin_says_where_the_pin_is_and_tries_are_limited(client: FlaskClient) -> None:
    wrong = client.post("/api/login", json={"pin": "0000"})
    assert wrong.status_code == 403
    assert error(wrong) == "wrong PIN: the PIN is shown on the hub's console at start"
    for _ in range(2):
        client.post("/api/login", json={"pin": "0000"})
    held = client.post("/api/login", json={"pin": PIN})
    assert held.status_code == 429 and "try again in" in error(held)
    bad = client.post("/api/login", data=b"[[[", content_type="application/json")
    assert bad.status_code == 400 and "PIN" in error(bad)


def test_the_stream_says_the_table_is_gone(client: FlaskClient, live: Live) -> None:
    csrf = log_in(client)
    seen: list[Any] = []
    live.publish = lambda updates: seen.extend(updates)  # type: ignore[method-assign]
    client.delete("/api/tables/t2", headers={"X-CSRF-Token": csrf})
    assert seen == [("gone", {"box": "t2"})]


def test_a_table_removed_stays_off_until_its_box_is_back() -> None:
    """What the broker kept of a box (its retained state, its last will) comes again on
    every subscription: it does not bring a removed table back; the box does."""
    board = Board()
    board.apply("buzzerbox/t2/state", state(5))
    board.apply("buzzerbox/t2/status", b"offline")
    board.remove("t2")
    assert board.apply("buzzerbox/t2/state", state(5)) == []
    assert board.apply("buzzerbox/t2/status", b"offline") == []
    assert tables(board) == []
    saved = json.loads(json.dumps(board.record()))
    again = Board()
    again.restore(saved)  # the hub restarted: still gone
    assert again.apply("buzzerbox/t2/state", state(5)) == [] and tables(again) == []
    assert again.apply("buzzerbox/t2/status", b"online") != []
    assert tables(again) == ["t2"]
    board.apply("buzzerbox/t2/state", state(6))  # a newer state: the box plays again
    assert tables(board) == ["t2"]


def test_buzzerbox_hub_refuses_a_blank_pin(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:  # argparse's refusal, as for serve
        main(["hub", "--broker", "mqtt://127.0.0.1:1", "--port", "0", "--pin", "  "])
    assert refused.value.code == 2
    assert "--pin: the PIN is blank: give digits" in capsys.readouterr().err
