"""Box names, broker addresses, topics and the Home Assistant configs (no broker)."""

from __future__ import annotations

import json

import jinja2
import pytest
from buzzerbox.errors import BuzzerboxError
from buzzerbox.mqtt.discovery import discovery
from buzzerbox.mqtt.errors import BoxNameError, BrokerUrlError
from buzzerbox.mqtt.topics import (
    Broker,
    check_box_name,
    default_box_name,
    message_id,
    parse_broker,
    parse_topic,
    topic,
)


@pytest.mark.parametrize("name", ["table-1", "T3", "kitchen_table", "a" * 32])
def test_box_names_that_are_topic_levels(name: str) -> None:
    assert check_box_name(name) == name


@pytest.mark.parametrize("name", ["", "a/b", "a+", "#", "-x", "tisch 1", "a" * 33, "é"])
def test_box_names_refused_with_what_is_allowed(name: str) -> None:
    with pytest.raises(BoxNameError, match="letters, digits") as info:
        check_box_name(name)
    assert isinstance(info.value, BuzzerboxError) and isinstance(info.value, ValueError)


def test_default_box_name_is_the_host_name_made_safe() -> None:
    assert default_box_name("Table 3.local") == "Table-3"
    assert default_box_name("buzzerbox") == "buzzerbox"
    assert default_box_name("...") == "box"
    check_box_name(default_box_name())


@pytest.mark.parametrize(
    ("url", "broker"),
    [
        ("mqtt://broker.local", Broker("broker.local", 1883)),
        ("mqtt://10.0.0.2:1884", Broker("10.0.0.2", 1884)),
        ("mqtts://hub.example:8884", Broker("hub.example", 8884, is_tls=True)),
        ("mqtts://hub.example", Broker("hub.example", 8883, is_tls=True)),
        ("broker.local:1999", Broker("broker.local", 1999)),
        ("mqtt://ann:p%40ss@b:1883/", Broker("b", 1883, username="ann", password="p@ss")),
        ("mqtt://[::1]:1883", Broker("::1", 1883)),
    ],
)
def test_broker_urls(url: str, broker: Broker) -> None:
    assert parse_broker(url) == broker


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://broker", "scheme 'http'"),
        ("mqtt://broker:99999", "port"),
        ("mqtt://broker:x", "port"),
        ("mqtt://", "no host"),
        ("mqtt://broker/topic", "path"),
    ],
)
def test_broker_urls_refused(url: str, why: str) -> None:
    with pytest.raises(BrokerUrlError, match=why):
        parse_broker(url)


def test_printed_url_hides_the_password() -> None:
    assert parse_broker("mqtt://ann:secret@b").url == "mqtt://ann@b:1883"


def test_topics_and_ids() -> None:
    assert topic("t1", "games", "7") == "buzzerbox/t1/games/7"
    assert message_id("t1", 7, 12) == "t1/7/12"
    parsed = parse_topic("buzzerbox/t1/games/7")
    assert parsed is not None and (parsed.box, parsed.kind, parsed.rest) == ("t1", "games", ("7",))
    assert parse_topic("buzzerbox/t1/nonsense") is None
    assert parse_topic("other/t1/state") is None
    assert parse_topic("buzzerbox/a+b/state") is None


def test_home_assistant_discovery() -> None:
    configs = {m.topic: json.loads(m.payload) for m in discovery("t1")}
    assert all(m.retain for m in discovery("t1"))
    assert set(configs) == {
        "homeassistant/binary_sensor/buzzerbox_t1/finished/config",
        "homeassistant/sensor/buzzerbox_t1/leader/config",
        "homeassistant/sensor/buzzerbox_t1/phase/config",
        "homeassistant/event/buzzerbox_t1/game/config",
        "homeassistant/device_automation/buzzerbox_t1/finished/config",
    }
    finished = configs["homeassistant/binary_sensor/buzzerbox_t1/finished/config"]
    assert finished["state_topic"] == "buzzerbox/t1/state"
    assert finished["availability_topic"] == "buzzerbox/t1/status"
    assert finished["unique_id"] == "buzzerbox_t1_finished"
    assert finished["device"]["identifiers"] == ["buzzerbox_t1"]
    event = configs["homeassistant/event/buzzerbox_t1/game/config"]
    assert event["state_topic"] == "buzzerbox/t1/ha/event"
    assert event["event_types"] == ["game_finished"]
    assert len({c["unique_id"] for c in configs.values() if "unique_id" in c}) == 4
    trigger = configs["homeassistant/device_automation/buzzerbox_t1/finished/config"]
    assert trigger["automation_type"] == "trigger"
    assert (trigger["type"], trigger["subtype"]) == ("finished", "table")
    assert trigger["topic"] == "buzzerbox/t1/ha/event"  # not retained: see test_publish
    assert trigger["payload"] == "game_finished"
    assert trigger["device"] == finished["device"]  # the box's device, with its entities
    value = jinja2.Environment().from_string(trigger["value_template"])
    assert value.render(value_json={"event_type": "game_finished"}) == "game_finished"
    other = [m.topic for m in discovery("t1", "ha")]
    assert all(t.startswith("ha/") for t in other)


def test_the_leader_is_unknown_until_someone_leads() -> None:
    """Home Assistant renders value templates with Jinja; "None" makes a sensor unknown."""
    leader = json.loads(discovery("t1")[1].payload)
    template = jinja2.Environment().from_string(leader["value_template"])
    assert template.render(value_json={"leader": ""}) == "None"
    assert template.render(value_json={"leader": "Ann, Ben"}) == "Ann, Ben"


@pytest.mark.parametrize("url", ["mqtt://box:pa/ss@host", "mqtt://box:pa#ss@host:1883"])
def test_an_unencoded_password_is_refused_with_what_to_do(url: str) -> None:
    with pytest.raises(BrokerUrlError) as info:
        parse_broker(url)
    message = str(info.value)
    assert "percent-encoded (@ as %40, : as %3A, / as %2F, % as %25)" in message
    assert "BUZZERBOX_MQTT_PASSWORD" in message
    assert "pa/ss" not in message and "pa#ss" not in message  # never print a password
    assert parse_broker("mqtt://box:pa%2Fss%40x@host").password == "pa/ss@x"
