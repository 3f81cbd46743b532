"""Everything from the broker is untrusted (issue 15, item 2): a bad message is
dropped and counted, never reaches a page, never stops the hub; retained, it does
not wedge a restarted hub. First the board alone, then a real `buzzerbox hub` on a
real mosquitto that anyone publishes to."""

from __future__ import annotations

import http.client
import json
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from buzzerbox.hub.leaderboard import Leaderboard
from buzzerbox.live.updates import UpdatesView
from buzzerbox.mqtt.connect import stop_client
from buzzerbox.mqtt.sign import Signer
from paho.mqtt.enums import CallbackAPIVersion

from .mqtt_fakes import TIMEOUT_S, Mosquitto, run_hub
from .test_board import msg, result, state
from .test_hub import read_frames


def playing(**fields: Any) -> bytes:
    """A state message (seq 9) whose game state holds `fields`."""
    return msg(seq=9, game_id=1, phase="playing", leader="", state=fields)


SURROGATE_NAME = (
    b'{"v":1,"seq":9,"game_id":1,"phase":"playing","leader":"",'
    b'"state":{"players":[{"name":"\\ud800","total":1}],"race":[],"winners":[]}}'
)
BAD: list[tuple[str, str, bytes]] = [
    ("state", "bad text", SURROGATE_NAME),
    ("state", "bad text", b'{"seq": 9, "leader": "Ann \\udfff"}'),
    ("state", "too large", msg(seq=9, title="x" * 70_000)),
    ("state", "not JSON", b'{"seq": 9, "at": NaN}'),
    ("state", "not JSON", b"\xff\xfe{}"),
    ("state", "not JSON", b"[" * 50_000),
    ("state", "too deep", msg(seq=9, x=json.loads("[" * 20 + '"\\u00e9"' + "]" * 20))),
    ("event", "too deep", msg(seq=9, event={"x": json.loads("[" * 20 + "]" * 20)})),
    ("state", "bad seq", msg(seq="9")),
    ("state", "bad seq", msg(seq=True)),
    ("state", "bad seq", msg(seq=2**60)),
    ("state", "bad round", playing(round="one")),
    ("state", "bad total", playing(players=[{"name": "Ann", "total": "3"}])),
    ("state", "bad name", playing(players=[{"name": "", "total": 3}])),
    ("state", "bad name", playing(players=[{"name": "A" * 65, "total": 3}])),
    ("state", "bad players", playing(players=[{"name": "Ann", "total": 1}] * 33)),
    ("state", "bad title", msg(seq=9, title=["x"])),
    ("event", "bad event", msg(seq=9, event="x")),
    ("race", "bad name", msg(seq=9, key="k", first=7)),
    ("race", "bad reaction_us", msg(seq=9, key="k", first="Ann", reaction_us=1.5)),
    ("games/4", "bad game_id", msg(seq=9, game_id="4")),
    ("games/4", "bad stats", msg(seq=9, game_id=4, players=[], winners=[], stats=[])),
    ("status", "bad status", b"online\x00"),
]


@pytest.mark.parametrize(
    ("kind", "reason", "payload"), BAD, ids=[f"{k}-{r}-{i}" for i, (k, r, _) in enumerate(BAD)]
)
def test_a_bad_message_is_dropped_and_counted(kind: str, reason: str, payload: bytes) -> None:
    board = Leaderboard()
    live = UpdatesView(board.snapshot)
    live.publish(board.apply("buzzerbox/t1/state", state(4)))
    before = board.snapshot()
    assert board.apply(f"buzzerbox/t1/{kind}", payload) == []
    after = board.snapshot()
    assert after["dropped_by"] == {reason: 1}
    assert after["tables"] == before["tables"]
    json.dumps(after, ensure_ascii=False).encode()  # what a page gets is UTF-8 JSON


def test_what_the_hub_does_not_keep_may_nest_deep_and_is_not_kept() -> None:
    """Only a message holding a \\u escape is read string by string (a lone surrogate);
    else the hub reads the fields it keeps: an unknown field nesting deep is ignored."""
    board = Leaderboard()
    deep = json.loads("[" * 20 + "]" * 20)
    state_seq_9 = json.loads(playing(players=[{"name": "Ann", "total": 3}]))
    updates = board.apply("buzzerbox/t1/state", json.dumps({**state_seq_9, "x": deep}).encode())
    assert updates and board.snapshot()["dropped_by"] == {}
    assert '"x":' not in json.dumps(board.record()["tables"]["t1"])
    assert [t["players"] for t in board.snapshot()["tables"]] == [[{"name": "Ann", "total": 3}]]


