"""The JSON API through Flask's test client: reading, the admin session, table entries,
virtual pads, games, imports and exports. Refusals are 4xx with the rules' words."""

from __future__ import annotations

import json

from buzzerbox.box import Box
from flask.testing import FlaskClient

from .web_fakes import PIN, ManualClock, Seconds, new_game, play


def test_a_fresh_box_serves_the_idle_state_and_what_the_pages_need(client: FlaskClient) -> None:
    state = client.get("/api/state").json
    assert state is not None
    assert state["phase"] == "idle"
    assert state["players"] == []
    box = state["box"]
    assert box["simulated"] is True
    assert box["admin"] is False
    assert box["urls"] == ["http://box.local:8000/"]
    assert box["pads"] == [] and box["countdown_ends_us"] is None
    assert isinstance(box["now_us"], int)


def test_the_pin_is_never_served(client: FlaskClient, admin: FlaskClient) -> None:
    new_game(admin)
    for path in ("/api/state", "/api/session", "/api/openapi.json", "/api/games"):
        assert PIN not in client.get(path).get_data(as_text=True)
        assert PIN not in admin.get(path).get_data(as_text=True)


def test_logging_in_gives_a_csrf_token_and_the_admin_session(client: FlaskClient) -> None:
    assert client.get("/api/session").json == {"admin": False, "csrf": None}
    reply = client.post("/api/login", json={"pin": PIN})
    assert reply.status_code == 200
    token = reply.json["csrf"]  # type: ignore[index]
    assert client.get("/api/session").json == {"admin": True, "csrf": token}
    assert client.get("/api/state").json["box"]["admin"] is True  # type: ignore[index]
    assert client.post("/api/logout").status_code == 403  # a logout is CSRF-checked
    copied = client.get_cookie("session")
    assert copied is not None
    assert client.post("/api/logout", headers={"X-CSRF-Token": token}).status_code == 200
    assert client.get("/api/session").json == {"admin": False, "csrf": None}
    client.set_cookie("session", copied.value)  # the cookie, copied before: ended too
    assert client.get("/api/session").json == {"admin": False, "csrf": None}


def test_a_wrong_pin_is_refused_and_tries_are_limited(
    client: FlaskClient, seconds: Seconds
) -> None:
    for _ in range(3):
        reply = client.post("/api/login", json={"pin": "0000"})
        assert reply.status_code == 403
        assert "wrong PIN" in reply.json["error"]  # type: ignore[index]
    reply = client.post("/api/login", json={"pin": PIN})
    assert reply.status_code == 429
    assert reply.headers["Retry-After"] == "60"
    seconds.now += 61
    assert client.post("/api/login", json={"pin": PIN}).status_code == 200


def test_others_wrong_tries_never_lock_the_right_pin_out(
    app_config: dict[str, object], box: Box, seconds: Seconds
) -> None:
    from buzzerbox.web import create_app

    client = create_app(box, app_config).test_client()
    for n in range(50):
        client.environ_base["REMOTE_ADDR"] = f"10.0.0.{n}"
        for _ in range(3):
            assert client.post("/api/login", json={"pin": "0"}).status_code == 403
        assert client.post("/api/login", json={"pin": "0"}).status_code == 429
    client.environ_base["REMOTE_ADDR"] = "10.0.0.99"
    assert client.post("/api/login", json={"pin": PIN}).status_code == 200


def test_the_wait_doubles_per_address_and_an_ipv6_64_is_one_address(
    app_config: dict[str, object], box: Box, seconds: Seconds
) -> None:
    from buzzerbox.web import create_app

    client = create_app(box, app_config).test_client()
    waits = []
    for n in range(6):
        client.environ_base["REMOTE_ADDR"] = f"fd00::{n + 1}"  # one /64, many addresses
        reply = client.post("/api/login", json={"pin": "0"})
        if reply.status_code == 429:
            waits.append(int(reply.headers["Retry-After"]))
            seconds.now += waits[-1]
            reply = client.post("/api/login", json={"pin": "0"})
        assert reply.status_code == 403
    assert waits == [60, 120, 240]


def test_a_login_without_a_pin_is_a_400(client: FlaskClient) -> None:
    assert client.post("/api/login", data="1234").status_code == 400
    assert client.post("/api/login", json={"pin": 1234}).status_code == 400


def test_viewers_change_nothing(client: FlaskClient, admin: FlaskClient) -> None:
    new_game(admin)
    for path, body in [
        ("/api/game", {"game": "kids", "players": ["A", "B"]}),
        ("/api/event", {"type": "round"}),
        ("/api/pads/press", {"seat": 0, "pad": "stop"}),
        ("/api/import", {}),
    ]:
        reply = client.post(path, json=body)
        assert reply.status_code == 403, path
        assert "admin" in reply.json["error"]  # type: ignore[index]
    assert client.get("/api/state").json["phase"] == "lobby"  # type: ignore[index]


