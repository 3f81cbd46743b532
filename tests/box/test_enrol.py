"""Seats by pressing each player's pad: POST /api/enrol on a box with real pads, the
pads it re-seats for the game, kept in the log across a restart; and the pad test's
last edges in the state (box.pad_test)."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from buzzerbox.box import Box, Enrolled
from buzzerbox.box.checks import table_entry
from buzzerbox.box.enrol import PAD_TEST_EDGES
from buzzerbox.box.padtest import PadTestEdge
from buzzerbox.errors import Words
from buzzerbox.pads.fakes.edges import pad_edge
from buzzerbox.pads.padmap import parse_pad_map
from buzzerbox.store.eventlog import EventLog
from buzzerbox.web import create_app
from flask.testing import FlaskClient
from web.web_fakes import PIN, ManualClock, new_game  # type: ignore[import-not-found]

MAP = """
seats = 2
piles = 8
[[board]]
id = "b"
[[pad]]
id = "north"
role = "slap"
seat = 0
board = "b"
ch = 0
[[pad]]
id = "south"
role = "slap"
seat = 1
board = "b"
ch = 1
[[pad]]
id = "pile-7"
role = "pile"
seat = 1
pile = 7
board = "b"
ch = 2
"""


def real_box(db_path: Path, clock: ManualClock) -> Box:
    return Box(EventLog(db_path), clock=clock, pads=parse_pad_map(MAP))


@pytest.fixture
def hw(db_path: Path, clock: ManualClock) -> Iterator[Box]:
    box = real_box(db_path, clock)
    yield box
    box.close()


@pytest.fixture
def hw_admin(hw: Box, app_config: dict[str, Any]) -> FlaskClient:
    client = create_app(hw, app_config).test_client()
    reply = client.post("/api/login", json={"pin": PIN})
    client.environ_base["HTTP_X_CSRF_TOKEN"] = reply.json["csrf"]  # type: ignore[index]
    return client


def seats(state: Mapping[str, Any]) -> dict[str, tuple[str, int, bool]]:
    return {p["id"]: (p["role"], p["seat"], p["enrolled"]) for p in state["box"]["pads"]}


def tap(box: Box, clock: ManualClock, pad: str) -> None:
    clock.now += 1000
    box.pad_edge(pad_edge(pad, True, clock.now))
    clock.now += 50_000
    box.pad_edge(pad_edge(pad, False, clock.now))


def test_the_next_press_enrols_its_pad_for_the_seat(
    hw: Box, hw_admin: FlaskClient, clock: ManualClock
) -> None:
    state = new_game(hw_admin, "kids", players=["Ann", "Ben"])
    assert seats(state)["south"] == ("slap", 1, False)  # the pad map's seat
    reply = hw_admin.post("/api/enrol", json={"seat": 0})
    assert reply.status_code == 200, reply.json
    assert reply.json["box"]["enrolling"] == 0  # type: ignore[index]
    clock.now += 1000
    assert hw.pad_edge(pad_edge("south", True, clock.now)) == Enrolled(0, "enrolled for Ann")
    clock.now += 50_000
    released = hw.pad_edge(pad_edge("south", False, clock.now))
    assert released == Enrolled(None, "released after its enrolment")
    state = hw_admin.get("/api/state").json or {}
    assert state["box"]["enrolling"] is None
    # Ann's now, as the stop pad of Ligretto Kids (the map calls it a slap pad)
    assert seats(state)["south"] == ("stop", 0, True)
    assert seats(state)["north"] == ("slap", 0, False)
    label = next(p["label"] for p in state["box"]["pads"] if p["id"] == "south")
    assert label == "stop · pad south"  # under Ann's name on the table view
    # the enrolling press was taken, not played: no false start, nothing in the game log
    assert state["false_starts"] == []
    assert [e.body["type"] for e in hw.log.events(hw.game_id or 0)] == ["game"]
    assert hw.pad_refusals == 0
    notes = [(e["pad"], e["edge"], e["note"]) for e in state["box"]["pad_test"]]
    assert notes == [
        ("south", "press", "enrolled for Ann"),
        ("south", "release", "released after its enrolment"),
    ]
    # and in play it is Ann's stop pad
    hw_admin.post("/api/event", json={"type": "round"})
    clock.advance(hw.countdown_us)
    tap(hw, clock, "south")
    assert hw.state()["caller"] == "Ann"
    assert hw.log.events(hw.game_id or 0)[-2].body["pad_id"] == "south"


def test_enrolments_survive_a_restart_and_belong_to_their_game(
    hw: Box, hw_admin: FlaskClient, clock: ManualClock, db_path: Path
) -> None:
    new_game(hw_admin, "twinit", players=["Ann", "Ben"])
    hw_admin.post("/api/enrol", json={"seat": 1})
    tap(hw, clock, "north")
    hw_admin.post("/api/enrol", json={"seat": 0})
    tap(hw, clock, "gpio:26")  # a pad the map does not name plays the game's seat pad
    again = real_box(db_path, ManualClock(now=clock.now))
    pads = seats(again.state())
    assert pads["north"] == ("slap", 1, True)
    assert pads["gpio:26"] == ("slap", 0, True)
    assert "south" not in pads  # north replaced it as Ben's slap pad
    again.close()
    state = new_game(hw_admin, "twinit", players=["Ann", "Ben"])
    assert seats(state)["north"] == ("slap", 0, False)  # a new game starts from the map


def test_a_pile_pad_stays_a_pile_and_needs_its_pile(
    hw: Box, hw_admin: FlaskClient, clock: ManualClock
) -> None:
    new_game(hw_admin, "twist", players=["Ann", "Ben"])  # 4 piles with two players
    hw_admin.post("/api/enrol", json={"seat": 0})
    tap(hw, clock, "pile-7")
    state = hw.state()
    assert state["box"]["enrolling"] == 0  # still waiting for a pad it can enrol
    assert state["box"]["pad_test"][-2]["note"] == (
        "not enrolled: pad pile-7 is pile 8 and Ligretto Twist with 2 players has 4 piles"
    )
    new_game(hw_admin, "twist", players=["Ann", "Ben", "Cem"])  # 8 piles
    hw_admin.post("/api/enrol", json={"seat": 2})
    tap(hw, clock, "pile-7")
    pad = next(p for p in hw.state()["box"]["pads"] if p["id"] == "pile-7")
    assert (pad["role"], pad["seat"], pad["pile"], pad["label"]) == (
        "pile", 2, 7, "pile 8 · pad pile-7"
    )  # fmt: skip


def test_enrolment_is_between_rounds_and_a_round_ends_it(
    hw: Box, hw_admin: FlaskClient, clock: ManualClock
) -> None:
    new_game(hw_admin, "kids", players=["Ann", "Ben"])
    hw_admin.post("/api/enrol", json={"seat": 1})
    state = hw_admin.post("/api/event", json={"type": "round"}).json
    assert state is not None and state["box"]["enrolling"] is None
    reply = hw_admin.post("/api/enrol", json={"seat": 1})
    assert reply.status_code == 409
    assert reply.json == {
        "error": "pads are enrolled while no round is on: round 1 is counting down; "
        "enrol before round 1 or once a round is scored",
        "code": "not-now",
    }
    clock.advance(hw.countdown_us)
    tap(hw, clock, "north")  # played, not enrolled
    assert hw.state()["caller"] is None  # a slap pad in Ligretto Kids: refused by the rules
    assert hw.pad_refusals == 2


def test_a_wrong_enrolment_is_refused_and_cancel_and_reset_undo_it(
    hw: Box, hw_admin: FlaskClient, client: FlaskClient, clock: ManualClock
) -> None:
    assert hw_admin.post("/api/enrol", json={"seat": 0}).status_code == 409  # no game
    new_game(hw_admin, "kids", players=["Ann", "Ben"])
    reply = hw_admin.post("/api/enrol", json={"seat": 2})
    assert reply.status_code == 400
    assert reply.json == {
        "error": "seat 2 does not exist: this game has seats 0-1",
        "field": "seat",
        "code": "no-seat",
    }
    assert hw_admin.post("/api/enrol", json={"seat": True}).status_code == 400
    assert hw_admin.post("/api/enrol", json={}).status_code == 400
    hw_admin.post("/api/enrol", json={"seat": 1})
    state = hw_admin.post("/api/enrol", json={"seat": None}).json
    assert state is not None and state["box"]["enrolling"] is None
    hw_admin.post("/api/enrol", json={"seat": 1})
    tap(hw, clock, "north")
    assert seats(hw.state())["north"] == ("stop", 1, True)
    state = hw_admin.post("/api/enrol", json={"reset": True}).json
    assert state is not None and seats(state)["north"] == ("slap", 0, False)
    assert hw.log.enrolments(hw.game_id or 0) == {}
    del hw_admin.environ_base["HTTP_X_CSRF_TOKEN"]
    assert hw_admin.post("/api/enrol", json={"seat": 0}).status_code == 403
    assert client.post("/api/enrol", json={"seat": 0}).status_code == 403


def test_a_simulated_box_needs_no_enrolment(admin: FlaskClient) -> None:
    new_game(admin, "kids", players=["Ann", "Ben"])
    reply = admin.post("/api/enrol", json={"seat": 0})
    assert reply.status_code == 409
    assert "virtual pad per seat" in reply.json["error"]  # type: ignore[index]


def test_the_pad_test_shows_the_last_edges_of_real_and_virtual_pads(
    hw: Box, admin: FlaskClient, box: Box, clock: ManualClock
) -> None:
    hw.pad_edge(pad_edge("nowhere", True, clock.now))  # before any game, not in the map
    state = hw.state()
    assert state["box"]["pad_test"] == [
        {
            "n": 1,
            "pad": "nowhere",
            "role": None,
            "seat": None,
            "pile": None,
            "edge": "press",
            "t_us": clock.now,
            "note": "not in the pad map",
            # the state is every phone's: the note in each of the box's other languages
            "note_said": {
                "de": "nicht in der Tasterbelegung",
                "fr": "absent de la carte des boutons",
                "da": "ikke i knapkortet",
            },
        }
    ]
    hw.pad_edge(pad_edge("south", True, clock.now + 5))
    edge = hw.state()["box"]["pad_test"][-1]
    assert (edge["pad"], edge["role"], edge["seat"]) == ("south", "slap", 1)
    assert str(edge["note"]).startswith("refused: no game has started")
    # the rules' refusal in the note is said in the language too, not left in English
    assert edge["note_said"]["fr"].startswith("refusé : ")
    assert "no game has started" not in edge["note_said"]["fr"]
    for n in range(PAD_TEST_EDGES):
        hw.pad_edge(pad_edge("north", n % 2 == 0, clock.now + 10 + n))
    assert len(hw.state()["box"]["pad_test"]) == PAD_TEST_EDGES
    # a simulated box shows its virtual pads' edges, with their ids
    new_game(admin, "twist", players=["Ann", "Ben"])
    admin.post("/api/pads/press", json={"seat": 1, "pad": "pile", "pile": 2})
    edge = admin.get("/api/state").json["box"]["pad_test"][-1]  # type: ignore[index]
    assert edge == {
        "n": 1,
        "pad": "s1-pile2",
        "role": "pile",
        "seat": 1,
        "pile": 2,
        "edge": "press",
        "t_us": edge["t_us"],
        "note": None,  # played: a false start in the lobby
    }


def test_pad_edges_are_on_the_console_while_no_round_plays(
    hw: Box, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="buzzerbox.box.enrol")
    hw.new_game({"game": "twinit", "players": ["Ann", "Ben"]})
    hw.pad_edge(pad_edge("north", True, clock.now))
    assert caplog.messages == [f"pad north press: slap of seat 0 at {hw.now_us()} µs"]
    hw.submit(table_entry({"type": "round"}))
    clock.advance(hw.countdown_us)
    hw.pad_edge(pad_edge("south", True, clock.now))  # in play: DEBUG, not on the console
    claim = hw.state()["claim"]
    assert claim is not None and claim["claimant"] == "Ben"
    assert len(caplog.messages) == 1


def test_a_rematch_keeps_players_settings_and_pads(
    hw: Box, hw_admin: FlaskClient, clock: ManualClock
) -> None:
    first = new_game(hw_admin, "kids", players=["Ann", "Ben"], rounds=2)
    hw_admin.post("/api/enrol", json={"seat": 0})
    tap(hw, clock, "south")
    hw_admin.post("/api/event", json={"type": "finish"})
    state = hw_admin.post("/api/rematch").json or {}
    assert state["box"]["game_id"] != first["box"]["game_id"]
    assert [p["name"] for p in state["players"]] == ["Ann", "Ben"]
    assert (state["phase"], state["rounds"]) == ("lobby", 2)
    assert seats(state)["south"] == ("stop", 0, True)  # still Ann's, enrolled
    assert state["box"]["pad_test"] == []  # the new game's pad test starts empty


def test_a_rematch_needs_a_game(client: FlaskClient, admin: FlaskClient) -> None:
    assert client.post("/api/rematch").status_code == 403
    reply = admin.post("/api/rematch")
    assert reply.status_code == 409
    assert "a rematch repeats one" in reply.json["error"]  # type: ignore[index]


def test_enrolling_a_pad_replaces_the_seats_pad_of_that_role(
    hw: Box, hw_admin: FlaskClient, clock: ManualClock, db_path: Path
) -> None:
    new_game(hw_admin, "twinit", players=["Ann", "Ben"])
    hw_admin.post("/api/enrol", json={"seat": 0})
    tap(hw, clock, "south")  # Ann's slap pad now: north was hers, it is replaced
    state = hw_admin.get("/api/state").json or {}
    assert seats(state)["south"] == ("slap", 0, True)
    assert "north" not in seats(state)
    notes = [e["note"] for e in state["box"]["pad_test"]]
    assert notes[0] == "enrolled for Ann (replaces pad north)"
    tap(hw, clock, "north")  # says why it plays no more
    last = (hw_admin.get("/api/state").json or {})["box"]["pad_test"][-1]
    assert last["note"] == "replaced: another pad plays its seat now"
    # kept in the log: a restarted box has one slap pad for Ann
    again = real_box(db_path, ManualClock(now=clock.now))
    try:
        assert [p.id for p in again.pads() if p.seat == 0] == ["south"]
    finally:
        again.close()


def test_a_pad_test_edge_is_the_same_json_until_its_note_is_set() -> None:
    """Its JSON is made once and kept (every state carries it; the live stream's delta
    then finds it unchanged by identity), and made again when its fate is noted."""
    edge = PadTestEdge(1, "north", "slap", 0, None, True, 5_000)
    first = edge.to_json()
    assert edge.to_json() is first and first["note"] is None
    edge.noted(Words("not in the pad map"))
    noted = edge.to_json()
    assert noted is not first and noted["note"] == "not in the pad map"
    assert first["note"] is None  # a state already shown keeps what it said
