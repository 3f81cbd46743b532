"""The live stream through Flask's test client (one thread per stream; the fanout that
serves it under waitress is tested against a real server in test_serve.py)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from buzzerbox.box import Box
from buzzerbox.web import create_app
from buzzerbox.web.sse import Hub, StreamSettings, stream
from flask import Flask
from flask.testing import FlaskClient

from .web_fakes import new_game, play


def messages(chunk: bytes) -> list[dict[str, Any]]:
    """The `state` messages in a chunk of the stream: their id and data."""
    out = []
    for block in chunk.decode().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if fields.get("event") == "state":
            out.append({"id": int(fields["id"]), "data": json.loads(fields["data"])})
    return out


def open_stream(client: FlaskClient, **headers: str) -> tuple[Any, Iterator[bytes]]:
    response = client.get("/api/events", buffered=False, headers=headers)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    return response, iter(response.response)  # type: ignore[arg-type]


def test_a_stream_starts_with_the_full_state_then_follows_each_change(
    client: FlaskClient, admin: FlaskClient
) -> None:
    new_game(admin)
    response, chunks = open_stream(client)
    first = next(chunks)
    assert first.startswith(b"retry: 2000\n\n")
    [hello] = messages(first)
    assert hello["id"] == 1
    assert hello["data"]["phase"] == "lobby"
    assert hello["data"]["box"]["admin"] is False
    play(admin, {"type": "round"})
    [update] = messages(next(chunks))
    assert update["id"] == 2
    assert update["data"]["phase"] == "countdown"
    assert update["data"]["box"]["countdown_ends_us"] is not None
    response.close()


def test_the_admin_stream_says_admin(admin: FlaskClient) -> None:
    new_game(admin)
    response, chunks = open_stream(admin)
    assert messages(next(chunks))[0]["data"]["box"]["admin"] is True
    play(admin, {"type": "round"})
    assert messages(next(chunks))[0]["data"]["box"]["admin"] is True
    response.close()


def test_last_event_id_resumes_without_resending_the_current_state(
    client: FlaskClient, admin: FlaskClient
) -> None:
    new_game(admin)
    response, chunks = open_stream(client, **{"Last-Event-ID": "1"})
    assert next(chunks) == b"retry: 2000\n\n"
    play(admin, {"type": "round"})
    assert [m["id"] for m in messages(next(chunks))] == [2]
    response.close()
    response, chunks = open_stream(client, **{"Last-Event-ID": "1"})  # a phone that slept
    assert [m["id"] for m in messages(next(chunks))] == [2]
    response.close()


def test_a_slow_stream_skips_to_the_latest_state(client: FlaskClient, admin: FlaskClient) -> None:
    new_game(admin, "kids")
    response, chunks = open_stream(client)
    next(chunks)
    play(admin, {"type": "round"}, {"type": "finish"})
    [latest] = messages(next(chunks))
    assert latest["data"]["phase"] == "finished"
    response.close()


@pytest.fixture
def quick(box: Box, app_config: dict[str, Any]) -> Flask:
    config = {**app_config, "SSE_KEEPALIVE_S": 0.001, "SSE_MAX_STREAM_S": 0.2}
    return create_app(box, config)


def test_keepalives_and_the_stream_ends_for_the_browser_to_reconnect(quick: Flask) -> None:
    hub: Hub = quick.extensions["buzzerbox"]["hub"]
    response, chunks = open_stream(quick.test_client())
    next(chunks)
    assert next(chunks) == b": keepalive\n\n"
    assert hub.clients == 1
    rest = list(chunks)  # ends after SSE_MAX_STREAM_S
    assert set(rest) == {b": keepalive\n\n"}
    response.close()
    assert hub.clients == 0


def test_streams_beyond_the_limit_are_refused(box: Box, app_config: dict[str, Any]) -> None:
    app = create_app(box, {**app_config, "SSE_MAX_CLIENTS": 1})
    client = app.test_client()
    response, _ = open_stream(client)
    refused = client.get("/api/events")
    assert refused.status_code == 503
    assert refused.headers["Retry-After"] == "5"
    response.close()
    again, _ = open_stream(client)
    again.close()


def test_a_waiting_stream_wakes_on_publish() -> None:
    hub = Hub(lambda state, admin: json.dumps({"seq": state["box"]["seq"], "admin": admin}))
    hub.publish({"box": {"seq": 7}})
    assert hub.join()
    body = stream(hub, lambda admin: (7, "{}"), False, None, StreamSettings(keepalive_s=30))
    assert b"id: 7" in next(body)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(next(body)))
    reader.start()
    hub.publish({"box": {"seq": 8}})
    reader.join(timeout=10)
    assert got == [b'id: 8\nevent: state\ndata: {"seq": 8, "admin": false}\n\n']