def test_every_change_needs_the_csrf_header(app: object, admin: FlaskClient) -> None:
    del admin.environ_base["HTTP_X_CSRF_TOKEN"]
    reply = admin.post("/api/game", json={"game": "kids", "players": ["A", "B"]})
    assert reply.status_code == 403
    assert "X-CSRF-Token" in reply.json["error"]  # type: ignore[index]
    reply = admin.post("/api/event", json={"type": "round"}, headers={"X-CSRF-Token": "nope"})
    assert reply.status_code == 403


def test_a_new_game_refused_by_the_rules_says_why(admin: FlaskClient) -> None:
    reply = admin.post("/api/game", json={"game": "ligretto", "players": ["Ann"], "target": 70})
    assert reply.status_code == 400
    assert "2 to 12 players" in reply.json["error"]  # type: ignore[index]
    reply = admin.post("/api/game", json={"game": "kids", "players": ["Ann", "x" * 41]})
    assert reply.json == {
        "error": "a name is too long: at most 40 characters",
        "field": "players",
        "code": "name-too-long",
    }


def test_a_refused_entry_names_the_player_it_concerns(
    admin: FlaskClient, clock: ManualClock
) -> None:
    new_game(admin)
    play(admin, {"type": "round"})
    clock.advance(3_000_000)
    assert admin.post("/api/pads/press", json={"seat": 1, "pad": "stop"}).status_code == 200
    reply = admin.post(
        "/api/event", json={"type": "stacks", "counts": {"Ann": 0, "Ben": 0, "Cem": 4}}
    )
    assert reply.status_code == 409
    assert reply.json == {
        "error": "two empty Ligretto stacks: 0 cards is only possible for the caller, Ben; "
        "Ann has 1 to 10 cards left",
        "field": "Ann",
        "code": "zero-not-caller",
    }
    reply = admin.post("/api/event", json={"type": "stacks", "counts": {"Ann": 11, "Ben": 0}})
    assert reply.status_code == 400
    assert reply.json == {
        "error": "the Ligretto stack for Cem missing: give a count for every player",
        "field": "Cem",
        "code": "count-missing",
    }
    state = play(admin, {"type": "stacks", "counts": {"Ann": 2, "Ben": 0, "Cem": 4}})
    assert state["undoable"] == "stacks"


def test_the_box_alone_gives_the_start_signal(admin: FlaskClient) -> None:
    new_game(admin)
    reply = admin.post("/api/event", json={"type": "go", "t_us": 1})
    assert reply.status_code == 400
    assert "go, press and release come from the box" in reply.json["error"]  # type: ignore[index]


def test_bad_bodies_are_400s(admin: FlaskClient) -> None:
    new_game(admin)
    for body in ["[]", "not json", '"round"', "null"]:
        reply = admin.post("/api/event", data=body, content_type="application/json")
        assert reply.status_code == 400, body
        assert "JSON object" in reply.json["error"]  # type: ignore[index]
    reply = admin.post("/api/pads/press", json={"seat": "zero", "pad": "stop"})
    assert reply.status_code == 400


def test_unknown_paths_and_methods_answer_json(client: FlaskClient) -> None:
    assert client.get("/api/nothing").json == {
        "error": "/api/nothing is not a page or an API of the box",
        "code": "not-found",
    }
    assert client.get("/api/event").status_code == 405
    assert client.get("/api/event").json == {
        "error": "GET is not taken by /api/event: it takes OPTIONS, POST",
        "code": "wrong-method",
    }


def test_virtual_pads_press_at_the_time_they_arrive(admin: FlaskClient, clock: ManualClock) -> None:
    new_game(admin, "kids")
    play(admin, {"type": "round"})
    clock.advance(3_000_000)
    clock.now += 1234
    answer = admin.post("/api/pads/press", json={"seat": 2, "pad": "stop"}).json
    state = admin.get("/api/state").json
    assert state is not None
    # the press's seq, on the disk (the test log syncs every commit): the state is streamed
    assert answer == {"seq": state["box"]["seq"], "saved": True}
    assert state["caller"] == "Cem"
    assert state["race"][0]["t_us"] == clock.now
    assert admin.post("/api/pads/release", json={"seat": 2, "pad": "stop"}).status_code == 200


