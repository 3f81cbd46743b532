"""A box killed (kill -9) mid-game: the broker says it is offline (its last will);
restarted, it publishes what the broker had not acknowledged, and nothing is lost."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from buzzerbox.store.tail import LogTail

from .mqtt_fakes import TIMEOUT_S, Mosquitto, Recorder

BOXPROC = Path(__file__).with_name("publishing_box.py")


class BoxProcess:
    """tests/mqtt/publishing_box.py: a box and its publisher, driven over stdin."""

    def __init__(self, data: Path, url: str, name: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(BOXPROC), str(data), url, name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def send(self, **command: Any) -> dict[str, int]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        reply: dict[str, int] = json.loads(self.process.stdout.readline())
        return reply

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(TIMEOUT_S)
        self._close_pipes()

    def end(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = self.process.wait(TIMEOUT_S)
        self._close_pipes()
        return code

    def _close_pipes(self) -> None:
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()


def in_order_once(seqs: list[int]) -> list[int]:
    """What a subscriber keeps that drops a seq not above the last it kept."""
    return [s for i, s in enumerate(seqs) if s > max(seqs[:i], default=0)]


def test_a_killed_box_is_offline_then_catches_up(broker: Mosquitto, tmp_path: Path) -> None:
    topics = ["buzzerbox/t9/event", "buzzerbox/t9/status"]
    recorder = Recorder(broker.url, topics, client_id="rec", clean=False)
    try:
        box = BoxProcess(tmp_path, broker.url, "t9")
        box.send(op="game", players=["Ann", "Ben", "Cem"])
        box.send(op="round", winner=0)
        waited = box.send(op="wait")
        assert waited["published"] == waited["seq"]
        box.send(op="round", winner=1)  # logged; maybe not all published yet
        box.kill()
        assert recorder.wait(lambda ms: bool(ms) and ms[-1].payload == b"offline")  # last will

        box = BoxProcess(tmp_path, broker.url, "t9")
        box.send(op="wait")
        broker.stop()
        box.send(op="round", winner=2)  # no broker: only the log has it
        box.kill()
        box = BoxProcess(tmp_path, broker.url, "t9")
        box.send(op="game", players=["Dan", "Eve"])  # still no broker
        box.send(op="round", winner=0)
        broker.start()
        done = box.send(op="wait")
        assert done["published"] == done["seq"]
        assert box.end() == 0

        expected = list(range(1, done["seq"] + 1))

        def closed_after_every_event(ms: list[Any]) -> bool:
            """Every event (once duplicates are dropped), then the clean close's offline."""
            events = [i for i, m in enumerate(ms) if m.topic.endswith("/event")]
            seqs = [json.loads(ms[i].payload)["seq"] for i in events]
            if in_order_once(seqs) != expected:
                return False
            return any(m.payload == b"offline" for m in ms[events[-1] + 1 :])

        assert recorder.wait(closed_after_every_event)
        tail = LogTail(tmp_path / "buzzerbox.db")
        assert [e.seq for e in tail.after(0, 1000)] == expected  # the log holds them all
        tail.close()
    finally:
        recorder.close()


def test_a_finish_fires_home_assistant_once_though_the_box_publishes_it_again(
    broker: Mosquitto, tmp_path: Path
) -> None:
    """Killed after the finish, with its cursor lost (it is a hint: written at most twice
    a second, no fsync), the box publishes the finish's events again, but not the
    `ha/event` that the broker had acknowledged: Home Assistant's automations (the
    device trigger, an MQTT trigger, the event entity) would fire a second time."""
    topics = ["buzzerbox/t8/event", "buzzerbox/t8/ha/event", "buzzerbox/t8/status"]
    recorder = Recorder(broker.url, topics)
    try:
        box = BoxProcess(tmp_path, broker.url, "t8")
        box.send(op="game", players=["Ann", "Ben"])
        for winner in (0, 1, 0):
            box.send(op="round", winner=winner)
        done = box.send(op="wait")
        assert recorder.wait(lambda ms: any(m.topic.endswith("/ha/event") for m in ms))
        box.kill()
        with sqlite3.connect(tmp_path / "mqtt.db") as db:  # the cursor's last moves lost
            db.execute("UPDATE published SET seq = 0 WHERE box = 't8'")
        db.close()

        box = BoxProcess(tmp_path, broker.url, "t8")
        again = box.send(op="wait")
        assert again["published"] == done["seq"]
        assert box.end() == 0
        assert recorder.wait(  # the clean stop's offline comes after all it published
            lambda ms: (
                sum(m.topic == "buzzerbox/t8/event" for m in ms) == 2 * done["seq"]
                and ms[-1].payload == b"offline"
            )
        ), "the box published its whole log again, then stopped"
        finishes = recorder.on("buzzerbox/t8/ha/event")
        assert len(finishes) == 1, [m.payload for m in finishes]
        assert json.loads(finishes[0].payload)["winners"] == ["Ann"]
    finally:
        recorder.close()