def test_a_flood_of_made_up_boxes_is_bounded() -> None:
    """Without a key the board is bounded and a flood pushes out only tables that hold
    no result; with the key no unsigned name gets in at all."""
    board = Leaderboard(max_tables=10)
    board.apply("buzzerbox/real/state", state(1))
    board.apply("buzzerbox/real/games/1", result("real", 1, 2, ["Ann"]))
    for n in range(50):
        board.apply(f"buzzerbox/fake{n}/state", state(1))
    snapshot = board.snapshot()
    assert len(snapshot["tables"]) == 10 and "real" in [t["box"] for t in snapshot["tables"]]
    signer = Signer(b"k" * 32)
    board = Leaderboard(max_tables=10, signer=signer)
    board.apply("buzzerbox/real/state", signer.sign("buzzerbox/real/state", state(1)))
    for n in range(50):
        board.apply(f"buzzerbox/fake{n}/state", state(1))
        board.apply(f"buzzerbox/fake{n}/status", b"online")
    snapshot = board.snapshot()
    assert [t["box"] for t in snapshot["tables"]] == ["real"]
    assert snapshot["refused"] == 50 and snapshot["dropped_by"]["not signed"] == 50


# -- a real hub, a real broker, a hostile publisher -------------------------------------


def publish(url: str, messages: list[tuple[str, bytes, bool]]) -> None:
    """Publish raw messages (topic, payload, retained) with QoS 1, as anyone may."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="anyone")
    client.connect("127.0.0.1", int(url.rsplit(":", 1)[1]))
    client.loop_start()
    try:
        for topic, payload, retain in messages:
            client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(TIMEOUT_S)
    finally:
        stop_client(client)


class Hub:
    """`buzzerbox hub` in a process of its own, and one live stream from it."""

    def __init__(self, broker: Mosquitto, data: Path, *more: str) -> None:
        """`more`: the hub's options; without any: --insecure-open-broker (what these
        tests check is what the hub makes of each message's content)."""
        hub = run_hub(
            broker.url, "hub-u", "--data", str(data), *(more or ["--insecure-open-broker"])
        )
        self.running, self.process, self.port, self.pin = hub, hub.process, hub.port, hub.pin
        self.frames: queue.Queue[Any] = queue.Queue()
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT_S)
        self.conn.request("GET", "/api/events")
        response = self.conn.getresponse()
        assert response.status == 200
        threading.Thread(target=read_frames, args=(response, self.frames), daemon=True).start()

    def wait_table(self, box: str, seq: int, online: bool | None = None) -> dict[str, Any]:
        """The table's summary once the stream shows it at `seq` (and `online`, if given:
        a status comes on the hub's wildcard alone, after everything before it)."""
        while True:
            frame = self.frames.get(timeout=TIMEOUT_S)
            assert frame is not None, "the stream ended"
            kind, data = frame
            tables = data["tables"] if kind == "board" else [data] if kind == "table" else []
            for table in tables:
                here = table["box"] == box and table["seq"] == seq
                if here and (online is None or table["online"] is online):
                    return dict(table)

    def board(self) -> dict[str, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT_S)
        conn.request("GET", "/api/board")
        reply = conn.getresponse()
        assert reply.status == 200
        data: dict[str, Any] = json.load(reply)
        conn.close()
        return data

    def stop(self) -> None:
        self.conn.close()
        self.running.stop()


@pytest.fixture
def hostile(broker: Mosquitto) -> Iterator[list[tuple[str, bytes, bool]]]:
    """Every bad message of BAD, each under a box of its own ("evil<n>"), retained
    where a box retains."""
    messages = [
        (f"buzzerbox/evil{n}/{kind}", payload, kind != "event")
        for n, (kind, _, payload) in enumerate(BAD)
    ]
    messages.append(("buzzerbox/evil/state", b"x" * 2_000_000, True))  # 2 MB
    yield messages
    publish(broker.url, [(t, b"", True) for t, _, r in messages if r])  # clear the retained


def test_the_hub_serves_on_through_hostile_messages_and_a_restart(
    broker: Mosquitto, tmp_path: Path, hostile: list[tuple[str, bytes, bool]]
) -> None:
    hub = Hub(broker, tmp_path / "hub")
    try:
        publish(broker.url, [("buzzerbox/good/state", state(3), True)])
        hub.wait_table("good", 3)
        publish(broker.url, hostile)
        # the state may pass the hostile ones (the hub's lane); the status comes after them
        good = [
            ("buzzerbox/good/state", state(4), True),
            ("buzzerbox/good/status", b"offline", False),
        ]
        publish(broker.url, good)
        table = hub.wait_table("good", 4, online=False)  # the same stream, still alive
        assert table["players"] == [{"name": "Ann", "total": 0}, {"name": "Ben", "total": 0}]
        board = hub.board()
        assert board["dropped"] >= len(hostile) - 1  # the status "bad status" makes no table
        assert [t["box"] for t in board["tables"]] == ["good"]
    finally:
        hub.stop()
    hub = Hub(broker, tmp_path / "hub")  # every bad retained message comes again
    try:
        hub.wait_table("good", 4)
        good = [
            ("buzzerbox/good/state", state(5), True),
            ("buzzerbox/good/status", b"online", False),
        ]
        publish(broker.url, good)
        hub.wait_table("good", 5, online=True)  # after every retained one
        board = hub.board()
        retained = {reason for kind, reason, _ in BAD if kind != "event"}
        assert set(board["dropped_by"]) == retained, board["dropped_by"]
        assert [t["box"] for t in board["tables"]] == ["good"]
    finally:
        hub.stop()
