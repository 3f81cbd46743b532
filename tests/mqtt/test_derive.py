"""What a box publishes, derived from its log: ids, order, races, results (no broker)."""

from __future__ import annotations

import json
from typing import Any

from buzzerbox.box import Box
from buzzerbox.box.checks import table_entry
from buzzerbox.mqtt.derive import Deriver, Outgoing
from buzzerbox.mqtt.outbox import Acks
from buzzerbox.rules.eventjson import parse_edge
from buzzerbox.store import StoredEvent
from buzzerbox.store.tail import LogTail

from .mqtt_fakes import COUNTDOWN_US, MakeBox, ManualClock, kids_round


def payloads(messages: list[Outgoing], kind: str) -> list[dict[str, Any]]:
    return [json.loads(m.payload) for m in messages if m.topic.split("/")[2] == kind]


def stored(box: Box) -> list[StoredEvent]:
    tail = LogTail(box.log.path)
    try:
        return tail.after(0, 10_000)
    finally:
        tail.close()


def play_kids(box: Box, clock: ManualClock) -> None:
    box.new_game({"game": "kids", "players": ["Ann", "Ben", "Cem"]})
    kids_round(box, clock, winner=1, after_us=900_000)
    kids_round(box, clock, winner=0, after_us=700_000)
    kids_round(box, clock, winner=1, after_us=800_000)


def test_every_event_once_in_log_order_with_its_id(make_box: MakeBox, clock: ManualClock) -> None:
    box = make_box("t1", clock)
    play_kids(box, clock)
    events = stored(box)
    deriver = Deriver("t1")
    messages = [m for e in events for m in deriver.feed(e, now=e.at)]
    sent = payloads(messages, "event")
    assert [p["seq"] for p in sent] == [e.seq for e in events]
    assert [p["prev"] for p in sent] == [None] + [e.seq for e in events[:-1]]
    game_id = events[0].seq
    assert [p["id"] for p in sent] == [f"t1/{game_id}/{e.seq}" for e in events]
    assert sent[0]["event"]["type"] == "game"
    assert all(m.seq is not None for m in messages)
    assert deriver.refused == 0


def test_races_results_and_home_assistant(make_box: MakeBox, clock: ManualClock) -> None:
    box = make_box("t1", clock)
    play_kids(box, clock)
    events = stored(box)
    deriver = Deriver("t1")
    messages = [m for e in events for m in deriver.feed(e, now=e.at + 1)]
    races = payloads(messages, "race")
    assert [r["first"] for r in races] == ["Ben", "Ann", "Ben"]
    assert [r["reaction_us"] for r in races] == [900_000, 700_000, 800_000]
    assert all(m.retain for m in messages if "/race" in m.topic)
    (result,) = payloads(messages, "games")
    assert result["finished"] is True and result["winners"] == ["Ben"]
    assert result["stats"]["Ben"] == {"races": 2, "fastest_us": 800_000, "closest_us": None}
    assert result["high_wins"] is False
    (ha,) = payloads(messages, "ha")
    assert ha["event_type"] == "game_finished" and ha["winners"] == ["Ben"]
    finish = next(m for m in messages if "/ha/" in m.topic).seq
    assert ha["seq"] == finish and ha["id"] == f"t1/{events[0].seq}/{finish}"  # as every one
    assert {"v", "box", "game_id", "at"} <= set(ha)
    state = json.loads(deriver.state_message().payload)
    assert state["finished"] is True and state["leader"] == "Ben"
    assert state["state"]["phase"] == "finished" and state["seq"] == events[-1].seq


def test_a_late_finish_fires_no_home_assistant_event(make_box: MakeBox, clock: ManualClock) -> None:
    box = make_box("t1", clock)
    play_kids(box, clock)
    deriver = Deriver("t1")
    messages = [m for e in stored(box) for m in deriver.feed(e, now=e.at + 3600)]
    assert payloads(messages, "games") and not payloads(messages, "ha")


def test_an_undone_finish_withdraws_the_result(make_box: MakeBox, clock: ManualClock) -> None:
    box = make_box("t1", clock)
    box.new_game({"game": "ligretto", "players": ["Ann", "Ben"], "target": 50})
    box.submit(table_entry({"type": "finish"}))
    box.submit(table_entry({"type": "undo"}))
    deriver = Deriver("t1")
    messages = [m for e in stored(box) for m in deriver.feed(e, now=e.at)]
    assert [r["finished"] for r in payloads(messages, "games")] == [True, False]


