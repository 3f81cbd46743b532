"""Rematch keeps the guests' phone seats (issue 24, item 2): the same players in the same
seats, so each guest's phone stays their buzzer; a new game still frees them all.
And which seats' phones are offline (item 8): a seat's phone says it is there
(POST /api/phones/here, and each press); the presence watch, on the box's driven
clock, marks a seat offline once it has gone unheard for too long, and it is back with
the next word from its phone."""

from __future__ import annotations

import pytest
from buzzerbox.box import Box
from buzzerbox.box.phones import PhonesJson
from buzzerbox.box.presence import PresenceWatch
from flask.testing import FlaskClient
from web.web_fakes import ManualClock, new_game  # type: ignore[import-not-found]

ANN = "a" * 20
BEN = "b" * 20
SECOND = 1_000_000


def seated(client: FlaskClient, admin: FlaskClient) -> None:
    """A game of three, phones as pads, Ann's phone at seat 0 and Ben's at seat 2."""
    new_game(admin)
    admin.post("/api/phones", json={"on": True})
    assert client.post("/api/phones/seat", json={"seat": 0, "token": ANN}).status_code == 200
    assert client.post("/api/phones/seat", json={"seat": 2, "token": BEN}).status_code == 200


def test_a_rematch_keeps_each_phones_seat(
    client: FlaskClient, admin: FlaskClient, box: Box
) -> None:
    seated(client, admin)
    first = box.game_id
    state = admin.post("/api/rematch", json={}).json
    assert state["box"]["game_id"] != first  # type: ignore[index]
    assert state["box"]["phones"] == {"on": True, "taken": [0, 2]}  # type: ignore[index]
    assert box.phone_seat(ANN) == 0 and box.phone_seat(BEN) == 2
    # the phones press as their seats in the rematch, no new pick
    assert client.post("/api/phones/here", json={"token": BEN}).status_code == 200
    # a new game of other players frees them all, as before
    other = new_game(admin, players=["Dora", "Eli", "Fay"])
    assert other["box"]["phones"] == {"on": True, "taken": []}


def test_every_phone_asking_for_its_seat_at_a_new_game_is_answered_not_refused(
    client: FlaskClient, admin: FlaskClient, box: Box
) -> None:
    """Issue 41: a new game frees every seat and each phone that held one asks for it
    (POST /api/phones/here); each had a 409. The answer is its seat: none."""
    seated(client, admin)
    new_game(admin, players=["Dora", "Eli", "Fay"])
    for token in (ANN, BEN):
        here = client.post("/api/phones/here", json={"token": token})
        assert here.status_code == 200, here.json
        assert here.json["seat"] is None  # type: ignore[index]
        assert here.json["game_id"] == box.game_id  # type: ignore[index]
    admin.post("/api/phones", json={"on": False})  # phones off is still a refusal
    assert client.post("/api/phones/here", json={"token": ANN}).status_code == 409


def test_a_new_game_of_the_same_players_takes_each_phone_to_its_players_seat(
    client: FlaskClient, admin: FlaskClient, box: Box
) -> None:
    """Not only the table's Rematch: Stats' rematch of the game before, or a new game of
    the same players (in another order, another game) finds each guest's seat again."""
    seated(client, admin)  # Ann's phone at seat 0 (Ann), Ben's at seat 2 (Cem)
    state = new_game(admin, "twist", players=["Cem", "Ann", "Ben"])
    assert state["box"]["phones"] == {"on": True, "taken": [0, 1]}
    assert box.phone_seat(ANN) == 1 and box.phone_seat(BEN) == 0  # Ann's; Cem's
    here = client.post("/api/phones/here", json={"token": ANN}).json
    assert here["seat"] == 1 and here["game_id"] == box.game_id  # type: ignore[index]
    # one player more (or fewer) is another table: every seat is free
    more = new_game(admin, players=["Cem", "Ann", "Ben", "Dora"])
    assert more["box"]["phones"] == {"on": True, "taken": []}


def test_stats_rematch_of_the_game_before_keeps_the_seats(
    client: FlaskClient, admin: FlaskClient, box: Box
) -> None:
    seated(client, admin)
    first = box.game_id
    admin.post("/api/phones/free", json={"seat": 2})  # Ben's phone left the table
    reply = admin.post(f"/api/games/{first}/rematch", json={})
    assert reply.status_code == 200, reply.json
    assert reply.json["box"]["game_id"] != first  # type: ignore[index]
    assert reply.json["box"]["phones"] == {"on": True, "taken": [0]}  # type: ignore[index]
    assert box.phone_seat(ANN) == 0


def test_a_seat_whose_phone_goes_quiet_is_offline_until_it_is_heard_again(
    client: FlaskClient, admin: FlaskClient, box: Box, clock: ManualClock
) -> None:
    watch = PresenceWatch(box, after_us=10 * SECOND, every_us=SECOND).start()
    try:
        seated(client, admin)
        published: list[PhonesJson] = []
        box.when_changed.append(lambda state: published.append(state["box"]["phones"]))
        for _ in range(6):  # Ann's phone says it is there every 3 s, Ben's is silent
            clock.advance(3 * SECOND)
            assert client.post("/api/phones/here", json={"token": ANN}).status_code == 200
        phones = box.state()["box"]["phones"]
        assert phones == {"on": True, "taken": [0, 2], "offline": [2]}
        assert published == [phones]  # announced once, when it changed; not every tick
        # Ben's phone comes back: his seat is not offline (announced at once)
        assert client.post("/api/phones/here", json={"token": BEN}).status_code == 200
        assert "offline" not in box.state()["box"]["phones"]
        # Ann's phone goes quiet too, Ben's press counts as word from it
        admin.post("/api/event", json={"type": "round"})
        clock.advance(4 * SECOND)  # the countdown: go
        for _ in range(4):
            clock.advance(3 * SECOND)
            client.post("/api/phones/here", json={"token": BEN})
        assert box.state()["box"]["phones"]["offline"] == [0]
        client.post("/api/phones/press", json={"token": ANN, "pad": "stop"})
        assert "offline" not in box.state()["box"]["phones"]
        # the host frees a quiet seat: it is no longer listed; the phone learns it has no
        # seat (an answer, no refusal), and its press is refused
        clock.advance(11 * SECOND)
        assert box.state()["box"]["phones"]["offline"] == [0, 2]
        admin.post("/api/phones/free", json={"seat": 0})
        assert box.state()["box"]["phones"]["offline"] == [2]
        here = client.post("/api/phones/here", json={"token": ANN})
        assert here.status_code == 200 and here.json["seat"] is None  # type: ignore[index]
        assert box.state()["box"]["phones"]["offline"] == [2]
        refused = client.post("/api/phones/press", json={"token": ANN, "pad": "stop"})
        assert refused.status_code == 409
        assert "this phone has no seat" in refused.json["error"]  # type: ignore[index]
    finally:
        watch.stop()


def test_the_watch_stops_and_refuses_a_time_of_nothing(box: Box, clock: ManualClock) -> None:
    watch = PresenceWatch(box, after_us=SECOND, every_us=SECOND).start()
    watch.stop()
    assert all(t.is_cancelled for t in clock.timers)
    clock.advance(5 * SECOND)
    assert not clock.timers  # no tick comes after stop
    with pytest.raises(ValueError, match="above 0"):
        PresenceWatch(box, after_us=0)
