"""The hub's page and stream: the Flask app on its own, and `buzzerbox hub` for real."""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from buzzerbox.cli import main
from buzzerbox.hub.app import BOX_STATIC, create_app
from buzzerbox.hub.leaderboard import Leaderboard
from buzzerbox.live.updates import UpdatesView
from buzzerbox.mqtt import attach
from buzzerbox.mqtt.sign import Signer
from flask.testing import FlaskClient

from .mqtt_fakes import TIMEOUT_S, MakeBox, ManualClock, Mosquitto, kids_round, run_hub
from .test_board import state


@pytest.fixture
def board() -> Leaderboard:
    return Leaderboard()


@pytest.fixture
def live(board: Leaderboard) -> UpdatesView:
    return UpdatesView(board.snapshot, max_clients=2)


@pytest.fixture
def client(board: Leaderboard, live: UpdatesView) -> FlaskClient:
    app = create_app(board, live, {"SSE_KEEPALIVE_S": 0.01, "TESTING": True})
    return app.test_client()


def test_the_page_and_its_assets_come_from_the_hub(client: FlaskClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    html = page.get_data(as_text=True)
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sorted(assets) == ["/hub-assets/hub.css", "/hub-assets/hub.js"]
    for path in assets:
        reply = client.get(path)
        assert reply.status_code == 200
        assert not re.search(r"https?://", reply.get_data(as_text=True)), path  # offline
        reply.close()
    assert not re.search(r"https?://", html)
    # the keepalives' watchdog is the box pages' own file, served by the hub (its CSP)
    script = client.get("/hub-assets/hub.js")
    assert 'from "./keepalive.js"' in script.get_data(as_text=True)
    script.close()
    watchdog = client.get("/hub-assets/keepalive.js")
    assert watchdog.status_code == 200 and watchdog.mimetype == "text/javascript"
    assert watchdog.get_data() == (BOX_STATIC / "keepalive.js").read_bytes()
    watchdog.close()


def test_the_board_as_json(client: FlaskClient, board: Leaderboard) -> None:
    board.apply("buzzerbox/t1/state", state(4))
    reply = client.get("/api/board")
    assert reply.json is not None
    assert [t["box"] for t in reply.json["tables"]] == ["t1"]
    assert set(reply.json) == {
        "tables",
        "tournament",
        "finishes",
        "dropped",
        "dropped_by",
        "refused",
        "signed",
        "broker",
    }


def test_the_live_stream_board_first_then_updates(
    client: FlaskClient, board: Leaderboard, live: UpdatesView
) -> None:
    reply = client.get("/api/events", buffered=False)
    assert reply.mimetype == "text/event-stream"
    chunks = reply.iter_encoded()
    first = next(chunks).decode()
    assert first.startswith("retry: 2000") and "event: board" in first
    live.publish(board.apply("buzzerbox/t7/state", state(9)))
    chunk = next(chunks).decode()
    assert "event: table" in chunk and '"box":"t7"' in chunk
    second = client.get("/api/events", buffered=False)
    refused = client.get("/api/events")  # max_clients=2, and two are open
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
    second.close()
    reply.close()
    assert live.stream.clients == 0


def test_hub_command_refuses_a_bad_broker(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hub", "--broker", "http://x", "--port", "0"]) == 2
    assert "scheme 'http'" in capsys.readouterr().err


def read_frames(response: http.client.HTTPResponse, into: queue.Queue[Any]) -> None:
    """The stream's frames into `into`, then None (its end, or the test closed it)."""
    event = ""
    try:
        for raw in response:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                into.put((event, json.loads(line[6:])))
    except (OSError, ValueError, http.client.HTTPException):
        pass  # the connection was closed under the reader
    into.put(None)


def test_buzzerbox_hub_shows_a_table_live(
    broker: Mosquitto, make_box: MakeBox, clock: ManualClock, tmp_path: Path
) -> None:
    key = "an-event-key-of-the-test-0123456789"
    hub = run_hub(broker.url, "hub-test", env={**os.environ, "BUZZERBOX_MQTT_SECRET": key})
    publisher = None
    try:
        conn = http.client.HTTPConnection("127.0.0.1", hub.port, timeout=TIMEOUT_S)
        conn.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
        response = conn.getresponse()
        frames: queue.Queue[Any] = queue.Queue()
        threading.Thread(target=read_frames, args=(response, frames), daemon=True).start()
        # a keepalive first, saying how often it comes (2 s: the page's watchdog), then the board
        assert frames.get(timeout=TIMEOUT_S) == ("keepalive", 2000)
        kind, _ = frames.get(timeout=TIMEOUT_S)
        assert kind == "board"

        box = make_box("t5", clock)
        publisher = attach(box, broker.url, "t5", tmp_path / "t5", signer=Signer(key.encode()))
        box.new_game({"game": "kids", "players": ["Ann", "Ben"]})
        kids_round(box, clock, 1)
        table: dict[str, Any] = {}
        race: dict[str, Any] = {}
        while not (table.get("seq") == box.seq and race):
            frame = frames.get(timeout=TIMEOUT_S)
            assert frame is not None, "the stream ended"
            kind, data = frame
            if kind == "table" and data["box"] == "t5":
                table = data
            elif kind == "race" and data["box"] == "t5":
                race = data
        assert table["players"] == [{"name": "Ann", "total": 3}, {"name": "Ben", "total": 0}]
        assert table["online"] is True and table["phase"] == "scored"
        assert race["first"] == "Ben" and race["reaction_us"] == 850_000
        conn.close()
    finally:
        if publisher is not None:
            publisher.close()
        hub.stop()
