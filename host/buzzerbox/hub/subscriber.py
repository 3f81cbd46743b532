"""The hub on the broker: subscribes to every box, folds each message into the board.

The hub keeps a persistent session (clean_session off, a fixed client id per hub
name) and subscribes with QoS 1, so the broker keeps the events of a hub that is
briefly gone; the retained state, race, results and status of every box arrive
on each subscription anyway.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode

from buzzerbox.hub.board import Board, Update
from buzzerbox.mqtt.connect import make_client, stop_client
from buzzerbox.mqtt.topics import ROOT, Broker

log = logging.getLogger(__name__)

SUBSCRIPTIONS = [
    (f"{ROOT}/+/status", 1),
    (f"{ROOT}/+/state", 1),
    (f"{ROOT}/+/event", 1),
    (f"{ROOT}/+/race", 1),
    (f"{ROOT}/+/games/+", 1),
]


class Subscriber:
    """Feeds the board from the broker, and `publish` (the live stream's) with the
    board's updates, in the order the broker delivers."""

    def __init__(
        self,
        broker: Broker,
        board: Board,
        publish: Callable[[list[Update]], None] | None = None,
        *,
        name: str = "hub",
        keepalive_s: int = 15,
        reconnect_max_s: int = 4,
    ) -> None:
        self.broker = broker
        self.board = board
        self.publish = publish
        self.subscribed = threading.Event()
        self._closing = False
        self.client = make_client(
            broker, f"buzzerbox-hub-{name}", clean=False, reconnect_max_s=reconnect_max_s
        )
        self.keepalive_s = keepalive_s
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message

    def start(self) -> Subscriber:
        self.client.connect_async(self.broker.host, self.broker.port, self.keepalive_s)
        self.client.loop_start()
        return self

    def close(self) -> None:
        self._closing = True
        stop_client(self.client)

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode, props: Any
    ) -> None:
        if reason.is_failure:
            log.warning("hub: %s refused the hub: %s", self.broker.url, reason)
            return
        log.info("hub: connected to %s", self.broker.url)
        client.subscribe(SUBSCRIPTIONS)

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode, props: Any
    ) -> None:
        self.subscribed.clear()
        if not self._closing:
            log.warning("hub: lost %s (%s)", self.broker.url, reason)

    def _on_subscribe(
        self, client: mqtt.Client, userdata: Any, mid: int, reasons: list[ReasonCode], props: Any
    ) -> None:
        self.subscribed.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            updates = self.board.apply(message.topic, bytes(message.payload))
        except Exception:  # one bad message never stops the hub
            log.exception("hub: a message on %s could not be read", message.topic)
            return
        if updates and self.publish is not None:
            self.publish(updates)
