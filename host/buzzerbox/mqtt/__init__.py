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

from buzzerbox.mqtt.publisher import Publisher, add_serve_options, attach
from buzzerbox.mqtt.topics import BoxNameError, BrokerUrlError, MqttError

__all__ = [
    "BoxNameError",
    "BrokerUrlError",
    "MqttError",
    "Publisher",
    "add_serve_options",
    "attach",
]
