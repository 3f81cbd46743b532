"""Many tables: each box publishes its games to an MQTT broker; a hub shows them all.

- topics.py     the topic tree, box names, message ids, broker URLs (no I/O)
- derive.py     the messages of a box, derived from its log (no I/O)
- discovery.py  Home Assistant discovery configs (no I/O)
- outbox.py     when the cursor (mqtt.db, kept by buzzerbox.store.tail) may move
- connect.py    the paho client both sides use
- publisher.py  `attach(box, broker_url, box_name, data_dir) -> Publisher`, the
                `buzzerbox serve --mqtt URL --box-name NAME` options

See README.md for the topic tree, the payloads and how to run a venue's broker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from buzzerbox.mqtt.topics import BoxNameError, BrokerUrlError, MqttError, add_serve_options

if TYPE_CHECKING:
    from buzzerbox.mqtt.publisher import Publisher, attach


def __getattr__(name: str) -> Any:
    """Publisher and attach load paho when first asked for, not with the package."""
    if name in ("Publisher", "attach"):
        from buzzerbox.mqtt import publisher

        return getattr(publisher, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BoxNameError",
    "BrokerUrlError",
    "MqttError",
    "Publisher",
    "add_serve_options",
    "attach",
]
