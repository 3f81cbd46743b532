"""The hub's admin (issue 16, item 7): the PIN the hub prints, a session with its CSRF
token, and an offline table taken off the board; refusals in words."""

from __future__ import annotations

import json
from typing import Any

import pytest
from buzzerbox.cli import main
from buzzerbox.hub.app import create_app
from buzzerbox.hub.leaderboard import Leaderboard
from buzzerbox.live.updates import UpdatesView
from buzzerbox.server.auth import LoginLimiter
from flask.testing import FlaskClient

from .test_board import result, state

PIN = "24681357"


@pytest.fixture
def board() -> Leaderboard:
    board = Leaderboard()
    board.apply("buzzerbox/t1/state", state(3))
    board.apply("buzzerbox/t2/state", state(5))
    board.apply("buzzerbox/t2/status", b"offline")
    return board


@pytest.fixture
def live(board: Leaderboard) -> UpdatesView:
    return UpdatesView(board.snapshot, max_clients=2)


@pytest.fixture
def client(board: Leaderboard, live: UpdatesView) -> FlaskClient:
    config = {"ADMIN_PIN": PIN, "TESTING": True, "LOGIN_LIMITER": LoginLimiter(free=3)}
    return create_app(board, live, config).test_client()


def log_in(client: FlaskClient, pin: str = PIN) -> str:
    reply = client.post("/api/login", json={"pin": pin})
    assert reply.status_code == 200, reply.json
    csrf = reply.json["csrf"] if reply.json else None
    assert isinstance(csrf, str) and csrf
    return csrf


def tables(board: Leaderboard) -> list[str]:
    return [t["box"] for t in board.snapshot()["tables"]]


def error(reply: Any) -> str:
    return str(reply.json["error"])


def test_the_admin_removes_an_offline_table(client: FlaskClient, board: Leaderboard) -> None:
    csrf = log_in(client)
    assert client.get("/api/session").json == {"admin": True, "csrf": csrf}
    reply = client.delete("/api/tables/t2", headers={"X-CSRF-Token": csrf})
    assert reply.status_code == 200 and reply.json == {"removed": "t2"}
    assert tables(board) == ["t1"]


def test_the_admin_removes_any_table_even_online_and_any_result(
    client: FlaskClient, board: Leaderboard
) -> None:
    csrf = log_in(client)
    online = client.delete("/api/tables/t1", headers={"X-CSRF-Token": csrf})
    assert online.status_code == 200 and tables(board) == ["t2"]  # was 409 "online"
    missing = client.delete("/api/tables/t9", headers={"X-CSRF-Token": csrf})
    assert missing.status_code == 404
    assert error(missing) == "there is no table t9 on the board (any more)"
    board.apply("buzzerbox/t2/games/1", result("t2", 1, 9, ["Ann"]))
    assert [r["name"] for r in board.snapshot()["tournament"]] == ["Ann", "Ben"]
    struck = client.delete("/api/results/t2/1", headers={"X-CSRF-Token": csrf})
    assert struck.status_code == 200 and board.snapshot()["tournament"] == []
    board.apply("buzzerbox/t2/games/1", result("t2", 1, 9, ["Ann"]))  # sent again
    assert board.snapshot()["tournament"] == []
    again = client.delete("/api/results/t2/1", headers={"X-CSRF-Token": csrf})
    assert again.status_code == 404
    assert again.json is not None and again.json["code"] == "not-on-the-board"


def test_the_hubs_refusals_are_in_the_readers_language(client: FlaskClient) -> None:
    wrong = client.post("/api/login", json={"pin": "0000"}, headers={"Accept-Language": "da"})
    assert wrong.json == {
        "error": "Forkert PIN: PIN'en vises på hubbens konsol ved start",
        "code": "wrong-pin",
    }
    csrf = log_in(client)
    missing = client.delete(
        "/api/tables/t9", headers={"X-CSRF-Token": csrf, "Accept-Language": "de"}
    )
    assert missing.json == {
        "error": "Tisch t9 ist nicht (mehr) auf der Tafel",
        "code": "not-on-the-board",
    }


def test_removing_needs_the_admin_and_the_csrf_token(
    client: FlaskClient, board: Leaderboard
) -> None:
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


def test_the_stream_says_the_table_is_gone(client: FlaskClient, live: UpdatesView) -> None:
    csrf = log_in(client)
    seen: list[Any] = []
    live.publish = lambda updates: seen.extend(updates)  # type: ignore[method-assign]
    client.delete("/api/tables/t2", headers={"X-CSRF-Token": csrf})
    assert seen == [("gone", {"box": "t2"})]


def test_a_table_removed_stays_off_until_its_box_is_back() -> None:
    """What the broker kept of a box (its retained state, its last will) comes again on
    every subscription: it does not bring a removed table back; the box does."""
    board = Leaderboard()
    board.apply("buzzerbox/t2/state", state(5))
    board.apply("buzzerbox/t2/status", b"offline")
    board.remove("t2")
    assert board.apply("buzzerbox/t2/state", state(5)) == []
    assert board.apply("buzzerbox/t2/status", b"offline") == []
    assert tables(board) == []
    saved = json.loads(json.dumps(board.record()))
    again = Leaderboard()
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


def test_the_admin_gets_a_live_page_when_guests_hold_every_place(
    board: Leaderboard, live: UpdatesView
) -> None:
    config = {"ADMIN_PIN": PIN, "TESTING": True, "LOGIN_LIMITER": LoginLimiter(free=3)}
    app = create_app(board, live, config)
    guests = [app.test_client() for _ in range(2)]
    held = [g.get("/api/events", buffered=False) for g in guests]  # max_clients=2
    assert all(r.status_code == 200 for r in held)
    assert app.test_client().get("/api/events").status_code == 503  # a third guest
    admin = app.test_client()
    log_in(admin)
    stream = admin.get("/api/events", buffered=False)
    assert stream.status_code == 200  # the admin's own places (server/streams.py's ADMIN_STREAMS)
    for reply in [*held, stream]:
        reply.close()


def test_hidden_characters_in_names_are_refused(board: Leaderboard) -> None:
    for hidden in ("\u202eecilA", "Ann\u200b", "Ben\x07"):
        players = [{"name": hidden, "total": 1}]
        payload = json.dumps(
            {
                "v": 1,
                "id": "t3/1/9",
                "box": "t3",
                "game_id": 1,
                "seq": 9,
                "at": 1.0,
                "phase": "playing",
                "state": {"players": players},
            }
        ).encode()
        assert board.apply("buzzerbox/t3/state", payload) == []
    assert board.snapshot()["dropped_by"]["hidden character"] == 3
    assert board.table("t3") is None
