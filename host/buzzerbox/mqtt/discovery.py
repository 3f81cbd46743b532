"""Home Assistant MQTT discovery: the entities of a box, so a venue's lights can react.

Each box is a device `buzzerbox_<box>` with (retained configs under the discovery
prefix, "homeassistant" by default):

    binary_sensor/buzzerbox_<box>/finished/config   on while the table's game is finished
    sensor/buzzerbox_<box>/leader/config            who leads (the winners once finished)
    sensor/buzzerbox_<box>/phase/config             lobby, countdown, playing, scoring, ...
    event/buzzerbox_<box>/game/config               fires "game_finished" when a game ends
    device_automation/buzzerbox_<box>/finished/config   the device trigger "table finished"

All but the event read the box's retained `state` topic through a value template, so
they are right again as soon as Home Assistant reconnects; all are unavailable while
the box's `status` is "offline" (its last will). The device trigger (type "finished",
subtype "table": Home Assistant's automation editor offers it on the box's device)
fires on the not-retained `ha/event` topic, which carries each fresh finish once (the
publisher never sends a finish's event again once the broker acknowledged it), so it
fires once per finish: not when Home Assistant restarts nor when the box reconnects.
"""

from __future__ import annotations

from typing import Any

from buzzerbox import __version__
from buzzerbox.mqtt.derive import Outgoing, dump
from buzzerbox.mqtt.topics import OFFLINE, ONLINE, topic

DEFAULT_PREFIX = "homeassistant"


def node_id(box: str) -> str:
    return f"buzzerbox_{box}"


def discovery(box: str, prefix: str = DEFAULT_PREFIX) -> list[Outgoing]:
    """The retained discovery configs of one box."""
    node = node_id(box)
    state = topic(box, "state")
    common: dict[str, Any] = {
        "availability_topic": topic(box, "status"),
        "payload_available": ONLINE,
        "payload_not_available": OFFLINE,
        "device": {
            "identifiers": [node],
            "name": f"Buzzer box {box}",
            "manufacturer": "buzzerbox",
            "model": "buzzer box",
            "sw_version": __version__,
        },
        "origin": {"name": "buzzerbox", "sw_version": __version__},
    }
    entities: list[tuple[str, str, dict[str, Any]]] = [
        (
            "binary_sensor",
            "finished",
            {
                "name": "Game finished",
                "state_topic": state,
                "value_template": "{{ 'ON' if value_json.finished else 'OFF' }}",
                "icon": "mdi:flag-checkered",
            },
        ),
        (
            "sensor",
            "leader",
            {
                "name": "Leader",
                "state_topic": state,
                # no leader yet: "None", which Home Assistant shows as unknown (not "")
                "value_template": "{{ value_json.leader if value_json.leader else None }}",
                "json_attributes_topic": state,
                "json_attributes_template": (
                    "{{ {'game': value_json.title, 'round': value_json.round, "
                    "'phase': value_json.phase, 'game_id': value_json.game_id} | tojson }}"
                ),
                "icon": "mdi:trophy",
            },
        ),
        (
            "sensor",
            "phase",
            {
                "name": "Phase",
                "state_topic": state,
                "value_template": "{{ value_json.phase }}",
                "icon": "mdi:cards-playing",
            },
        ),
        (
            "event",
            "game",
            {
                "name": "Game",
                "state_topic": topic(box, "ha", "event"),
                "event_types": ["game_finished"],
                "icon": "mdi:bell-ring",
            },
        ),
    ]
    configs = [
        Outgoing(
            f"{prefix}/{component}/{node}/{obj}/config",
            dump({**config, "unique_id": f"{node}_{obj}", **common}),
            retain=True,
        )
        for component, obj, config in entities
    ]
    return [*configs, _trigger(box, prefix, common)]


def _trigger(box: str, prefix: str, common: dict[str, Any]) -> Outgoing:
    """The device trigger "table finished": a trigger has no availability nor unique id
    (Home Assistant's schema drops them), only its device, what it listens to and what
    the automation editor shows ("table" finished)."""
    config = {
        "automation_type": "trigger",
        "type": "finished",
        "subtype": "table",
        "topic": topic(box, "ha", "event"),  # not retained: nothing fires it on a restart
        "value_template": "{{ value_json.event_type }}",
        "payload": "game_finished",
        "device": common["device"],
    }
    return Outgoing(
        f"{prefix}/device_automation/{node_id(box)}/finished/config", dump(config), retain=True
    )
