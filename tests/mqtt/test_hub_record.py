"""The hub's own record: the tournament outlives a broker that forgets everything (no
persistence) and a restart of the hub; a table long offline drops off the board."""

from __future__ import annotations

import json
from pathlib import Path

from buzzerbox.box import Box
from buzzerbox.hub.leaderboard import Leaderboard
from buzzerbox.hub.record import Keeper, load, save
from buzzerbox.hub.subscriber import Subscriber
from buzzerbox.mqtt import attach
from buzzerbox.mqtt.topics import parse_broker

from .mqtt_fakes import MakeBox, ManualClock, Mosquitto, Watcher, kids_round
from .test_board import state


def play_to_the_end(box: Box, clock: ManualClock, players: list[str]) -> None:
    box.new_game({"game": "kids", "players": players, "rounds": 2})
    while box.state()["phase"] != "finished":
        kids_round(box, clock, 0)


def test_the_tournament_outlives_a_broker_without_persistence(
    tmp_path: Path, make_box: MakeBox, clock: ManualClock
) -> None:
    broker = Mosquitto(tmp_path / "broker", persistence=False)
    broker.start()
    record = tmp_path / "hub" / "hub.json"
    record.parent.mkdir()
    box = make_box("t1", clock)
    publisher = attach(box, broker.url, "t1", tmp_path / "t1")
    try:
        board = Leaderboard()
        watcher = Watcher(board)
        keeper = Keeper(board, record).start()
        hub = Subscriber(parse_broker(broker.url), board, watcher.updates, name="rec").start()
        play_to_the_end(box, clock, ["Ann", "Ben"])
        assert watcher.wait(lambda: [r["name"] for r in watcher.tournament] == ["Ann", "Ben"])
        hub.close()
        keeper.close()  # saves
        broker.stop()
        broker.start()  # it forgot every retained result and the hub's session

        board = Leaderboard()
        watcher = Watcher(board)
        keeper = Keeper(board, record).start()
        assert [r["name"] for r in board.snapshot()["tournament"]] == ["Ann", "Ben"]
        hub = Subscriber(parse_broker(broker.url), board, watcher.updates, name="rec").start()
        play_to_the_end(box, clock, ["Ann", "Cem"])
        assert watcher.wait(lambda: len(watcher.tournament) == 3)
        ann = next(r for r in watcher.tournament if r["name"] == "Ann")
        assert ann["games"] == 2 and ann["wins"] == 2
        hub.close()
        keeper.close()
    finally:
        publisher.close()
        broker.stop()


def test_a_damaged_record_starts_empty(tmp_path: Path) -> None:
    path = tmp_path / "hub.json"
    board = Leaderboard()
    board.apply("buzzerbox/t1/state", state(3))
    save(board, path)
    again = Leaderboard()
    assert load(again, path) and [t["box"] for t in again.snapshot()["tables"]] == ["t1"]
    for damage in ("{", '{"tables": 1}', json.dumps({"tables": {"t1": {"state": "x"}}})):
        path.write_text(damage)
        fresh = Leaderboard()
        assert not load(fresh, path) and fresh.snapshot()["tables"] == []


def test_a_table_long_offline_drops_off() -> None:
    now = [1000.0]
    board = Leaderboard(forget_after_s=600, clock=lambda: now[0])
    board.apply("buzzerbox/t1/state", state(3))
    board.apply("buzzerbox/t2/state", state(3))
    board.apply("buzzerbox/t1/status", b"offline")
    now[0] += 599
    assert board.forget_idle() == []
    now[0] += 2
    assert board.forget_idle() == [("gone", {"box": "t1"})]  # t2 is online: it stays
    assert [t["box"] for t in board.snapshot()["tables"]] == ["t2"]
