"""Run by Home Assistant's own Python (the tier's venv), not collected: each discovery
config on stdin (JSON: a list of [topic, payload]) checked against the schema Home
Assistant's MQTT integration applies to it. Prints, as JSON, per topic: the error
Home Assistant would log, or the keys its schema drops without a word (REMOVE_EXTRA:
a misspelt key is lost silently)."""

# mypy: ignore-errors
# (run by the venv's Python 3.13, whose Home Assistant and aiohttp mypy here has not)

import asyncio
import json
import sys
import tempfile

import voluptuous as vol
from homeassistant.components.mqtt import binary_sensor, device_trigger, event, sensor
from homeassistant.core import HomeAssistant
from homeassistant.helpers import frame

SCHEMAS = {
    "binary_sensor": binary_sensor.DISCOVERY_SCHEMA,
    "sensor": sensor.DISCOVERY_SCHEMA,
    "event": event.DISCOVERY_SCHEMA,
    "device_automation": device_trigger.TRIGGER_DISCOVERY_SCHEMA,
}


def check(topic: str, payload: dict) -> dict:
    component = topic.split("/")[1]
    if component not in SCHEMAS:
        return {"error": f"no schema for component {component!r}"}
    try:
        valid = SCHEMAS[component](dict(payload))
    except vol.Invalid as exc:
        return {"error": str(exc)}
    return {"dropped": sorted(set(payload) - set(valid))}


async def main() -> None:
    configs = json.load(sys.stdin)
    with tempfile.TemporaryDirectory() as folder:
        hass = HomeAssistant(folder)  # templates are checked within a Home Assistant
        frame.async_setup(hass)
        print(json.dumps({topic: check(topic, payload) for topic, payload in configs}))
        await hass.async_stop(force=True)


if __name__ == "__main__":
    asyncio.run(main())
