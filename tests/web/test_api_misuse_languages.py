"""The refusals of the API's plumbing reach a client in its language too (issue 25): a
body too large (413), a body that is no JSON object, a path or a method the box has
not, a language it does not speak; a press's `why` (the phone shows it) with its
machine `why_code`; and every answer said in a language says it Varies by the headers
that chose it (a cache must not hand a German answer to a French phone)."""

from __future__ import annotations

import pytest
from buzzerbox.box import Box
from buzzerbox.server.language import header_language
from flask.testing import FlaskClient

from .web_fakes import ManualClock, new_game, one_round_of_kids, play

TOKEN = "p" * 24


def test_a_body_too_large_is_refused_in_french(client: FlaskClient) -> None:
    body = b'{"pad": "stop", "x": "' + b"x" * 3000 + b'"}'
    reply = client.post(
        "/api/phones/press",
        data=body,
        content_type="application/json",
        headers={"Accept-Language": "fr"},
    )
    assert reply.status_code == 413
    # the number as French writes it (a narrow no-break space between thousands)
    assert reply.json == {
        "error": f"un appui fait au plus 1 Kio : {len(body):,} octets ont été envoyés".replace(
            ",", "\u202f"
        ),
        "code": "too-large",
    }
    english = client.post("/api/phones/press", data=body, content_type="application/json")
    assert english.json is not None
    assert english.json["error"] == f"a press is at most 1 KiB: {len(body)} bytes were sent"


@pytest.mark.parametrize(
    ("accept", "said"),
    [
        ("de", "ein Tischeintrag ist ein JSON-Objekt (Content-Type: application/json)"),
        ("da", "en indtastning fra bordet er et JSON-objekt (Content-Type: application/json)"),
        ("", "a table entry is a JSON object (Content-Type: application/json)"),
    ],
)
def test_a_body_that_is_no_json_object_is_refused_in_the_language(
    admin: FlaskClient, accept: str, said: str
) -> None:
    new_game(admin)
    headers = {"Accept-Language": accept}
    reply = admin.post("/api/event", data="[]", content_type="application/json", headers=headers)
    assert reply.status_code == 400
    assert reply.json == {"error": said, "code": "not-a-json-object"}


def test_a_path_and_a_method_the_box_has_not_are_said_in_german(client: FlaskClient) -> None:
    german = {"Accept-Language": "de-AT"}
    reply = client.get("/api/nothing", headers=german)
    assert reply.status_code == 404
    assert reply.json == {
        "error": "/api/nothing ist keine Seite und keine API der Box",
        "code": "not-found",
    }
    reply = client.get("/api/event", headers=german)
    assert reply.status_code == 405
    assert reply.json == {
        "error": "/api/event nimmt kein GET: es nimmt OPTIONS, POST",
        "code": "wrong-method",
    }
    reply = client.get("/i18n/xx.json", headers={"Accept-Language": "fr"})
    assert reply.status_code == 404
    assert reply.json == {
        "error": "La box parle en, de, fr, da : pas 'xx'",
        "code": "unknown-language",
    }


def test_a_bad_enrolment_is_refused_in_danish_with_its_field(admin: FlaskClient) -> None:
    new_game(admin)
    reply = admin.post("/api/enrol", json={"reset": 1}, headers={"Accept-Language": "da"})
    assert reply.status_code == 400
    assert reply.json == {
        "error": "reset 1 er ikke tilladt: true eller false",
        "field": "reset",
        "code": "field-not-allowed",
    }


def seated(client: FlaskClient, admin: FlaskClient) -> None:
    new_game(admin)
    assert admin.post("/api/phones", json={"on": True}).status_code == 200
    reply = client.post("/api/phones/seat", json={"seat": 1, "token": TOKEN})
    assert reply.status_code == 200, reply.json


def test_a_press_why_reaches_a_german_phone_in_german(
    client: FlaskClient, admin: FlaskClient, clock: ManualClock
) -> None:
    seated(client, admin)
    play(admin, {"type": "round"})
    clock.advance(3_000_000)
    press = {"token": TOKEN, "pad": "stop", "ago_ms": 12}
    reply = client.post("/api/phones/press", json=press, headers={"Accept-Language": "de"})
    assert reply.status_code == 200, reply.json
    timed = reply.json["press_time"]  # type: ignore[index]
    assert timed["from"] == "arrival"
    assert timed["why"] == "die Uhr des Handys ist noch nicht auf die der Box abgestimmt"
    assert timed["why_code"] == "not-matched"
    assert "Accept-Language" in reply.headers["Vary"]


def test_a_clamped_touch_says_why_in_french_with_french_numbers(
    client: FlaskClient, admin: FlaskClient, box: Box, clock: ManualClock
) -> None:
    seated(client, admin)
    play(admin, {"type": "round"})
    clock.advance(3_000_000)
    link = client.get("/api/clock").json["link"]  # type: ignore[index]
    clock.advance(101_500)  # one round trip of the phone's link: 101.5 ms
    client.get(f"/api/clock?link={link}&follows=1")
    sent = box.now_us()  # ago 0: the request left as it arrived (the clock stands still)
    press = {"token": TOKEN, "pad": "stop", "ago_ms": 0, "touch_us": sent - 900_500}
    reply = client.post(
        "/api/phones/press",
        json={**press, "error_us": 1_000, "link": link},
        headers={"Accept-Language": "fr"},
    )
    timed = reply.json["press_time"]  # type: ignore[index]
    assert timed["why_code"] == "touch-clamped"
    assert timed["why"] == (
        "le toucher a été annoncé 900,5 ms avant l'arrivée de l'appui à la boîte : "
        "le lien de ce téléphone avec la boîte permet 152,25 ms"
    )


def test_answers_said_in_a_language_vary_by_it(
    client: FlaskClient, admin: FlaskClient, box: Box, clock: ManualClock
) -> None:
    one_round_of_kids(admin, clock, box.countdown_us)
    for path in ("/api/export/csv", "/api/export/card.svg", "/", "/api/nothing"):
        reply = client.get(path, headers={"Accept-Language": "da"})
        assert reply.status_code in (200, 404), path
        assert {"Accept-Language", "Cookie"} <= set(reply.vary), (path, reply.vary)
    # the state is every language's: it does not vary
    assert "Accept-Language" not in client.get("/api/state").vary


@pytest.mark.parametrize(
    ("head", "lang"),
    [
        ({"ACCEPT_LANGUAGE": "fr-CA, en;q=0.1"}, "fr"),
        ({"ACCEPT_LANGUAGE": "da", "COOKIE": "lang=de"}, "de"),
        ({"ACCEPT_LANGUAGE": "ja, en-GB;q=0.5"}, "en"),
        ({}, "en"),
    ],
)
def test_the_language_of_a_head_the_guard_refuses(head: dict[str, str], lang: str) -> None:
    assert header_language(head) == lang
