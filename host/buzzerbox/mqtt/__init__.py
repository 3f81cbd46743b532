"""Many tables: each box publishes its games to an MQTT broker; a hub shows them all.

- topics.py     the topic tree, box names, message ids, broker URLs (no I/O)
- derive.py     the messages of a box, derived from its log (no I/O)
- discovery.py  Home Assistant discovery configs (no I/O)
- claim.py      one name, one box: the claim that tells two boxes apart (pure)
- nameguard.py  `NameGuard`: the claim on the connection, giving way, trying again
- outbox.py     when the cursor (mqtt.db, kept by buzzerbox.store.tail) may move
- connect.py    the connection both sides use: `BrokerLink`, and why it is down, in words
- publisher.py  `Publisher`: a box's log to the broker
- settings.py   `attach(box, ...)`, serve's options and config keys, the environment
- brokerprobe.py one attempt to reach the broker, for `buzzerbox doctor`

See README.md for the topic tree, the payloads and how to run a venue's broker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from buzzerbox import lazy
from buzzerbox.mqtt.errors import BoxNameError, BrokerUrlError, MqttError
from buzzerbox.mqtt.settings import (
    SERVE_DEFAULTS,
    SERVE_TYPES,
    add_serve_options,
    attach,
    attach_serve,
    broker_from,
)

if TYPE_CHECKING:
    from buzzerbox.mqtt.connect import BrokerLinkStatus
    from buzzerbox.mqtt.errors import TlsFileError
    from buzzerbox.mqtt.publisher import Publisher

#: what loads paho, loaded when first asked for, not with the package (`--help`)
LAZY = {
    "BrokerLinkStatus": "buzzerbox.mqtt.connect",
    "TlsFileError": "buzzerbox.mqtt.errors",
    "Publisher": "buzzerbox.mqtt.publisher",
}


__getattr__ = lazy.attributes(__name__, LAZY)


__all__ = [
    "SERVE_DEFAULTS",
    "SERVE_TYPES",
    "BoxNameError",
    "BrokerLinkStatus",
    "BrokerUrlError",
    "MqttError",
    "Publisher",
    "TlsFileError",
    "add_serve_options",
    "attach",
    "attach_serve",
    "broker_from",
]
