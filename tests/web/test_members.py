"""Who belongs to the table for the live stream's places (web/members.py, issue 39,
item 2): the seat's cookie only for a phone that holds a seat, the TV's pairing link
for the admin only, and a wrong link refused in the guest's language. The places they
give on a real box under a crowd: tests/faults/test_stream_crowd.py."""

from __future__ import annotations

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
