"""The live stream through Flask's test client (one thread per stream; the fanout that
serves it under waitress is tested against a real server in test_serve.py): the full
state first, then deltas (JSON Patch, applied here with the `jsonpatch` package) that
give the same state as GET /api/state."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import jsonpatch
import pytest
from buzzerbox.box import Box
from buzzerbox.live.livestate import StateView
from buzzerbox.live.sse import Full, Stream, StreamSettings
from buzzerbox.web import create_app
from flask import Flask
from flask.testing import FlaskClient
from web.web_fakes import ManualClock, new_game, play  # type: ignore[import-not-found]


def messages(chunk: bytes) -> list[dict[str, Any]]:
    """The messages in a chunk of the stream: their event, id, seq (the id's first part)
    and data."""
    out = []
    for block in chunk.decode().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if fields.get("event") in ("state", "delta"):
            seq = int(fields["id"].split(".")[0])
            out.append({"event": fields["event"], "id": fields["id"], "seq": seq,
                        "data": json.loads(fields["data"])})  # fmt: skip
    return out


class Follower:
    """A phone's copy of the state, kept as the pages keep it (web/static/api.js): the
    full state when it comes, each delta applied to it."""

    def __init__(self) -> None:
        self.state: dict[str, Any] | None = None
        self.last_id = ""
        self.sizes: list[int] = []

    def read(self, chunk: bytes) -> list[dict[str, Any]]:
        got = messages(chunk)
        for message in got:
            if message["event"] == "state":
                self.state = message["data"]
            else:
                assert self.state is not None, "a delta before the state"
                self.state = jsonpatch.apply_patch(self.state, message["data"])
                self.sizes.append(len(chunk))
            self.last_id = message["id"]
        return got


def same_game(state: dict[str, Any], truth: dict[str, Any]) -> None:
    """The phone's state is the box's (but for `now_us`, which is when it was sent)."""
    assert {**state, "box": {**state["box"], "now_us": 0}} == {
        **truth,
        "box": {**truth["box"], "now_us": 0},
    }


def open_stream(client: FlaskClient, **headers: str) -> tuple[Any, Iterator[bytes]]:
    response = client.get("/api/events", buffered=False, headers=headers)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    return response, iter(response.response)  # type: ignore[arg-type]


def test_a_stream_starts_with_the_full_state_then_gets_deltas(
    client: FlaskClient, admin: FlaskClient
) -> None:
    new_game(admin)
    response, chunks = open_stream(client)
    first = next(chunks)
    assert first.startswith(b"retry: 2000\n\n")
    phone = Follower()
    [hello] = phone.read(first)
    assert (hello["event"], hello["seq"]) == ("state", 1)
    assert hello["data"]["phase"] == "lobby"
    assert hello["data"]["box"]["admin"] is False
    play(admin, {"type": "round"})
    [update] = phone.read(next(chunks))
    assert (update["event"], update["seq"]) == ("delta", 2)
    assert {"op": "replace", "path": "/phase", "value": "countdown"} in update["data"]
    assert phone.state is not None
    same_game(phone.state, client.get("/api/state").json)  # type: ignore[arg-type]
    response.close()


def test_the_admin_stream_says_admin(admin: FlaskClient) -> None:
    new_game(admin)
    response, chunks = open_stream(admin)
    phone = Follower()
    phone.read(next(chunks))
    play(admin, {"type": "round"})
    phone.read(next(chunks))
    assert phone.state is not None
    assert phone.state["box"]["admin"] is True
    same_game(phone.state, admin.get("/api/state").json)  # type: ignore[arg-type]
    response.close()


def test_a_twist_round_of_pad_presses_comes_as_small_deltas_that_add_up_to_the_state(
    client: FlaskClient, admin: FlaskClient, clock: ManualClock
) -> None:
    new_game(admin, "twist", players=["Ann", "Ben", "Cem", "Dan"])
    response, chunks = open_stream(client)
    phone = Follower()
    phone.read(next(chunks))
    play(admin, {"type": "round"})
    clock.advance(3_000_000)  # the countdown ends: go
    phone.read(next(chunks))
    phone.read(next(chunks))
    phone.sizes.clear()
    for i in range(40):  # presses and releases on every seat's piles
        clock.advance(7_000)
        seat, pile = i % 4, (i // 8) % 2
        body = {"seat": seat, "pad": "pile", "pile": pile}
        admin.post("/api/pads/press", json=body)
        phone.read(next(chunks))
        clock.advance(3_000)
        admin.post("/api/pads/release", json=body)
        phone.read(next(chunks))
    assert phone.state is not None
    same_game(phone.state, client.get("/api/state").json)  # type: ignore[arg-type]
    assert len(phone.sizes) == 80
    assert max(phone.sizes) <= 600, sorted(phone.sizes)[-5:]
    response.close()


def test_last_event_id_resumes_with_the_deltas_since(
    client: FlaskClient, admin: FlaskClient
) -> None:
    new_game(admin)
    response, chunks = open_stream(client)
    phone = Follower()
    phone.read(next(chunks))
    response.close()
    response, chunks = open_stream(client, **{"Last-Event-ID": phone.last_id})
    # nothing new: nothing sent but the retry delay and a keepalive (every 2 s by default)
    assert next(chunks) == b"retry: 2000\n\nevent: keepalive\ndata: 2000\n\n"
    play(admin, {"type": "round"})
    assert [m["event"] for m in phone.read(next(chunks))] == ["delta"]
    response.close()
    play(admin, {"type": "finish"})  # while the phone slept
    response, chunks = open_stream(client, **{"Last-Event-ID": phone.last_id})
    assert [m["event"] for m in phone.read(next(chunks))] == ["delta"]
    assert phone.state is not None
    same_game(phone.state, client.get("/api/state").json)  # type: ignore[arg-type]
    response.close()


@pytest.mark.parametrize("last_id", ["1", "1.1.0000", "garbage", "2.99999.x"])
def test_an_unknown_last_event_id_gets_the_full_state(
    client: FlaskClient, admin: FlaskClient, last_id: str
) -> None:
    new_game(admin)
    response, chunks = open_stream(client, **{"Last-Event-ID": last_id})
    assert [m["event"] for m in messages(next(chunks))] == ["state"]
    response.close()


@pytest.mark.parametrize("version", ["²", "١٢", "9" * 5000], ids=["sup", "arabic", "long"])
def test_a_last_event_id_of_odd_digits_gets_the_full_state(
    client: FlaskClient, admin: FlaskClient, version: str
) -> None:
    new_game(admin)
    response, chunks = open_stream(client)
    phone = Follower()
    phone.read(next(chunks))
    seq, _, boot = phone.last_id.split(".")
    response.close()
    response, chunks = open_stream(client, **{"Last-Event-ID": f"{seq}.{version}.{boot}"})
    assert [m["event"] for m in messages(next(chunks))] == ["state"]
    response.close()


def test_a_slow_stream_skips_to_the_latest_state(client: FlaskClient, admin: FlaskClient) -> None:
    new_game(admin, "kids")
    response, chunks = open_stream(client)
    phone = Follower()
    phone.read(next(chunks))
    play(admin, {"type": "round"}, {"type": "finish"})
    phone.read(next(chunks))  # both deltas at once
    assert phone.state is not None
    assert phone.state["phase"] == "finished"
    same_game(phone.state, client.get("/api/state").json)  # type: ignore[arg-type]
    response.close()


View = Callable[[dict[str, Any]], dict[str, Any]]


def state_stream(
    view: View, full: Full, ring: int = 64
) -> tuple[Stream, StateView[dict[str, Any]]]:
    """A live stream with the phones' view of a state on it."""
    stream = Stream(full, ring=ring)
    return stream, StateView(stream, view)


def test_a_stream_further_behind_than_the_ring_gets_the_full_state() -> None:
    hub, view = state_stream(lambda s: dict(s), lambda view, admin: json.dumps(view), ring=2)
    for seq in range(1, 6):
        view.publish({"box": {"seq": seq}})
    assert hub.catch_up(4, False) == (5, hub.catch_up(4, True)[1])  # deltas: one for all
    assert b"event: delta" in hub.catch_up(3, False)[1]
    version, data = hub.catch_up(2, False)
    assert (version, data.count(b"event: state")) == (5, 1)
    assert hub.catch_up(5, False) == (5, b"")


@pytest.fixture
def quick(box: Box, app_config: dict[str, Any]) -> Flask:
    config = {**app_config, "SSE_KEEPALIVE_S": 0.001, "SSE_MAX_STREAM_S": 0.2}
    return create_app(box, config)


def test_keepalives_and_the_stream_ends_for_the_browser_to_reconnect(quick: Flask) -> None:
    """Keepalives are events the page sees (a comment it would not), saying how often
    they come: the first at once, in the stream's head."""
    hub: Stream = quick.extensions["buzzerbox"]["live"]
    response, chunks = open_stream(quick.test_client())
    keepalive = b"event: keepalive\ndata: 1\n\n"  # SSE_KEEPALIVE_S 0.001: 1 ms
    assert next(chunks).startswith(b"retry: 2000\n\n" + keepalive + b"id: ")
    assert next(chunks) == keepalive
    assert hub.clients == 1
    rest = list(chunks)  # ends after SSE_MAX_STREAM_S
    assert set(rest) == {keepalive}
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
    hub, view = state_stream(
        lambda s: dict(s), lambda view, admin: json.dumps({**view, "admin": admin})
    )
    view.publish({"box": {"seq": 7}})
    assert hub.join()
    body = hub.messages(False, None, StreamSettings(keepalive_s=30))
    assert b'event: state\ndata: {"box": {"seq": 7}, "admin": false}' in next(body)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(next(body)))
    reader.start()
    view.publish({"box": {"seq": 8}})
    reader.join(timeout=10)
    assert got == [
        f"id: 8.2.{hub.boot}\nevent: delta\n"
        'data: [{"op":"replace","path":"/box/seq","value":8}]\n\n'.encode()
    ]
