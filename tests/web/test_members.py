"""Who belongs to the table for the live stream's places (web/members.py, issue 39,
item 2): the seat's cookie only for a phone that holds a seat, the TV's pairing link
for the admin only, and a wrong link refused in the guest's language. The places they
give on a real box under a crowd: tests/faults/test_stream_crowd.py."""

from __future__ import annotations

from buzzerbox.fixtures import PIN
from flask import Flask
from flask.testing import FlaskClient

TOKEN = "members-test-token-0123456789"


def test_a_seated_phone_gets_its_seats_cookie_and_a_refused_one_none(
    admin: FlaskClient, client: FlaskClient
) -> None:
    admin.post("/api/game", json={"game": "ligretto", "players": ["Ann", "Ben"]})
    assert admin.post("/api/phones", json={"on": True}).status_code == 200
    taken = client.post("/api/phones/seat", json={"seat": 0, "token": TOKEN})
    assert taken.status_code == 200
    assert f"buzzerbox_seat={TOKEN}" in taken.headers.get("Set-Cookie", "")
    other = "someone-elses-token-0123456789"
    refused = client.post("/api/phones/seat", json={"seat": 0, "token": other})
    assert refused.status_code != 200 and "Set-Cookie" not in refused.headers


def test_only_the_admin_gets_the_tv_link_and_a_wrong_one_is_refused_in_german(
    admin: FlaskClient, client: FlaskClient
) -> None:
    assert client.get("/api/tv/pair").status_code == 403
    path = admin.get("/api/tv/pair").json["path"]  # type: ignore[index]
    paired = client.get(path)
    assert paired.status_code == 302 and paired.headers["Location"].endswith("/tv")
    assert "buzzerbox_tv=" in paired.headers["Set-Cookie"]
    wrong = client.get("/tv/pair/" + "0" * 32, headers={"Accept-Language": "de"})
    assert wrong.status_code == 404 and "Set-Cookie" not in wrong.headers
    assert "TV-Link dieser Box" in wrong.get_data(as_text=True)


def test_the_tv_link_is_on_the_address_the_admin_came_by_and_as_a_qr_code(
    app: Flask, admin: FlaskClient, client: FlaskClient
) -> None:
    here = admin.get("/api/tv/pair").json  # opened on the box itself: its first address
    assert here is not None and here["url"] == "http://box.local:8000" + here["path"]
    away = app.test_client()  # the admin's phone, at the box's address on the Wi-Fi
    assert (
        away.post("/api/login", json={"pin": PIN}, base_url="http://10.0.0.5:8000").status_code
        == 200
    )
    there = away.get("/api/tv/pair", base_url="http://10.0.0.5:8000").json
    assert there is not None and there["url"] == "http://10.0.0.5:8000" + there["path"]
    code = admin.get("/api/qr/tv.svg")
    assert code.status_code == 200 and code.mimetype == "image/svg+xml"
    assert b"<svg" in code.data
    assert client.get("/api/qr/tv.svg").status_code == 403
