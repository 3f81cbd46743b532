"""A refusal of the rules, the box and the web reaches a phone in the phone's language
(Accept-Language, or the switch's cookie) with its `code` and `field` unchanged; the
English is the words the API always said. The score sheet's headers and the result
card are in the reader's language too."""

from __future__ import annotations

import csv
import io

import pytest
from buzzerbox.box import Box
from flask.testing import FlaskClient

from .web_fakes import ManualClock, new_game, one_round_of_kids, play

TOO_MANY = {"type": "stacks", "counts": {"Ann": 11, "Ben": 3, "Cem": 4}}


def called_by_ben(admin: FlaskClient, clock: ManualClock) -> None:
    new_game(admin)
    play(admin, {"type": "round"})
    clock.advance(3_000_000)
    assert admin.post("/api/pads/press", json={"seat": 1, "pad": "stop"}).status_code == 200


@pytest.mark.parametrize(
    ("accept", "said"),
    [
        ("fr-CH, fr;q=0.9, en;q=0.5", "Ann : 11 cartes dans la pile Ligretto, c'est impossible"),
        ("de-DE,de;q=0.9", "Ann: 11 Karten im Ligretto-Stapel gibt es nicht: er hat 0 bis 10"),
        ("da", "Ann: 11 kort i Ligretto-bunken er umuligt: den har 0 til 10"),
        ("", "Ann: 11 cards in the Ligretto stack is impossible: it holds 0 to 10"),
        ("en-GB", "Ann: 11 cards in the Ligretto stack is impossible: it holds 0 to 10"),
    ],
)
def test_a_count_out_of_range_is_refused_in_the_phones_language(
    admin: FlaskClient, clock: ManualClock, accept: str, said: str
) -> None:
    called_by_ben(admin, clock)
    reply = admin.post("/api/event", json=TOO_MANY, headers={"Accept-Language": accept})
    assert reply.status_code == 409
    assert reply.json is not None
    assert reply.json["error"].startswith(said)
    assert reply.json["code"] == "count-out-of-range"
    assert reply.json["field"] == "Ann"


def test_the_switch_wins_over_the_browser_for_a_refusal(
    admin: FlaskClient, clock: ManualClock
) -> None:
    called_by_ben(admin, clock)
    admin.set_cookie("lang", "fr")
    reply = admin.post(
        "/api/event",
        json={"type": "stacks", "counts": {"Ann": 0, "Ben": 0, "Cem": 4}},
        headers={"Accept-Language": "de"},
    )
    assert reply.json == {
        "error": "Deux piles Ligretto vides : 0 carte n'est possible que pour qui a crié Stop, "
        "Ben ; il reste à Ann 1 à 10 cartes",
        "field": "Ann",
        "code": "zero-not-caller",
    }


def test_a_refusal_of_the_phase_says_where_the_game_stands_in_german(
    admin: FlaskClient,
) -> None:
    new_game(admin)
    play(admin, {"type": "round"})
    reply = admin.post("/api/event", json={"type": "round"}, headers={"Accept-Language": "de"})
    assert reply.status_code == 409
    assert reply.json == {
        "error": "Keine neue Runde: der Countdown von Runde 1 läuft; warte auf das Startsignal",
        "code": "not-now",
    }


def test_a_new_game_refused_by_the_rules_in_danish_with_its_plural(admin: FlaskClient) -> None:
    body = {"game": "twist", "players": ["Ann"]}
    reply = admin.post("/api/game", json=body, headers={"Accept-Language": "da"})
    assert reply.status_code == 400
    assert reply.json == {
        "error": "Ligretto Twist er for 2 til 4 spillere: 1 blev nævnt",
        "field": "players",
        "code": "players-out-of-range",
    }
    body = {"game": "twist", "players": list("ABCDE")}
    reply = admin.post("/api/game", json=body, headers={"Accept-Language": "de"})
    assert reply.json is not None
    assert reply.json["error"] == "Ligretto Twist ist für 2 bis 4 Spieler: 5 wurden genannt"


def test_a_phones_refusal_and_a_login_refusal_are_in_the_phones_language(
    client: FlaskClient, admin: FlaskClient
) -> None:
    new_game(admin)
    body = {"seat": 0, "token": "t" * 20}
    reply = client.post("/api/phones/seat", json=body, headers={"Accept-Language": "fr"})
    assert reply.status_code == 409
    assert reply.json == {
        "error": "Les téléphones ne sont pas des buzzers pour l'instant : "
        "l'hôte les active dans la vue de la table",
        "code": "phones-off",
    }
    reply = client.post("/api/login", json={"pin": "0000"}, headers={"Accept-Language": "de"})
    assert reply.status_code == 403
    assert reply.json == {
        "error": "Falsche PIN: die PIN steht beim Start auf der Konsole der Box",
        "code": "wrong-pin",
    }


def test_the_score_sheet_and_the_result_card_are_in_the_readers_language(
    client: FlaskClient, admin: FlaskClient, box: Box, clock: ManualClock
) -> None:
    one_round_of_kids(admin, clock, box.countdown_us)
    german = client.get("/api/export/csv", headers={"Accept-Language": "de"})
    rows = list(csv.reader(io.StringIO(german.get_data(as_text=True))))
    assert [rows[0][:2], rows[-2][0], rows[-1][0]] == [["Runde", "Rufer"], "Summe", "Platz"]
    english = list(csv.reader(io.StringIO(client.get("/api/export/csv").get_data(as_text=True))))
    assert [english[0][:2], english[-2][0], english[-1][0]] == [
        ["round", "caller"],
        "total",
        "rank",
    ]
    card = client.get("/api/export/card.svg", headers={"Accept-Language": "fr"})
    assert "Ann gagne !" in card.get_data(as_text=True)
    assert "1 manche" in card.get_data(as_text=True)
    assert "Ann wins!" in client.get("/api/export/card.svg").get_data(as_text=True)
