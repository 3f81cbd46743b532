"""Issue 39, item 5: junk on the broker costs the hub little. 20,000 unsigned messages
(QoS 1, as a stranger may send them) on the boxes' topics, then a table's signed state:
the junk is refused before the expensive work (counted, acknowledged at once, never
handed to the record's keeper, which saves and snapshots the board), and the signed
state is shown after it. A real mosquitto; the hub's subscriber and keeper in this
process. The times are tests/bench/broker_attack.py's (`--flood`)."""

from __future__ import annotations

from pathlib import Path

from buzzerbox.hub.leaderboard import Leaderboard
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
