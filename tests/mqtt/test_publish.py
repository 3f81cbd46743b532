"""A box on a real mosquitto: what it publishes, how it plays on without the broker
and catches up in order, and what survives a restart of the box."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from buzzerbox.box import Box
from buzzerbox.mqtt import BoxNameError, BrokerUrlError, Publisher, add_serve_options, attach
from buzzerbox.mqtt.topics import parse_broker

from .mqtt_fakes import (
    Attach,
    MakeBox,
    ManualClock,
    Mosquitto,
    Record,
    Recorder,
    kids_round,
    log_seqs,
)

TIMEOUT_S = 15.0


def event_seqs(recorder: Recorder, box: str) -> list[int]:
    return [json.loads(m.payload)["seq"] for m in recorder.on(f"buzzerbox/{box}/event")]


def in_order_once(seqs: list[int]) -> list[int]:
    """What a subscriber keeps that drops a seq not above the last it kept."""
    kept: list[int] = []
    for seq in seqs:
        if not kept or seq > kept[-1]:
            kept.append(seq)
    return kept


def first_round_out_then_no_broker(
    broker: Mosquitto, box: Box, publisher: Publisher, clock: ManualClock
) -> None:
    """A game of three begun, its first round published; then the broker is gone."""
    box.new_game({"game": "kids", "players": ["Ann", "Ben", "Cem"]})
    kids_round(box, clock, 0)
    assert publisher.wait_published(box.seq, TIMEOUT_S)
    broker.stop()


def test_a_box_publishes_its_games(
    make_box: MakeBox, attached: Attach, recorders: Record, clock: ManualClock
) -> None:
    recorder = recorders(["buzzerbox/#", "homeassistant/#"])
    box = make_box("t1", clock)
    publisher = attached(box, "t1")
    box.new_game({"game": "kids", "players": ["Ann", "Ben"]})
    for winner in (0, 1, 0):
        kids_round(box, clock, winner)
    assert publisher.wait_published(box.seq, TIMEOUT_S)
    # the finish's messages go out in order: the result, then Home Assistant's event
    assert recorder.wait(lambda ms: any(m.topic.endswith("/ha/event") for m in ms))
    assert event_seqs(recorder, "t1") == log_seqs(box)
    events = recorder.on("buzzerbox/t1/event")
    assert all(m.qos == 1 for m in events)
    assert json.loads(events[0].payload)["id"] == "t1/1/1"
    (online,) = recorder.on("buzzerbox/t1/status")
    assert online.payload == b"online"
    (result,) = recorder.on("buzzerbox/t1/games/1")
    assert json.loads(result.payload)["winners"] == ["Ann"]
    assert len(recorder.on("buzzerbox/t1/race")) == 3
    assert len(recorder.on("buzzerbox/t1/ha/event")) == 1
    assert recorder.wait(
        lambda ms: any(
            m.topic == "buzzerbox/t1/state" and json.loads(m.payload)["seq"] == box.seq for m in ms
        )
    )
    publisher.close()
    recorder.close()
    # a newcomer gets the retained: status (offline after a clean close), state, race,
    # the result and Home Assistant's discovery configs
    late = recorders(["buzzerbox/#", "homeassistant/#"])
    assert late.wait(lambda ms: len({m.topic for m in ms}) >= 8)
    topics = {m.topic: m for m in late.messages}
    assert all(m.retain for m in late.messages)
    assert topics["buzzerbox/t1/status"].payload == b"offline"
    state = json.loads(topics["buzzerbox/t1/state"].payload)
    assert state["seq"] == box.seq and state["finished"] and state["leader"] == "Ann"
    assert "homeassistant/binary_sensor/buzzerbox_t1/finished/config" in topics
    assert "buzzerbox/t1/event" not in topics


def test_a_box_plays_on_without_the_broker_and_catches_up(
    broker: Mosquitto, make_box: MakeBox, attached: Attach, recorders: Record, clock: ManualClock
) -> None:
    recorder = recorders(["buzzerbox/+/event"], client_id="rec", clean=False)
    box = make_box("t1", clock)
    publisher = attached(box, "t1")
    first_round_out_then_no_broker(broker, box, publisher, clock)
    kids_round(box, clock, 1)  # no broker: the box plays on, the log keeps it
    kids_round(box, clock, 2)
    assert box.state()["phase"] == "finished"
    assert publisher.published_seq < box.seq
    broker.start()
    assert publisher.wait_published(box.seq, TIMEOUT_S)
    assert recorder.wait(lambda ms: len({m.payload for m in ms}) == len(log_seqs(box)))
    # QoS 1 may deliver one twice (the broker's own redelivery after its restart):
    # dropping what is not newer than the last seen gives every event, in order
    assert in_order_once(event_seqs(recorder, "t1")) == log_seqs(box)


def test_a_restarted_box_goes_on_from_its_cursor(
    make_box: MakeBox, attached: Attach, recorders: Record, clock: ManualClock
) -> None:
    recorder = recorders(["buzzerbox/+/event"])
    box = make_box("t1", clock)
    publisher = attached(box, "t1")
    box.new_game({"game": "kids", "players": ["Ann", "Ben"]})
    kids_round(box, clock, 0)
    assert publisher.wait_published(box.seq, TIMEOUT_S)
    publisher.close()
    box.close()
    box = make_box("t1", clock)  # the same log
    assert box.state()["round"] == 1
    kids_round(box, clock, 1)  # while the box's publisher is not running
    publisher = attached(box, "t1")
    kids_round(box, clock, 1)
    assert publisher.wait_published(box.seq, TIMEOUT_S)
    assert recorder.wait(lambda ms: len(ms) == len(log_seqs(box)))
    assert event_seqs(recorder, "t1") == log_seqs(box)


def test_a_new_box_name_starts_with_the_last_game(
    broker: Mosquitto, make_box: MakeBox, recorders: Record, clock: ManualClock, tmp_path: Path
) -> None:
    box = make_box("t1", clock)
    box.new_game({"game": "kids", "players": ["Ann", "Ben"]})
    kids_round(box, clock, 0)
    box.new_game({"game": "kids", "players": ["Cem", "Dan"]})
    recorder = recorders(["buzzerbox/+/event"])
    publisher = Publisher(box.log.path, "t1", tmp_path / "t1", parse_broker(broker.url))
    publisher.listen_to(box)
    publisher.start()
    try:
        assert publisher.wait_published(box.seq, TIMEOUT_S)
        assert recorder.wait(lambda ms: len(ms) == 1)
        (first,) = recorder.messages
        assert json.loads(first.payload)["event"]["players"] == ["Cem", "Dan"]
    finally:
        publisher.close()


def test_flow_control_a_backlog_goes_out_in_small_windows(
    broker: Mosquitto, make_box: MakeBox, recorders: Record, clock: ManualClock, tmp_path: Path
) -> None:
    recorder = recorders(["buzzerbox/+/event"])
    box = make_box("t1", clock)
    broker_at = parse_broker(broker.url)
    publisher = Publisher(box.log.path, "t1", tmp_path / "t1", broker_at, window=4, batch=3)
    publisher.listen_to(box)
    publisher.start()
    try:
        for players in (["Ann", "Ben"], ["Cem", "Dan"], ["Eve", "Fay"]):
            box.new_game({"game": "kids", "players": players})
            for winner in (0, 1, 1):
                kids_round(box, clock, winner)
        assert publisher.wait_published(box.seq, TIMEOUT_S)
        assert recorder.wait(lambda ms: len(ms) == len(log_seqs(box)))
        assert event_seqs(recorder, "t1") == log_seqs(box)
    finally:
        publisher.close()


def test_the_serve_options_and_attach(
    broker: Mosquitto, make_box: MakeBox, clock: ManualClock, tmp_path: Path
) -> None:
    """The two lines `buzzerbox serve` takes: the options, and attach when --mqtt."""
    parser = argparse.ArgumentParser()
    add_serve_options(parser)
    args = parser.parse_args(["--mqtt", broker.url, "--box-name", "table-7"])
    box = make_box("t7", clock)
    with pytest.raises(BoxNameError):
        attach(box, args.mqtt, "table 7", tmp_path)
    with pytest.raises(BrokerUrlError):
        attach(box, "http://broker", args.box_name, tmp_path)
    assert box.when_changed == []  # a refused attach leaves nothing behind
    publisher = attach(box, args.mqtt, args.box_name, tmp_path) if args.mqtt else None
    assert publisher is not None and publisher.name == "table-7"
    try:
        assert publisher.wait_connected(TIMEOUT_S)
        box.new_game({"game": "kids", "players": ["Ann", "Ben"]})
        assert publisher.wait_published(box.seq, TIMEOUT_S)
        assert (tmp_path / "mqtt.db").exists()
    finally:
        publisher.close()
    assert parser.parse_args([]).mqtt is None


def test_after_an_outage_the_backlog_goes_out_before_the_state(
    broker: Mosquitto, make_box: MakeBox, attached: Attach, recorders: Record, clock: ManualClock
) -> None:
    box = make_box("t1", clock)
    publisher = attached(box, "t1")
    first_round_out_then_no_broker(broker, box, publisher, clock)
    kids_round(box, clock, 1)  # the backlog
    kids_round(box, clock, 2)
    recorder_topics = ["buzzerbox/t1/event", "buzzerbox/t1/state"]
    broker.start()
    recorder = recorders(recorder_topics)
    assert publisher.wait_published(box.seq, TIMEOUT_S)
    assert recorder.wait(
        lambda ms: any(
            m.topic.endswith("/state") and json.loads(m.payload)["seq"] == box.seq for m in ms
        )
    )
    fresh = [m for m in recorder.messages if not m.retain]  # not the retained state
    kinds = [(m.topic.rsplit("/", 1)[1], json.loads(m.payload)["seq"]) for m in fresh]
    states = [seq for kind, seq in kinds if kind == "state"]
    assert states and all(seq == box.seq for seq in states), kinds  # never a stale one
    last_event = max(i for i, (kind, _) in enumerate(kinds) if kind == "event")
    first_state = min(i for i, (kind, _) in enumerate(kinds) if kind == "state")
    assert first_state > last_event, kinds
