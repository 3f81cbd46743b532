"""One name, one box: two boxes with the same name on a real mosquitto (the later one
stops with a message, the earlier one plays on), a stale claim, the default name."""

from __future__ import annotations

import json

from buzzerbox.mqtt.claim import (
    CHALLENGE,
    LOSE,
    NOTHING,
    OURS,
    REPUBLISH,
    WAIT,
    Claim,
    Claimant,
    owner_id,
)
from buzzerbox.mqtt.connect import CONNECTED, REFUSED, BrokerLinkStatus, wait_until
from buzzerbox.mqtt.topics import check_box_name, default_box_name

from .mqtt_fakes import TIMEOUT_S, Attach, MakeBox, ManualClock, Record, kids_round, log_seqs


def test_the_default_name_is_unique_per_machine() -> None:
    assert default_box_name("raspberrypi", machine="3FA9C2D1E0") == "raspberrypi-3fa9c2"
    assert default_box_name("Table 3.local", machine="") == "Table-3"
    long = default_box_name("a" * 40, machine="0123456789")
    assert long == "a" * 25 + "-012345" and check_box_name(long) == long
    assert owner_id("/data/a", "m1") != owner_id("/data/b", "m1") != owner_id("/data/a", "m2")
    assert owner_id("/data/a", "m1") == owner_id("/data/a", "m1")


def test_the_claim_decisions() -> None:
    mine = Claimant("aaaa", "pi-a")
    put = mine.put(100.0)  # our claim, with a fresh nonce
    older, newer = Claim("bbbb", "pi-b", 50.0), Claim("cccc", "pi-c", 200.0)
    mine.connected()
    assert mine.seen(older, retained=True) == NOTHING  # maybe stale: wait and see
    assert mine.seen(Claim("aaaa", "pi-a", 100.0), retained=False) == WAIT
    mine.connected()  # a retained claim is only ever a hint: anyone may have left it
    assert mine.seen(older, retained=True) == NOTHING
    assert mine.seen(Claim("aaaa", "pi-a", 100.0), retained=False) == WAIT
    mine.connected()
    # a live, older claim that does not answer ours: a recording, or a box just come
    # back; put ours again (a box that is there answers it)
    assert mine.seen(older, retained=False) == CHALLENGE
    assert mine.seen(Claim("bbbb", "pi-b", 50.0, "n1", answers="old"), False) == CHALLENGE
    answer = Claim("bbbb", "pi-b", 50.0, "n2", answers=put.nonce)
    assert mine.seen(answer, retained=False) == LOSE  # it answers our latest: a box is there
    mine.connected(wary=True)  # right after a short connection: wait even if ours
    assert mine.seen(Claim("aaaa", "pi-a", 100.0), retained=False) == WAIT
    assert "already used" in mine.refusal("t3", "mqtt://b") and "'pi-b'" in mine.refusal("t3", "x")
    mine.connected()
    assert mine.seen(newer, retained=True) == NOTHING  # ours replaces it
    assert mine.seen(newer, retained=False) == REPUBLISH
    assert mine.seen(Claim("aaaa", "pi-a", 100.0), retained=False) == OURS
    assert mine.seen(None, retained=True) == NOTHING
    assert Claim.parse(b'{"owner": 1}') is None and Claim.parse(b"\xff") is None
    assert Claim.parse(older.payload()) == older and Claim.parse(answer.payload()) == answer
    assert mine.may_challenge(10.0) and not mine.may_challenge(10.5) and mine.may_challenge(11.0)


def statuses(publisher_link: object) -> list[BrokerLinkStatus]:
    seen: list[BrokerLinkStatus] = []
    publisher_link.when_status.append(seen.append)  # type: ignore[attr-defined]
    return seen


def test_two_boxes_with_one_name(
    make_box: MakeBox, attached: Attach, recorders: Record, clock: ManualClock
) -> None:
    recorder = recorders(["buzzerbox/t3/status", "buzzerbox/t3/event"])
    first = make_box("a", clock)
    a = attached(first, "t3", "a")
    second = make_box("b", clock)
    assert a.wait_connected(TIMEOUT_S)
    first.new_game({"game": "kids", "players": ["Ann", "Ben"]})
    a_seen = statuses(a.link)
    second.new_game({"game": "kids", "players": ["Xia", "Yan"]})
    kids_round(second, clock, 0)
    b = attached(second, "t3", "b")  # waits 5 s: time to lose
    refused = wait_until(b.link, (REFUSED,), 20)
    assert refused.state == REFUSED, refused
    assert refused.reason.startswith("the box name 't3' is already used on mqtt://")
    assert "give this box a name of its own (--box-name NAME" in refused.reason
    assert second.state()["box"]["mqtt"]["state"] == "refused"
    assert wait_until(a.link, (CONNECTED,), TIMEOUT_S).state == CONNECTED
    kids_round(first, clock, 1)
    assert a.wait_published(first.seq, TIMEOUT_S)
    assert recorder.wait(
        lambda ms: any(
            json.loads(m.payload)["seq"] == first.seq for m in ms if m.topic.endswith("/event")
        )
    )
    # only the first box's events went out under the name, and it was thrown off
    # at most three times (not every second)
    seqs = [json.loads(m.payload)["seq"] for m in recorder.on("buzzerbox/t3/event")]
    assert sorted(set(seqs)) == log_seqs(first)
    assert sum(s.state == CONNECTED for s in a_seen) <= 4
    assert not b.link.is_connected and b.published_seq < second.seq


def test_a_stale_claim_is_taken_over_after_the_grace(
    make_box: MakeBox, attached: Attach, clock: ManualClock
) -> None:
    old = make_box("old", clock)
    a = attached(old, "t4", "old", grace_s=0.5)
    assert a.wait_connected(TIMEOUT_S)
    a.close()  # the old box is gone (its claim stays, retained)
    new = make_box("new", clock)
    b = attached(new, "t4", "new", grace_s=0.5)
    assert b.wait_connected(TIMEOUT_S)
    new.new_game({"game": "kids", "players": ["Ann", "Ben"]})
    assert b.wait_published(new.seq, TIMEOUT_S)