def test_twinit_slaps_update_the_race_with_the_margin(
    make_box: MakeBox, clock: ManualClock
) -> None:
    box = make_box("t1", clock)
    box.new_game({"game": "twinit", "players": ["Ann", "Ben", "Cem"]})
    box.submit(table_entry({"type": "round"}))
    clock.advance(COUNTDOWN_US)
    go = box.now_us()
    box.play(parse_edge(True, 2, "slap", go + 400_000))
    box.play(parse_edge(True, 0, "slap", go + 400_350))
    box.submit(table_entry({"type": "claim", "result": "pair"}))
    box.play(parse_edge(True, 1, "slap", go + 9_000_000))
    deriver = Deriver("t1")
    races = payloads([m for e in stored(box) for m in deriver.feed(e, now=e.at)], "race")
    assert [(r["first"], r["lead_us"], r["reaction_us"]) for r in races] == [
        ("Cem", None, 400_000),
        ("Cem", 350, 400_000),
        ("Ben", None, None),  # only the first race of a round has a reaction
    ]
    assert races[0]["key"] == races[1]["key"] != races[2]["key"]


def test_a_race_too_close_to_call_says_so_and_is_nobodys_closest_finish(
    make_box: MakeBox, clock: ManualClock
) -> None:
    """Issue 41: two slaps 350 µs apart timed to ±900 µs each (phones) are too close to
    call: the race says `close`, keeps each press's error, and its 350 µs is not the
    claimant's closest finish (the hub would print it); wired pads 350 µs apart are not."""
    box = make_box("t1", clock)
    box.new_game({"game": "twinit", "players": ["Ann", "Ben", "Cem"]})
    box.submit(table_entry({"type": "round"}))
    clock.advance(COUNTDOWN_US)
    go = box.now_us()
    box.play(parse_edge(True, 2, "slap", go + 400_000, None, 900))
    box.play(parse_edge(True, 0, "slap", go + 400_350, None, 900))
    box.submit(table_entry({"type": "claim", "result": "split"}))
    box.play(parse_edge(True, 1, "slap", go + 9_000_000))
    box.play(parse_edge(True, 0, "slap", go + 9_000_350))
    deriver = Deriver("t1")
    races = payloads([m for e in stored(box) for m in deriver.feed(e, now=e.at)], "race")
    assert [(r["first"], r["lead_us"], r["close"]) for r in races] == [
        ("Cem", None, False),
        ("Cem", 350, True),
        ("Ben", None, False),
        ("Ben", 350, False),
    ]
    assert [p.get("error_us") for p in races[1]["presses"]] == [900, 900]
    box.submit(table_entry({"type": "finish"}))
    results = payloads([m for e in stored(box)[-1:] for m in deriver.feed(e, now=e.at)], "games")
    assert results[-1]["stats"]["Cem"]["closest_us"] is None
    assert results[-1]["stats"]["Ben"]["closest_us"] == 350


def test_a_restart_derives_the_same_messages(make_box: MakeBox, clock: ManualClock) -> None:
    """Catching up from a cursor gives byte for byte the messages of one run, so ids
    match what the broker may already have."""
    box = make_box("t1", clock)
    play_kids(box, clock)
    events = stored(box)
    one_run = Deriver("t1")
    whole = [m for e in events for m in one_run.feed(e, now=e.at)]
    for cut in (1, 5, len(events) - 2):
        again = Deriver("t1")
        again.load(events[:cut])
        rest = [m for e in events[cut:] for m in again.feed(e, now=e.at)]
        first_of_rest = next(i for i, m in enumerate(whole) if m.seq == events[cut].seq)
        assert rest == whole[first_of_rest:]
    assert one_run.state_message() == again.state_message()


def test_acks_move_the_cursor_only_over_events_done_in_order() -> None:
    acks = Acks(10)
    acks.expect(11)
    acks.sent(1, 11)
    acks.sent(2, 11)
    acks.seal(11)
    acks.expect(12)
    acks.acked(3)  # the ack before publish() returned its mid
    acks.sent(3, 12)
    acks.sent(4, None)  # the state: not tracked
    assert acks.advance() == 10 and acks.outstanding == 2
    acks.acked(2)
    assert acks.advance() == 10
    acks.acked(1)
    assert acks.advance() == 11 and acks.outstanding == 1  # 12 is not sealed yet
    acks.seal(12)
    assert acks.advance() == 12 and acks.outstanding == 0


def test_an_event_being_handed_over_is_not_done_while_its_messages_go_out() -> None:
    """`advance` runs on each PUBACK in the network thread: an event expected and not
    yet sealed (its first message acked, the next not yet published) holds the cursor."""
    acks = Acks(10)
    acks.expect(11)
    acks.sent(1, 11)
    acks.acked(1)  # every message sent so far is acked: 0 left, but more are coming
    assert acks.advance() == 10
    acks.sent(2, 11)
    acks.seal(11)
    assert acks.advance() == 10
    acks.acked(2)
    assert acks.advance() == 11
    acks.start_at(5)  # a new connection never moves the cursor back
    assert acks.done == 11
