"""Issue 39, item 4: a recording cannot speak for a box. A signed result, captured,
replayed (retained) after its box withdrew it, does not bring the withdrawn win back,
and it does not after a restart of the hub either: the hub remembers, in its record,
the newest it accepted of each game, withdrawals included (the board alone, then a real
`buzzerbox hub` with the event's key on a real mosquitto). A captured claim of a name's
earlier holder, replayed at the new box each time it claims, does not silence it: a
claim makes a box give way only if it answers that box's latest (mqtt/claim.py)."""

from __future__ import annotations

from pathlib import Path

from buzzerbox.hub.leaderboard import Leaderboard
from buzzerbox.mqtt.connect import REFUSED
from buzzerbox.mqtt.sign import Signer

from .mqtt_fakes import (
    TIMEOUT_S,
    Attach,
    MakeBox,
    ManualClock,
    Mosquitto,
    Record,
    Recorder,
    kids_round,
)
from .test_board import result, state
from .test_names import statuses
from .test_untrusted import Hub, publish

KEY = b"the-event-key-0123456789abcdef"
GAME = "buzzerbox/t5/games/1"


def signed(topic: str, payload: bytes) -> tuple[str, bytes]:
    return topic, Signer(KEY).sign(topic, payload)


def winners(board: Leaderboard) -> list[tuple[str, int]]:
    return [(r["name"], r["wins"]) for r in board.snapshot()["tournament"]]


def test_a_replayed_result_does_not_undo_its_withdrawal() -> None:
    board = Leaderboard(signer=Signer(KEY))
    win = signed(GAME, result("t5", 1, 10, ["Ann"]))  # the recording
    board.apply(*win)
    assert winners(board) == [("Ann", 1), ("Ben", 0)]
    board.apply(*signed(GAME, result("t5", 1, 12, [], finished=False)))  # undone at the box
    assert winners(board) == []
    board.apply(*win)  # the recording, replayed
    assert winners(board) == []
    restarted = Leaderboard(signer=Signer(KEY))  # the hub restarted: its record read back
    restarted.restore(board.record())
    restarted.apply(*win)
    assert winners(restarted) == []
    # a withdrawal the hub never saw the result of counts all the same
    never_seen = Leaderboard(signer=Signer(KEY))
    never_seen.apply(*signed(GAME, result("t5", 1, 12, [], finished=False)))
    never_seen.apply(*win)
    assert winners(never_seen) == []
    # the box finishes the game again: a newer result counts
    restarted.apply(*signed(GAME, result("t5", 1, 15, ["Ben"])))
    assert winners(restarted) == [("Ben", 1), ("Ann", 0)]


def test_a_replayed_result_stays_out_of_a_real_hub_over_a_restart(
    broker: Mosquitto, tmp_path: Path
) -> None:
    (tmp_path / "key").write_bytes(KEY)
    options = ["--insecure-open-broker", "--secret-file", str(tmp_path / "key")]
    win = (*signed(GAME, result("t5", 1, 10, ["Ann"])), True)
    withdrawn = (*signed(GAME, result("t5", 1, 12, [], finished=False)), True)
    hub = Hub(broker, tmp_path / "hub", *options)
    try:
        publish(broker.url, [(*signed("buzzerbox/t5/state", state(9)), True), win])
        publish(broker.url, [(*signed("buzzerbox/t5/state", state(10)), True)])
        hub.wait_table("t5", 10)
        assert [r["name"] for r in hub.board()["tournament"]] == ["Ann", "Ben"]
        publish(broker.url, [withdrawn, (*signed("buzzerbox/t5/state", state(12)), True)])
        hub.wait_table("t5", 12)
        assert hub.board()["tournament"] == []
        # the stranger's recording, retained; then the box's next state (in order after it)
        publish(broker.url, [win, (*signed("buzzerbox/t5/state", state(13)), True)])
        hub.wait_table("t5", 13)
        assert hub.board()["tournament"] == []
    finally:
        hub.stop()
    hub = Hub(broker, tmp_path / "hub", *options)  # the retained recording comes again
    try:
        publish(broker.url, [(*signed("buzzerbox/t5/state", state(14)), True)])
        hub.wait_table("t5", 14)
        assert hub.board()["tournament"] == []
    finally:
        hub.stop()
        publish(broker.url, [(GAME, b"", True), ("buzzerbox/t5/state", b"", True)])


def test_a_replayed_claim_of_the_names_earlier_holder_does_not_silence_the_new_box(
    broker: Mosquitto, make_box: MakeBox, attached: Attach, recorders: Record, clock: ManualClock
) -> None:
    """The old box of name t6 is gone; its signed claim was captured. The new box (the
    same key, another machine) comes; the recording is replayed at it, three times: it
    is challenged, nobody answers, the new box plays on."""
    recorder = recorders(["buzzerbox/t6/claim", "buzzerbox/t6/status"])
    old = attached(make_box("old", clock), "t6", "old", signer=Signer(KEY))
    assert old.wait_connected(TIMEOUT_S)
    assert recorder.wait(lambda ms: bool(recorder.on("buzzerbox/t6/claim")))  # on its way
    captured = bytes(recorder.on("buzzerbox/t6/claim")[0].payload)  # the old box's, signed
    old.close()
    new_box = make_box("new", clock)
    new = attached(new_box, "t6", "new", signer=Signer(KEY), grace_s=0.3, lose_retry_s=0.5)
    seen = statuses(new.link)
    assert new.wait_connected(TIMEOUT_S)
    puts = len(new_claims(recorder, captured))
    publish(broker.url, [("buzzerbox/t6/claim", captured, False)] * 3)  # the recording, live
    # challenged (at most once a second: one claim for the three), and nobody answers
    assert recorder.wait(lambda ms: len(new_claims(recorder, captured)) > puts)
    new_box.new_game({"game": "kids", "players": ["Ann", "Ben"]})
    kids_round(new_box, clock, 0)
    assert new.wait_published(new_box.seq, TIMEOUT_S)
    assert all(s.state != REFUSED for s in seen), seen
    assert [m.payload for m in recorder.on("buzzerbox/t6/status")][-1] == b"online"
    assert new.is_connected and len(new_claims(recorder, captured)) == puts + 1


def new_claims(recorder: Recorder, captured: bytes) -> list[bytes]:
    """The claims put on t6 since the old box's (the new box's, and the replays)."""
    claims = [bytes(m.payload) for m in recorder.on("buzzerbox/t6/claim")]
    return [c for c in claims[1:] if c != captured]
