"""Issue 28: strangers on the venue's broker (a real mosquitto). A forged claim does
not silence a box; with the event's key, forged results, withdrawals and claims are
refused; what the hub showed survives kill -9 and a broker restarted empty; a
second hub on one --data folder is refused; the broker's ACL keeps a box to its
own topics."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from buzzerbox.cli import main
from buzzerbox.datadir import DataLock
from buzzerbox.hub.leaderboard import Leaderboard
from buzzerbox.hub.subscriber import Subscriber
from buzzerbox.mqtt import attach
from buzzerbox.mqtt.connect import REFUSED, BrokerLinkStatus, stop_client
from buzzerbox.mqtt.errors import SigningKeyError
from buzzerbox.mqtt.settings import signer_from
from buzzerbox.mqtt.sign import Signer
from buzzerbox.mqtt.topics import parse_broker
from paho.mqtt.enums import CallbackAPIVersion

from .mqtt_fakes import (
    TIMEOUT_S,
    Attach,
    MakeBox,
    ManualClock,
    Mosquitto,
    Record,
    Recorder,
    Watcher,
    kids_round,
)
from .test_board import result, state
from .test_untrusted import Hub, publish

FORGED_CLAIM = json.dumps({"owner": "evil", "host": "pi-b", "since": 0}).encode()
KEY = b"the-event-key-0123456789abcdef"


def test_one_forged_claim_does_not_silence_a_box_without_a_key(
    broker: Mosquitto, make_box: MakeBox, attached: Attach, recorders: Record, clock: ManualClock
) -> None:
    recorder = recorders(["buzzerbox/t3/status", "buzzerbox/t3/claim"])
    box = make_box("t3", clock)
    publisher = attached(box, "t3", grace_s=0.3, lose_retry_s=0.5)
    assert publisher.wait_connected(TIMEOUT_S)
    publish(broker.url, [("buzzerbox/t3/claim", FORGED_CLAIM, True)])
    # an earlier claim that answers none of the box's: challenged (its claim put again,
    # a fresh nonce), and the box plays on (issue 39, item 4)
    assert recorder.wait(lambda ms: len(mine(ms)) >= 2)
    assert publisher.is_connected and not any(m.payload == b"offline" for m in recorder.messages)
    # a stranger who read the box's nonce on the broker answers it: without a key
    # nothing tells it from a box, so the box gives way and says so...
    answer = {"owner": "evil", "host": "pi-b", "since": 0, "answers": mine(recorder.messages)[-1]}
    publish(broker.url, [("buzzerbox/t3/claim", json.dumps(answer).encode(), True)])
    assert recorder.wait(lambda ms: any(m.payload == b"offline" for m in ms))
    # ...and came back by itself: the stranger's claim, retained, is only a hint
    box.new_game({"game": "kids", "players": ["Ann", "Ben"]})
    kids_round(box, clock, 0)
    assert publisher.wait_published(box.seq, TIMEOUT_S)
    assert recorder.wait(lambda ms: ms[-1].payload == b"online")


def mine(messages: list[mqtt.MQTTMessage]) -> list[str]:
    """The nonces of the claims box t3 put, in order."""
    claims = [json.loads(m.payload) for m in messages if m.topic.endswith("/claim")]
    return [c["nonce"] for c in claims if c["owner"] != "evil"]


def test_with_the_key_a_forged_claim_is_ignored_and_counted(
    broker: Mosquitto, make_box: MakeBox, attached: Attach, clock: ManualClock
) -> None:
    box = make_box("t4", clock)
    seen: list[BrokerLinkStatus] = []
    publisher = attached(box, "t4", signer=Signer(KEY))
    publisher.link.when_status.append(seen.append)
    assert publisher.wait_connected(TIMEOUT_S)
    publish(broker.url, [("buzzerbox/t4/claim", FORGED_CLAIM, True)])
    box.new_game({"game": "kids", "players": ["Ann", "Ben"]})
    assert publisher.wait_published(box.seq, TIMEOUT_S)
    assert publisher.claims_refused == 1
    assert all(s.state != REFUSED for s in seen) and publisher.is_connected


def test_a_hub_with_the_key_shows_only_authentic_results(
    broker: Mosquitto, make_box: MakeBox, clock: ManualClock, tmp_path: Path
) -> None:
    board = Leaderboard(signer=Signer(KEY))
    watcher = Watcher(board)
    hub = Subscriber(parse_broker(broker.url), board, watcher.updates, name="signed").start()
    box = make_box("t3", clock)
    publisher = attach(box, broker.url, "t3", tmp_path / "t3", signer=Signer(KEY))
    try:
        box.new_game({"game": "kids", "players": ["Ann", "Ben"], "rounds": 2})
        while box.state()["phase"] != "finished":
            kids_round(box, clock, 0)
        assert watcher.wait(lambda: [r["name"] for r in watcher.tournament] == ["Ann", "Ben"])
        (_, game_id), *_ = board._results
        game_topic = f"buzzerbox/t3/games/{game_id}"
        forged = [
            # a withdrawal with a higher seq, "Mallory, 999 points", a made-up table
            (game_topic, result("t3", 1, 10**6, ["Ann"], finished=False), True),
            ("buzzerbox/t3/games/23", result("t3", 23, 10**6, ["Mallory"]), True),
            ("buzzerbox/fake/state", state(1), True),
            ("buzzerbox/fake/status", b"online", True),
            # a real box's signed message copied onto another topic
            ("buzzerbox/t9/state", Signer(KEY).sign("buzzerbox/t3/state", state(5)), True),
        ]
        publish(broker.url, forged)
        assert watcher.wait(lambda: board.refused == 4)  # the status is not signed: no table
        snapshot = board.snapshot()
        assert [r["name"] for r in snapshot["tournament"]] == ["Ann", "Ben"]
        assert snapshot["dropped_by"]["not signed"] == 3
        assert snapshot["dropped_by"]["bad signature"] == 1
        assert [t["box"] for t in snapshot["tables"]] == ["t3"]
    finally:
        publisher.close()
        hub.close()


def test_what_the_hub_showed_survives_kill_9_and_a_broker_restarted_empty(
    tmp_path: Path,
) -> None:
    broker = Mosquitto(tmp_path / "broker", persistence=False)
    broker.start()
    hub = Hub(broker, tmp_path / "hub")
    try:
        publish(broker.url, [("buzzerbox/t1/state", state(3), True)])
        hub.wait_table("t1", 3)  # shown on the page: then at once
        hub.process.send_signal(signal.SIGKILL)  # a power cut of the hub (its disk kept
        hub.process.wait(TIMEOUT_S)  # what was fsynced: the record, before it was shown)
        hub.conn.close()
        assert hub.process.stdout is not None
        hub.process.stdout.close()
        broker.stop()
        broker.start()  # it forgot everything
        hub = Hub(broker, tmp_path / "hub")
        assert [t["seq"] for t in hub.board()["tables"]] == [3]
    finally:
        hub.stop()
        broker.stop()


def test_a_second_hub_on_one_data_folder_is_refused(
    tmp_path: Path, capsys: object, broker: Mosquitto
) -> None:
    (tmp_path / "hub").mkdir()
    held = DataLock(tmp_path / "hub")  # the first hub
    try:
        args = ["hub", "--broker", broker.url, "--port", "0", "--data", str(tmp_path / "hub")]
        assert main(args) == 3
        assert "in use by another buzzerbox" in capsys.readouterr().err  # type: ignore[attr-defined]
    finally:
        held.release()


def test_the_generated_acl_keeps_a_box_to_its_own_topics(tmp_path: Path) -> None:
    folder = tmp_path / "venue"
    assert main(["mosquitto-config", "--boxes", "t1", "t2", "--dir", str(folder)]) == 0
    passwords = folder / "passwords"
    for user in ("hub", "t1", "t2"):
        flag = ["-c"] if user == "hub" else []
        subprocess.run(
            ["mosquitto_passwd", *flag, "-b", str(passwords), user, f"pw-{user}"], check=True
        )
    os.chmod(passwords, 0o600)
    lines = (folder / "buzzerbox.conf").read_text().splitlines()
    keep = ("allow_anonymous", "password_file", "acl_file")  # the port is the test's own
    listener = "".join(f"{line}\n" for line in lines if line.split()[0] in keep)
    broker = Mosquitto(tmp_path / "broker", listener=listener)
    broker.start()
    hub = Recorder(broker.url, ["buzzerbox/#"], login=("hub", "pw-hub"))
    try:
        as_t1 = attach_raw(broker.port, "t1")
        for topic in ("buzzerbox/t2/state", "buzzerbox/t1/state"):
            as_t1.publish(topic, state(7), qos=1).wait_for_publish(TIMEOUT_S)
        assert hub.wait(lambda ms: any(m.topic == "buzzerbox/t1/state" for m in ms))
        assert [m.topic for m in hub.messages] == ["buzzerbox/t1/state"]  # not t2's
        stop_client(as_t1)
    finally:
        hub.close()
        broker.stop()


def attach_raw(port: int, user: str) -> mqtt.Client:
    """A client logged in as `user` (a box's login), connected."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"raw-{user}")
    client.username_pw_set(user, f"pw-{user}")
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


def test_a_stranger_with_the_hubs_old_client_id_does_not_throw_the_hub_off(
    broker: Mosquitto, tmp_path: Path
) -> None:
    hub = Hub(broker, tmp_path / "hub")
    try:
        ident = (tmp_path / "hub" / "client_id-hub-u").read_text()
        assert ident.startswith("buzzerbox-hub-hub-u-") and len(ident) > len("buzzerbox-hub-hub-u-")
        for _ in range(5):  # the id it used to have, again and again
            stranger = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="buzzerbox-hub-hub-u")
            stranger.connect("127.0.0.1", broker.port)
            stranger.loop(0.1)
            stranger.disconnect()
        publish(broker.url, [("buzzerbox/t1/state", state(3), True)])
        hub.wait_table("t1", 3)
        assert hub.board()["broker"]["state"] == "connected"
    finally:
        hub.stop()
    again = Hub(broker, tmp_path / "hub")  # the same id after a restart: its session
    try:
        assert (tmp_path / "hub" / "client_id-hub-u").read_text() == ident
    finally:
        again.stop()


def test_a_box_takes_its_key_from_the_config_or_a_file(tmp_path: Path) -> None:
    def nowhere(key: str) -> Path | None:
        return None

    signer = signer_from({"mqtt_secret": KEY.decode()}, nowhere)
    assert signer is not None and signer.verify("a", Signer(KEY).sign("a", b'{"x":1}')) is None
    (tmp_path / "k").write_text(KEY.decode() + "\n")
    from_file = signer_from({"mqtt_secret_file": "k"}, lambda key: tmp_path / "k")
    assert from_file is not None and from_file.verify("a", signer.sign("a", b'{"x":1}')) is None
    assert signer_from({}, nowhere) is None
    with pytest.raises(SigningKeyError, match="give at least 16"):
        signer_from({"mqtt_secret": "short"}, nowhere)
