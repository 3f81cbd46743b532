"""An event: three boxes and a hub on one broker. The broker is restarted mid-game and
a box is restarted while it is gone; the hub ends with every event of every box once,
in order, and the tournament of the three tables."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from buzzerbox.hub.leaderboard import Leaderboard
from buzzerbox.hub.subscriber import Subscriber
from buzzerbox.mqtt import Publisher, attach
from buzzerbox.mqtt.topics import parse_broker

from .mqtt_fakes import MakeBox, ManualClock, Mosquitto, Watcher, kids_round, log_seqs, twinit_claim

TIMEOUT_S = 15.0


@pytest.fixture
def hub(broker: Mosquitto) -> Iterator[Watcher]:
    board = Leaderboard()
    watcher = Watcher(board)
    subscriber = Subscriber(parse_broker(broker.url), board, watcher.updates, name="test-hub")
    subscriber.start()
    assert subscriber.subscribed.wait(TIMEOUT_S)
    yield watcher
    subscriber.close()


class Table:
    """A box at the event, with its own clock, and its publisher."""

    def __init__(self, name: str, make_box: MakeBox, broker: Mosquitto, data: Path) -> None:
        self.name, self.make_box, self.broker, self.data = name, make_box, broker, data / name
        self.clock = ManualClock()
        self.box = make_box(name, self.clock)
        self.publisher: Publisher = attach(self.box, broker.url, name, self.data)

    def restart(self) -> None:
        self.publisher.close()
        self.box.close()
        self.box = self.make_box(self.name, self.clock)
        self.publisher = attach(self.box, self.broker.url, self.name, self.data)

    def close(self) -> None:
        self.publisher.close()


def test_three_tables_a_broker_restart_and_a_box_restart(
    broker: Mosquitto, hub: Watcher, make_box: MakeBox, tmp_path: Path
) -> None:
    tables = [Table(f"t{n}", make_box, broker, tmp_path) for n in (1, 2, 3)]
    t1, t2, t3 = tables
    try:
        t1.box.new_game({"game": "kids", "players": ["Ann", "Ben"]})
        t2.box.new_game({"game": "kids", "players": ["Cem", "Dan", "Eve"]})
        t3.box.new_game({"game": "twinit", "players": ["Fay", "Gus"]})
        kids_round(t1.box, t1.clock, 0, after_us=700_000)
        kids_round(t2.box, t2.clock, 2, after_us=650_000)
        twinit_claim(t3.box, t3.clock, 0, 1, lead_us=25_000)
        assert hub.wait(lambda: all(hub.events[t.name] == log_seqs(t.box) for t in tables))

        broker.stop()  # mid-game: the tables play on
        kids_round(t1.box, t1.clock, 1)
        kids_round(t2.box, t2.clock, 0)
        twinit_claim(t3.box, t3.clock, 1, 0, lead_us=4_000)
        t2.restart()  # a box restarted while the broker is gone
        kids_round(t2.box, t2.clock, 2)
        broker.start()
        kids_round(t1.box, t1.clock, 0)
        for _ in range(4):
            twinit_claim(t3.box, t3.clock, 0, 1, lead_us=9_000)
        assert all(t.box.state()["phase"] == "finished" for t in tables)

        for table in tables:
            assert table.publisher.wait_published(table.box.seq, TIMEOUT_S)
        assert hub.wait(lambda: all(hub.events[t.name] == log_seqs(t.box) for t in tables))
        assert hub.wait(lambda: len(hub.tournament) == 7 and hub.tournament[0]["wins"] == 1)
        assert hub.wait(lambda: all(hub.tables[t.name]["phase"] == "finished" for t in tables))
    finally:
        for table in tables:
            table.close()

    snapshot = hub.board.snapshot()
    assert [t["gaps"] for t in snapshot["tables"]] == [0, 0, 0]
    assert [t["events"] for t in snapshot["tables"]] == [len(log_seqs(t.box)) for t in tables]
    rows = {r["name"]: r for r in snapshot["tournament"]}
    assert (rows["Ann"]["wins"], rows["Eve"]["wins"], rows["Fay"]["wins"]) == (1, 1, 1)
    assert rows["Fay"]["points"] == 5  # Twin It! counts takes
    assert rows["Gus"]["closest_us"] == 4_000
    assert rows["Eve"]["fastest_us"] == 650_000
    assert rows["Ann"]["tables"] == ["t1"]
    finishes = snapshot["finishes"]
    assert finishes and finishes[0]["box"] == "t3"
    assert {f["box"] for f in finishes} == {"t1", "t2", "t3"}

    # a hub started now builds the same tournament from the retained messages alone
    late = Watcher(Leaderboard())
    subscriber = Subscriber(parse_broker(broker.url), late.board, late.updates, name="late")
    subscriber.start()
    try:
        assert late.wait(lambda: late.tournament == snapshot["tournament"])
        assert late.wait(lambda: [t["online"] for t in late.tables.values()] == [False] * 3)
    finally:
        subscriber.close()
