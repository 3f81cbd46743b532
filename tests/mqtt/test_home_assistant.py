"""The real-Home-Assistant tier: Home Assistant core (tests/mqtt/ha/install.sh's pin,
in a Python 3.13 venv that tests/check installs), a real mosquitto and a box in a
process of its own (kill -9 included). It checks the discovery configs against Home
Assistant's own schemas, the entities, the editor's device trigger, and how often the
README's automations and the device trigger fire: once per finish, across a box's
kill -9 and restart and a restart of Home Assistant. Never skipped: without Home
Assistant it fails and says to run tests/check."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import paho.mqtt.publish as publish
from buzzerbox.mqtt.discovery import discovery

from .ha.hass import VERSION, HomeAssistant, poll, venv_command
from .mqtt_fakes import Mosquitto, free_port
from .test_crash import BoxProcess

README = Path(__file__).parents[2] / "host" / "buzzerbox" / "mqtt" / "README.md"
BOX = "table-3"  # the README's examples are about table-3
EVENT = "event.buzzer_box_table_3_game"
MARKER = "buzzerbox-tier/marker"
COUNTED = ("readme", "readme_mqtt", "device")


def counting(automation: dict[str, Any], counter: str) -> dict[str, Any]:
    """The automation with its action replaced: count instead of flashing lights."""
    actions = [{"action": "counter.increment", "target": {"entity_id": f"counter.{counter}"}}]
    return {**automation, "id": counter, "actions": actions}


def readme_automations(python: list[str]) -> list[dict[str, Any]]:
    """The automations of the README's Home Assistant section, as the README has them
    (read by the PyYAML of Home Assistant's venv: `python`)."""
    section = README.read_text().split("## Home Assistant", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```yaml\n(.*?)```", section, re.S)
    found = [a for block in blocks for a in read_yaml(python, block)["automation"]]
    assert len(found) == 2, "the README shows two automations"
    return [counting(found[0], "readme"), counting(found[1], "readme_mqtt")]


def read_yaml(python: list[str], text: str) -> Any:
    code = "import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))"
    result = subprocess.run(
        [*python, "-c", code], input=text, capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


def marker_automation() -> dict[str, Any]:
    return counting(
        {"alias": "marker", "triggers": [{"trigger": "mqtt", "topic": MARKER}]}, "marker"
    )


def test_discovery_passes_home_assistants_own_schemas() -> None:
    configs = [[m.topic, json.loads(m.payload)] for m in discovery(BOX)]
    result = subprocess.run(
        [*venv_command(), str(Path(__file__).with_name("ha") / "schemas.py")],
        input=json.dumps(configs),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    verdicts = json.loads(result.stdout)
    assert len(verdicts) == 5
    assert all(v == {"dropped": []} for v in verdicts.values()), verdicts


def test_home_assistant_fires_once_per_finish(tmp_path: Path) -> None:
    ha = HomeAssistant(  # fails here if Home Assistant is not installed
        tmp_path / "ha",
        free_port(),
        [*readme_automations(venv_command()), marker_automation()],
        counters=[*COUNTED, "marker"],
    )
    broker = Mosquitto(tmp_path / "broker")
    broker.start()
    box: BoxProcess | None = None
    marks = 0

    def barrier() -> None:
        """Everything Home Assistant got before this marker message has been handled."""
        nonlocal marks
        marks += 1
        publish.single(MARKER, "x", hostname="127.0.0.1", port=broker.port)
        poll(f"marker {marks}", lambda: count("marker") == marks)

    def count(name: str) -> int:
        state = ha.state(f"counter.{name}")
        return -1 if state is None else int(state["state"])

    def fired() -> dict[str, int]:
        return {name: count(name) for name in COUNTED}

    def play(players: list[str]) -> None:
        assert box is not None
        box.send(op="game", players=players)
        for winner in (0, 1, 0):
            box.send(op="round", winner=winner)
        done = box.send(op="wait")
        assert done["published"] == done["seq"]

    (tmp_path / "box").mkdir()
    try:
        box = BoxProcess(tmp_path / "box", broker.url, BOX)
        box.send(op="wait")
        ha.start()
        ha.onboard()
        ha.add_mqtt(broker.port)
        # discovered; the event entity has seen no event yet
        poll(
            "the box's event entity, unknown",
            lambda: (ha.state(EVENT) or {}).get("state") == "unknown",
        )
        assert ha.state("sensor.buzzer_box_table_3_phase")["state"] == "idle"  # type: ignore[index]
        device = ha.template(f"{{{{ device_id('{EVENT}') }}}}")
        (triggers,) = ha.websocket({"type": "device_automation/trigger/list", "device_id": device})
        ours = [t for t in triggers if t["domain"] == "mqtt"]
        assert [(t["type"], t["subtype"]) for t in ours] == [("finished", "table")], triggers
        automation = {
            "alias": "Table finished (device trigger)",
            "triggers": [ours[0]],  # as the editor puts it
            "actions": counting({}, "device")["actions"],
        }
        assert ha.api("POST", "/api/config/automation/config/device", automation) == {
            "result": "ok"
        }
        poll(
            "the device trigger's automation",
            lambda: (
                (ha.state("automation.table_finished_device_trigger") or {}).get("state") == "on"
            ),
        )
        barrier()
        assert fired() == {"readme": 0, "readme_mqtt": 0, "device": 0}

        play(["Ann", "Ben"])  # the first finish this Home Assistant sees
        poll(
            "the finish",
            lambda: (ha.state(EVENT) or {}).get("attributes", {}).get("winners") == ["Ann"],
        )
        barrier()
        assert fired() == {"readme": 1, "readme_mqtt": 1, "device": 1}
        assert ha.state("binary_sensor.buzzer_box_table_3_game_finished")["state"] == "on"  # type: ignore[index]
        assert ha.state("sensor.buzzer_box_table_3_leader")["state"] == "Ann"  # type: ignore[index]
        finished_at = ha.state(EVENT)["state"]  # type: ignore[index]

        box.kill()  # kill -9: its last will makes it unavailable
        poll("the box unavailable", lambda: ha.state(EVENT)["state"] == "unavailable")  # type: ignore[index]
        box = BoxProcess(tmp_path / "box", broker.url, BOX)
        box.send(op="wait")
        poll("the box back", lambda: ha.state(EVENT)["state"] != "unavailable")  # type: ignore[index]
        barrier()
        assert fired() == {"readme": 1, "readme_mqtt": 1, "device": 1}, "a box's restart"
        assert ha.state(EVENT)["state"] == finished_at  # type: ignore[index]

        ha.stop()
        ha.start()
        poll(
            "the event entity restored", lambda: (ha.state(EVENT) or {}).get("state") == finished_at
        )
        barrier()
        assert fired() == {"readme": 1, "readme_mqtt": 1, "device": 1}, "a Home Assistant restart"

        play(["Cem", "Dan"])
        poll(
            "the second finish",
            lambda: (ha.state(EVENT) or {}).get("attributes", {}).get("winners") == ["Cem"],
        )
        barrier()
        assert fired() == {"readme": 2, "readme_mqtt": 2, "device": 2}
        errors = [
            line
            for line in ha.log.splitlines()
            if re.search(r"(ERROR|WARNING) \(\w+\) \[homeassistant\.components\.mqtt", line)
        ]
        assert errors == [], errors
    finally:
        if box is not None:
            box.kill()
        ha.stop()
        broker.stop()


def test_the_version_tested_is_the_readmes() -> None:
    assert f"Home Assistant core {VERSION}" in README.read_text().replace("\n", " ")
