"""Issue 39, item 5: junk on the broker costs the hub little. 20,000 unsigned messages
(QoS 1, as a stranger may send them) on the boxes' topics, then a table's signed state:
the junk is refused before the expensive work (counted, acknowledged at once, never
handed to the record's keeper, which saves and snapshots the board), and the signed
state is shown after it. And a table's messages come on a connection of their own
(the subscriber's lane), so they never wait behind a flood on the wildcard: one held
up on purpose here. A real mosquitto; the hub's subscriber and keeper in this process.
The times are tests/bench/broker_flood.py's (`attack.py --flood`)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from buzzerbox.hub.leaderboard import Leaderboard, Update
from buzzerbox.hub.record import Keeper
from buzzerbox.hub.subscriber import Subscriber
from buzzerbox.mqtt.sign import Signer
from buzzerbox.mqtt.topics import parse_broker

from .mqtt_fakes import Mosquitto, Watcher
from .test_board import state
from .test_untrusted import publish

KEY = b"the-event-key-0123456789abcdef"
JUNK = 20_000


def test_junk_is_refused_before_the_keeper_and_a_signed_state_shows_after_it(
    broker: Mosquitto, tmp_path: Path
) -> None:
    board = Leaderboard(signer=Signer(KEY))
    watcher = Watcher(board)
    keeper = Keeper(board, tmp_path / "hub.json", watcher.updates).start()
    hub = Subscriber(
        parse_broker(broker.url), board, watcher.updates, name="floods", commit=keeper.commit
    ).start()
    try:
        assert hub.subscribed.wait(10)
        commits = keeper.commits
        junk = [(f"buzzerbox/j{n % 500}/state", state(n), False) for n in range(JUNK)]
        good = Signer(KEY).sign("buzzerbox/t1/state", state(3))
        publish(broker.url, [*junk, ("buzzerbox/t1/state", good, False)])
        assert watcher.wait(lambda: "t1" in watcher.tables)
        assert board.refused == JUNK
        assert keeper.commits - commits <= 3, keeper.commits - commits  # the state's own
    finally:
        hub.close()
        keeper.close()


class Stalling(Leaderboard):
    """A board whose fold of a junk message waits until the test lets it go: the
    wildcard connection stuck behind a flood. It counts the folds of each topic."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.let_go = threading.Event()
        self.folds: dict[str, int] = {}
        self.cond = threading.Condition()

    def apply(self, topic: str, payload: bytes) -> list[Update]:
        with self.cond:
            self.folds[topic] = self.folds.get(topic, 0) + 1
            self.cond.notify_all()
        if topic.startswith("buzzerbox/junk"):
            self.let_go.wait(30)
        return super().apply(topic, payload)

    def folded(self, topic: str, times: int) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: self.folds.get(topic, 0) >= times, 10)


def test_a_tables_state_comes_on_its_lane_while_the_wildcard_is_stuck(broker: Mosquitto) -> None:
    board = Stalling(signer=Signer(KEY))
    watcher = Watcher(board)
    hub = Subscriber(parse_broker(broker.url), board, watcher.updates, name="lane").start()
    signer = Signer(KEY)
    topic = "buzzerbox/t1/state"
    try:
        assert hub.subscribed.wait(10)
        publish(broker.url, [(topic, signer.sign(topic, state(1)), True)])
        # once on the wildcard; then on the lane, which the board's new table asked for
        # (its subscription confirmed first, then the retained state)
        assert board.folded(topic, 2)
        assert hub.laned == {"t1"}
        publish(broker.url, [("buzzerbox/junk1/state", state(1), False)])
        assert board.folded("buzzerbox/junk1/state", 1)  # the wildcard waits in it now
        publish(broker.url, [(topic, signer.sign(topic, state(2)), True)])
        assert watcher.wait(lambda: watcher.tables.get("t1", {}).get("seq") == 2)
        assert not board.let_go.is_set()  # the wildcard is still stuck
    finally:
        board.let_go.set()
        hub.close()
