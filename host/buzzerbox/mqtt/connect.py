"""The paho client both sides use: MQTT 3.1.1, callbacks API v2, QoS 1 throughout."""

from __future__ import annotations

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from buzzerbox.mqtt.topics import Broker


def make_client(
    broker: Broker, client_id: str, *, clean: bool, reconnect_max_s: int
) -> mqtt.Client:
    """A paho client (MQTT 3.1.1, callbacks v2) for the broker; not yet connected."""
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2,
        client_id=client_id,
        clean_session=clean,
        protocol=mqtt.MQTTv311,
    )
    if broker.username:
        client.username_pw_set(broker.username, broker.password)
    if broker.is_tls:
        client.tls_set()
    client.reconnect_delay_set(1, max(1, reconnect_max_s))
    client.max_queued_messages_set(0)
    return client


def stop_client(client: mqtt.Client) -> None:
    """Disconnect, stop the network thread and close every socket now.

    paho leaves the socket pair of loop_start() to its __del__, which a garbage
    collected reference cycle (the callbacks are bound methods) may run after the
    sockets' own finalizers: a ResourceWarning. So it is closed here."""
    client.disconnect()
    client.loop_stop()
    client._reset_sockets()
