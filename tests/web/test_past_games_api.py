"""The past games over the API: GET /api/games/<id> (a game as it ended), POST
/api/games/<id>/rematch (the admin's), its exports by `?game=`, and GET /api/stats
(finished games only). Every answer as the API document says (test_openapi.py fuzzes
them too)."""

from __future__ import annotations

from typing import Any

from buzzerbox.web.openapi import document
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator

from .web_fakes import ManualClock, new_game, play


def schema_check(instance: Any, name: str) -> None:
    doc = document()
    schema = {"$ref": f"#/components/schemas/{name}", "components": doc["components"]}
    Draft202012Validator(schema).validate(instance)


def kids_won_by_ann(admin: FlaskClient, clock: ManualClock) -> int:
    state = new_game(admin, "kids", players=["Ann", "Ben"])
    play(admin, {"type": "round"})
    clock.advance(3_000_000)  # the go
    clock.advance(2_500_000)  # Ann's stop, 2.5 s after it
    assert admin.post("/api/pads/press", json={"seat": 0, "pad": "stop"}).status_code == 200
    play(admin, {"type": "left", "counts": {"Ann": 0, "Ben": 5}}, {"type": "finish"})
    return int(state["box"]["game_id"])


def test_a_past_game_is_viewed_by_anyone(
    client: FlaskClient, admin: FlaskClient, clock: ManualClock
) -> None:
    old = kids_won_by_ann(admin, clock)
    new_game(admin, "twinit", players=["Ann", "Ben", "Cem"])
    reply = client.get(f"/api/games/{old}")
    assert reply.status_code == 200
    view = reply.json
    schema_check(view, "PastGame")
    assert view["winners"] == ["Ann"] and view["finished"] is True  # type: ignore[index]
    assert view["history"][0]["points"] == {"Ann": 0, "Ben": 5}  # type: ignore[index]
    listed = client.get("/api/games").json
    assert [g["id"] for g in listed][1] == old  # type: ignore[union-attr]
    # its exports, by its id, while another game goes on
    sheet = client.get(f"/api/export/csv?game={old}")
    assert sheet.status_code == 200 and "Ann" in sheet.get_data(as_text=True)
    assert client.get(f"/api/export/log?game={old}").status_code == 200


def test_a_game_not_in_the_log_is_a_404_whatever_its_id(client: FlaskClient) -> None:
    for path in ("/api/games/7", f"/api/games/{2**70}"):
        reply = client.get(path)
        assert reply.status_code == 404, path
        assert "is not in the log" in reply.json["error"]  # type: ignore[index]
    assert client.get("/api/games/x").status_code == 404


def test_a_past_game_is_played_again_by_the_admin_only(
    client: FlaskClient, admin: FlaskClient, clock: ManualClock
) -> None:
    old = kids_won_by_ann(admin, clock)
    new_game(admin, "ligretto", players=["Dan", "Eve"], rounds=3)
    assert client.post(f"/api/games/{old}/rematch", json={}).status_code == 403
    reply = admin.post(f"/api/games/{old}/rematch", json={})
    assert reply.status_code == 200
    state = reply.json
    assert state["game"] == "kids" and state["phase"] == "lobby"  # type: ignore[index]
    assert [p["name"] for p in state["players"]] == ["Ann", "Ben"]  # type: ignore[index]
    assert state["box"]["game_id"] > old  # type: ignore[index]
    # the current game's rematch is the table's: same players, seats and pads
    again = admin.post(f"/api/games/{state['box']['game_id']}/rematch", json={})  # type: ignore[index]
    assert again.status_code == 200 and again.json["game"] == "kids"  # type: ignore[index]
    assert admin.post("/api/games/999999/rematch", json={}).status_code == 404


def test_stats_count_finished_games_in_the_documented_shape(
    client: FlaskClient, admin: FlaskClient, clock: ManualClock
) -> None:
    kids_won_by_ann(admin, clock)
    admin.post("/api/rematch", json={})  # a rematch begun and left
    play(admin, {"type": "round"})
    new_game(admin, "twist", players=["Ann", "Ben"])
    rows = client.get("/api/stats").json
    assert isinstance(rows, list)
    for row in rows:
        schema_check(row, "PlayerStats")
    ann = next(r for r in rows if r["name"] == "Ann")
    assert (ann["games"], ann["wins"]) == (1, 1)
    assert ann["quickest_call"]["us"] == 2_500_000
    assert ann["by_game"] == [
        {
            "game": "kids",
            "games": 1,
            "wins": 1,
            "best_round": {
                "points": 0,
                "round": 1,
                "game_id": ann["by_game"][0]["best_round"]["game_id"],
                "started": ann["by_game"][0]["best_round"]["started"],
            },
        }
    ]


def test_a_finished_games_view_and_exports_are_replayed_once(
    client: FlaskClient, admin: FlaskClient, clock: ManualClock, box: Any
) -> None:
    """Issue 39, item 6: anyone may ask for a past game and its exports, again and again;
    the box replays each once (box/kept.py), whoever asks."""
    old = kids_won_by_ann(admin, clock)
    new_game(admin, "twinit", players=["Ann", "Ben", "Cem"])
    computed = box.archive.kept.computed
    paths = [f"/api/games/{old}", f"/api/export/log?game={old}", f"/api/export/bgstats?game={old}"]
    first = [client.get(path).get_data() for path in paths]
    for _ in range(5):
        assert [client.get(path).get_data() for path in paths] == first
    assert box.archive.kept.computed - computed == len(paths)
    for lang in ("de", "fr"):  # the CSV's headers are said in the reader's language
        for _ in range(3):
            client.get(f"/api/export/csv?game={old}", headers={"Accept-Language": lang})
    assert box.archive.kept.computed - computed == len(paths) + 2
    # an unfinished game's CSV is refused from its summary, with no replay
    now = box.game_id
    assert client.get(f"/api/export/csv?game={now}").status_code == 409
    assert box.archive.kept.computed - computed == len(paths) + 2
