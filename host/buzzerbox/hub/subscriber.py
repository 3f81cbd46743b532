"""The hub on the broker: subscribes to every box, folds each message into the board.

The hub keeps a persistent session (clean_session off, a fixed client id per hub
name) and subscribes with QoS 1, so the broker keeps the events of a hub that is
briefly gone; the retained state, race, results and status of every box arrive
on each subscription anyway.

Everything from the broker is untrusted: the board validates and bounds each message
(a bad one is dropped and counted, see leaderboard.py), and nothing a message does can end
the subscriber: an exception while handling one is logged (once per kind), counted
in `board.dropped` and the next message is read; a message that changed nothing
(junk, refused or a duplicate) is acknowledged at once, never handed to the record's
keeper (issue 39, item 5: a flood of junk woke it for every message); the link
(connect.py) starts again whatever happens to a connection. The broker's status goes to the page.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

from buzzerbox.hub.leaderboard import Leaderboard, Update
from buzzerbox.mqtt.connect import BrokerLink, BrokerLinkStatus
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
        board: Leaderboard,
        publish: Callable[[list[Update]], None] | None = None,
        *,
        name: str = "hub",
        client_id: str | None = None,
        commit: Callable[[list[Update], Callable[[], Any]], None] | None = None,
        keepalive_s: int = 15,
        reconnect_max_s: int = 4,
    ) -> None:
        self.broker = broker
        self.board = board
        self.publish = publish
        #: with `commit` (record.Keeper.commit), a message's updates are shown and the
        #: message acknowledged to the broker only once the hub's record holds it
        self.commit = commit
        self.failures = 0
        #: set once the subscriptions of the current connection are acknowledged
        self.subscribed = threading.Event()
        self.link = BrokerLink(
            broker,
            client_id or f"buzzerbox-hub-{name}",
            clean=False,
            manual_ack=commit is not None,
            label=f"hub {name}",
            on_up=self._on_up,
            on_message=self._on_message,
            keepalive_s=keepalive_s,
            reconnect_max_s=reconnect_max_s,
        )
        self.link.when_status.append(self._status)
        self._status(self.link.status)

    @property
    def status(self) -> BrokerLinkStatus:
        return self.link.status

    def start(self) -> Subscriber:
        self.link.start()
        return self

    def close(self) -> None:
        self.link.close()

    def _status(self, status: BrokerLinkStatus) -> None:
        if not status.is_connected:
            self.subscribed.clear()
        updates = self.board.set_broker(status.to_json())
        if updates and self.publish is not None:
            self.publish(updates)

    def _on_up(self, client: mqtt.Client) -> None:
        client.on_subscribe = self._on_subscribe
        client.subscribe(SUBSCRIPTIONS)

    def _on_subscribe(self, client: mqtt.Client, *args: Any) -> None:
        self.subscribed.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        updates: list[Update] = []
        changes = self.board.changes
        try:
            updates = self.board.apply(message.topic, bytes(message.payload))
            if self.commit is None and updates and self.publish is not None:
                self.publish(updates)
        except Exception as exc:  # one bad message never stops the hub
            self.failures += 1
            self.board.count_drop("failed")
            where = bytes(message._topic[:200]).decode("utf-8", "replace")
            if self.failures <= 3:
                log.exception("hub: a message on %r could not be handled", where)
            else:
                log.warning("hub: a message on %r could not be handled: %r", where, exc)
        if self.commit is None:
            return
        if updates or self.board.changes != changes:
            self.commit(updates, functools.partial(client.ack, message.mid, message.qos))
        elif message.qos:  # it changed nothing (junk, a duplicate): nothing to keep first
            client.ack(message.mid, message.qos)
