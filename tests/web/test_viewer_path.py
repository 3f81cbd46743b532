"""A viewer's live stream opened below Flask (web/stream.py, `ViewerPath`; issue 40's
"at the door"): the same admission and the same head as the Flask route's, without
Flask's request machinery; everything else, and a viewer's refusal in its language,
through Flask as before. Under waitress with the fanout: tests/web/test_serve.py,
tests/faults/test_stream_crowd.py."""

from __future__ import annotations

from typing import Any

import pytest
from buzzerbox.box import Box
from buzzerbox.errors import StoreError, Words
from buzzerbox.fixtures import PIN
from buzzerbox.server.streams import StreamPlaces
from buzzerbox.web import create_app
from buzzerbox.web.stream import StreamDoor
from flask import Flask, request


def counted_app(box: Box, config: dict[str, Any]) -> tuple[Flask, list[str]]:
    """The box's app, and the paths of the requests Flask itself saw."""
    app = create_app(box, config)
    seen: list[str] = []
    app.before_request(lambda: seen.append(request.path))
    return app, seen


def head(response: Any) -> list[tuple[str, str]]:
    return sorted(response.headers.items())


def first_chunk(response: Any) -> bytes:
    return bytes(next(iter(response.response)))


def test_a_viewers_stream_opens_below_flask_with_the_head_flask_gives_it(
    box: Box, app_config: dict[str, Any]
) -> None:
    app, seen = counted_app(box, app_config)
    viewer = app.test_client().get("/api/events", buffered=False)
    assert viewer.status_code == 200 and seen == []
    assert first_chunk(viewer).startswith(b"retry: ")
    # a session's cookie that is no session: a viewer, through Flask
    other = app.test_client()
    other.set_cookie("session", "none")
    through_flask = other.get("/api/events", buffered=False)
    assert through_flask.status_code == 200 and seen == ["/api/events"]
    assert head(viewer) == head(through_flask)
    assert ("Vary", "Cookie") in head(viewer)
    viewer.close()
    through_flask.close()


def test_the_admins_stream_goes_through_flask(box: Box, app_config: dict[str, Any]) -> None:
    app, seen = counted_app(box, app_config)
    admin = app.test_client()
    assert admin.post("/api/login", json={"pin": PIN}).status_code == 200
    seen.clear()
    response = admin.get("/api/events", buffered=False)
    assert response.status_code == 200 and seen == ["/api/events"]
    assert b'"admin":true' in first_chunk(response).replace(b" ", b"")
    response.close()


@pytest.mark.parametrize(
    "environ",
    [
        {"cookie": "buzzerbox_tv"},
        {"cookie": "buzzerbox_seat"},
        {"cookie": "session"},
        {"CONTENT_LENGTH": "2"},
        {"HTTP_TRANSFER_ENCODING": "chunked"},
    ],
)
def test_a_stream_that_may_be_a_members_or_has_a_body_goes_through_flask(
    box: Box, app_config: dict[str, Any], environ: dict[str, str]
) -> None:
    app, seen = counted_app(box, app_config)
    client = app.test_client()
    if "cookie" in environ:  # a member's, or not: Flask's to say (web/members.py)
        client.set_cookie(environ.pop("cookie"), "x")
    response = client.get("/api/events", buffered=False, environ_overrides=environ)
    assert seen == ["/api/events"]
    response.close()


def test_a_viewer_with_its_language_switched_opens_below_flask(
    box: Box, app_config: dict[str, Any]
) -> None:
    app, seen = counted_app(box, app_config)
    client = app.test_client()
    client.set_cookie("lang", "de")
    response = client.get("/api/events", buffered=False)
    assert response.status_code == 200 and seen == []
    response.close()


def test_a_refused_viewer_is_refused_in_its_language_and_asked_for_a_place_once(
    box: Box, app_config: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(box, {**app_config, "SSE_MAX_CLIENTS": 1})
    asked: list[str] = []
    enter = StreamPlaces.enter

    def counted(self: StreamPlaces, host: str, who: str, *rest: Any) -> Any:
        asked.append(who)
        return enter(self, host, who, *rest)

    monkeypatch.setattr(StreamPlaces, "enter", counted)
    first = app.test_client().get("/api/events", buffered=False)
    other = {"REMOTE_ADDR": "10.0.0.7"}
    refused = app.test_client().get(
        "/api/events", headers={"Accept-Language": "de"}, environ_base=other
    )
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
    assert refused.json is not None and refused.json["code"] == "box-full"
    assert refused.json["error"].startswith("Die Box bedient")  # said in German
    assert "Accept-Language" in refused.headers["Vary"]
    assert asked == ["viewer", "viewer"]  # one each: the refused one not asked again
    first.close()


def test_an_error_opening_a_viewers_stream_is_answered_by_the_apps_handlers(
    box: Box, app_config: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(box, app_config)

    def broken(*_: Any) -> Any:
        raise StoreError(Words("the log {path} cannot be opened: {why}", {"path": "x", "why": "?"}))

    monkeypatch.setattr(StreamDoor, "open", broken)
    reply = app.test_client().get("/api/events", headers={"Accept-Language": "de"})
    assert reply.status_code == 503 and reply.is_json
    assert reply.json is not None and reply.json["error"].startswith("Das Protokoll")