def test_a_virtual_press_is_timed_at_its_key(admin: FlaskClient, clock: ManualClock) -> None:
    """The pads page says when the key was, on the box's clock (issue 24, item 5): two
    keys 3 ms apart whose requests arrive 60 ms apart are 3 ms apart."""
    new_game(admin, "kids")
    play(admin, {"type": "round"})
    clock.advance(3_000_000)
    key = clock.now
    clock.now += 2_000  # Ann's request arrives 2 ms after her key
    first = {"seat": 0, "pad": "stop", "ago_ms": 1, "touch_us": key, "error_us": 300}
    answer = admin.post("/api/pads/press", json=first).json
    assert answer is not None and answer["press_time"] == {
        "t_us": key,
        "from": "touch",
        "error_us": 300,
    }
    clock.now += 60_000  # Ben's waited for Ann's answer: it left 60 ms later
    late = {"seat": 1, "pad": "stop", "ago_ms": 59, "touch_us": key + 3_000, "error_us": 300}
    assert admin.post("/api/pads/press", json=late).status_code == 200
    state = admin.get("/api/state").json
    assert state is not None and state["caller"] == "Ann"
    assert state["race"][0]["t_us"] == key
    assert state["late"][0]["lead_us"] == 3_000, state["late"]
    # the table's own pads: a request slowed 400 ms on its way does not move the key
    clock.now += 500_000
    slowed = {"seat": 1, "pad": "stop", "ago_ms": 0, "touch_us": clock.now - 400_000}
    answer = admin.post("/api/pads/release", json={**slowed, "error_us": 300}).json
    assert answer is not None and answer["press_time"]["t_us"] == clock.now - 400_000
    # a map the box cannot trust: the arrival minus the age, and why
    rough = {"seat": 0, "pad": "stop", "ago_ms": 1, "touch_us": clock.now, "error_us": 90_000}
    answer = admin.post("/api/pads/release", json=rough).json
    assert answer is not None and answer["press_time"]["from"] == "arrival"
    assert "too rough" in answer["press_time"]["why"]


def test_open_pads_let_anyone_press(box: Box, app_config: dict[str, object]) -> None:
    from buzzerbox.web import create_app

    app = create_app(box, {**app_config, "OPEN_PADS": True})
    box.new_game({"game": "kids", "players": ["Ann", "Ben"]})
    viewer = app.test_client()
    assert viewer.post("/api/pads/press", json={"seat": 0, "pad": "stop"}).status_code == 200
    assert viewer.get("/api/state").json["box"]["open_pads"] is True  # type: ignore[index]
    assert viewer.post("/api/event", json={"type": "round"}).status_code == 403
    # a guest's key claimed 900 ms before its request: clamped, as a phone's touch is,
    # to what its link allows (none measured: its arrival)
    at = box.now_us()
    claim = {"seat": 1, "pad": "stop", "ago_ms": 0, "touch_us": at - 900_000, "error_us": 1000}
    answer = viewer.post("/api/pads/release", json=claim).json
    assert answer is not None and answer["press_time"]["clamped_us"] == 900_000
    assert answer["press_time"]["t_us"] == at


def test_the_games_list_and_a_log_exported_and_imported(admin: FlaskClient) -> None:
    new_game(admin, "kids", players=["Ann", "Ben"], variants=["beginners"])
    play(admin, {"type": "round"}, {"type": "finish"})
    exported = admin.get("/api/export/log")
    assert exported.mimetype == "application/x-ndjson"
    assert "attachment" in exported.headers["Content-Disposition"]
    lines = [json.loads(line) for line in exported.get_data(as_text=True).splitlines()]
    assert lines[0] == {
        "type": "game", "game": "kids", "players": ["Ann", "Ben"], "variants": ["beginners"]
    }  # fmt: skip
    state = admin.post("/api/import", data=exported.get_data()).json
    assert state is not None and state["phase"] == "finished" and state["rejected"] == []
    games = admin.get("/api/games").json
    assert [(g["id"], g["finished"], g["winners"]) for g in games] == [  # type: ignore[union-attr]
        (4, True, ["Ann", "Ben"]),
        (1, True, ["Ann", "Ben"]),
    ]
    assert admin.get("/api/export/log?game=1").get_data() == exported.get_data()


def test_an_import_that_is_no_game_log_is_a_400(admin: FlaskClient) -> None:
    reply = admin.post("/api/import", data=b"\xff\xfe")
    assert reply.status_code == 400
    assert admin.post("/api/import", data=b"").status_code == 400


def test_score_exports_of_a_finished_game(client: FlaskClient, admin: FlaskClient) -> None:
    assert client.get("/api/export/csv").status_code == 409
    new_game(admin, "kids", players=["Ann", "Ben"])
    assert client.get("/api/export/bgstats").status_code == 409
    play(admin, {"type": "finish"})
    csv = client.get("/api/export/csv")
    assert csv.mimetype == "text/csv"
    assert csv.get_data(as_text=True).startswith("round,caller,Ann,Ben\r\n")
    bgstats = client.get("/api/export/bgstats").json
    assert bgstats is not None and bgstats["play"]["game"]["name"] == "Ligretto Kids"
    assert client.get("/api/export/csv?game=77").status_code == 404
    assert client.get("/api/export/csv?game=x").status_code == 400


def test_qr_codes(client: FlaskClient, box: Box, app_config: dict[str, object]) -> None:
    from buzzerbox.web import create_app

    svg = client.get("/api/qr/scoreboard.svg")
    assert svg.mimetype == "image/svg+xml" and b"<svg" in svg.data
    assert client.get("/api/qr/wifi.svg").status_code == 404
    wifi = create_app(box, {**app_config, "WIFI_SSID": "Table", "WIFI_PASSWORD": "p"})
    assert wifi.test_client().get("/api/qr/wifi.svg").status_code == 200
    no_urls = create_app(box, {**app_config, "URLS": []})
    assert no_urls.test_client().get("/api/qr/scoreboard.svg").status_code == 404
