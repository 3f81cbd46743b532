"""Issue 39, item 5: junk on the broker costs the hub little. 20,000 unsigned messages
(QoS 1, as a stranger may send them) on the boxes' topics, then a table's signed state:
the junk is refused before the expensive work (counted, acknowledged at once, never
handed to the record's keeper, which saves and snapshots the board), and the signed
state is shown after it. And a table's state comes on a connection of its own (the
subscriber's lane) while junk is queued ahead of it on the wildcard, which still folds
the table's older events queued there (the first lane lost them). A real mosquitto;
the hub's subscriber and keeper in this process. The times are
tests/bench/broker_flood.py's (`attack.py --flood`)."""

from __future__ import annotations

import threading
from pathlib import Path

from buzzerbox.hub.leaderboard import Leaderboard
from buzzerbox.hub.record import Keeper
from buzzerbox.hub.subscriber import Subscriber
from buzzerbox.mqtt.sign import Signer
from buzzerbox.mqtt.topics import parse_broker

from .mqtt_fakes import Mosquitto, Watcher
from .test_board import event, state
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


class Stalling(Signer):
    """The event's key, whose check of the first junk message waits until the test lets
    it go: the wildcard connection stuck at the head of a flood queued behind it. It
    counts its checks of each topic."""

    def __init__(self, key: bytes) -> None:
        super().__init__(key)
        self.stuck = threading.Event()
        self.let_go = threading.Event()
        self.checks: dict[str, int] = {}
        self.cond = threading.Condition()

    def verify(self, topic: str, payload: bytes) -> str | None:
        with self.cond:
            self.checks[topic] = self.checks.get(topic, 0) + 1
            self.cond.notify_all()
        if topic.startswith("buzzerbox/junk") and not self.stuck.is_set():
            self.stuck.set()
            assert self.let_go.wait(60)
        return super().verify(topic, payload)

    def checked(self, topic: str, times: int) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: self.checks.get(topic, 0) >= times, 10)


def test_a_tables_state_passes_junk_queued_ahead_and_its_older_events_are_kept(
    broker: Mosquitto,
) -> None:
    signer = Stalling(KEY)
    board = Leaderboard(signer=signer)
    watcher = Watcher(board)
    hub = Subscriber(parse_broker(broker.url), board, watcher.updates, name="lane").start()
    topic = "buzzerbox/t1/state"
    sign = Signer(KEY).sign
    try:
        assert hub.subscribed.wait(10)
        publish(broker.url, [(topic, sign(topic, state(1)), True)])
        # checked on the wildcard twice (before the fold, in it), then twice on the lane,
        # which the board's new table asked for: its retained state, folded as nothing new
        assert signer.checked(topic, 4)
        assert hub.laned == {"t1"}
        publish(broker.url, [("buzzerbox/junk0/state", state(1), False)])
        assert signer.stuck.wait(10)  # the wildcard waits in it now
        junk = [(f"buzzerbox/junk{n % 50}/state", state(n), False) for n in range(JUNK // 10)]
        events = [
            ("buzzerbox/t1/event", sign("buzzerbox/t1/event", event(s, s - 1))) for s in (2, 3)
        ]
        publish(
            broker.url,
            [*junk, *((t, p, False) for t, p in events), (topic, sign(topic, state(3)), True)],
        )
        assert watcher.wait(lambda: watcher.tables["t1"]["seq"] == 3)
        assert not signer.let_go.is_set() and board.refused == 0  # all junk still ahead
        assert watcher.events["t1"] == []  # the events wait on the wildcard, behind it
        signer.let_go.set()
        assert watcher.wait(lambda: watcher.events["t1"] == [2, 3])
        assert watcher.wait(lambda: board.refused == JUNK // 10 + 1)
        assert board.snapshot()["tables"][0]["seq"] == 3  # the wildcard's state 3: nothing new
    finally:
        signer.let_go.set()
        hub.close()
