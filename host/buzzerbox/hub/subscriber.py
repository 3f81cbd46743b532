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

The tables' lane (issue 39, item 5): the broker sends one subscriber its messages in
the order they came, so a flood of junk under made-up box names queued ahead of a
table's signed state (megabytes in the broker's socket to the hub: 9-22 s under the
flood of tests/bench/broker_flood.py). So a second connection, `lane`, subscribes to
the topics of each table the board holds (a signed message made it: the board's
update names it), and the wildcard connection leaves those tables' messages to it
(acknowledged, not read further) once the broker has confirmed the lane's
subscription; when the lane is down the wildcard takes them again (the board folds
a message it has already folded as nothing new: seqs). A flood on a table's own
topics still queues ahead of it there: the venue's broker config (`buzzerbox
mosquitto-config`) lets a box alone write its topics.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

import paho.mqtt.client as mqtt

from buzzerbox.hub.leaderboard import Leaderboard, Update
from buzzerbox.mqtt.connect import BrokerLink, BrokerLinkStatus
from buzzerbox.mqtt.topics import ROOT, Broker

log = logging.getLogger(__name__)

#: a table's topics on the lane (buzzerbox/<box>/...): SUBSCRIPTIONS's, with its name
LANE_KINDS = ("status", "state", "event", "race", "games/+")

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
        lane: bool = True,
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
        ident = client_id or f"buzzerbox-hub-{name}"
        self.link = BrokerLink(
            broker,
            ident,
            clean=False,
            manual_ack=commit is not None,
            label=f"hub {name}",
            on_up=self._on_up,
            on_message=self._on_wildcard,
            keepalive_s=keepalive_s,
            reconnect_max_s=reconnect_max_s,
        )
        self.link.when_status.append(self._status)
        self._status(self.link.status)
        #: the tables' own connection; the boxes whose topics it carries (the broker
        #: acknowledged them), those asked for (SUBSCRIBE's mid -> boxes)
        self.lane: BrokerLink | None = None
        self.laned: set[str] = set()
        self._asked: dict[int, list[str]] = {}
        self._wanted: set[str] = set()
        self._lane_client: mqtt.Client | None = None
        self._lane_lock = threading.Lock()
        if lane:
            self.lane = BrokerLink(
                broker,
                f"{ident}-tables",
                clean=False,
                manual_ack=commit is not None,
                label=f"hub {name} tables",
                on_up=self._lane_up,
                on_message=self._take,
                keepalive_s=keepalive_s,
                reconnect_max_s=reconnect_max_s,
            )
            self.lane.when_status.append(self._lane_status)

    @property
    def status(self) -> BrokerLinkStatus:
        return self.link.status

    def start(self) -> Subscriber:
        self.link.start()
        if self.lane is not None:
            self.lane.start()
        return self

    def close(self) -> None:
        self.link.close()
        if self.lane is not None:
            self.lane.close()

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

    def _on_wildcard(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        """Every box's message, but those of the tables the lane carries (acknowledged:
        the lane has them too)."""
        if self.laned and message.topic.split("/", 2)[1] in self.laned:
            if message.qos and self.commit is not None:
                client.ack(message.mid, message.qos)
            return
        self._take(client, userdata, message)

    # -- the tables' lane -----------------------------------------------------------------

    def _lane_up(self, client: mqtt.Client) -> None:
        client.on_subscribe = self._lane_subscribed
        with self._lane_lock:
            self._lane_client = client
            self._asked.clear()
            self._wanted.clear()
        tables = self.board.snapshot()["tables"]
        self._to_lane(str(table["box"]) for table in tables)

    def _lane_status(self, status: BrokerLinkStatus) -> None:
        if not status.is_connected:
            with self._lane_lock:
                self._lane_client = None
                self.laned = set()  # the wildcard takes them again

    def _to_lane(self, boxes: Iterable[str]) -> None:
        """Ask the lane for these boxes' topics (those not asked for yet)."""
        with self._lane_lock:
            client = self._lane_client
            new = [box for box in boxes if box not in self._wanted]
            if client is None or not new:
                return
            topics = [(f"{ROOT}/{box}/{kind}", 1) for box in new for kind in LANE_KINDS]
            result, mid = client.subscribe(topics)
            if result == mqtt.MQTT_ERR_SUCCESS and mid is not None:
                self._wanted.update(new)
                self._asked[mid] = new

    def _lane_subscribed(self, client: mqtt.Client, userdata: Any, mid: int, *args: Any) -> None:
        with self._lane_lock:
            boxes = self._asked.pop(mid, [])
            if client is self._lane_client:
                self.laned = self.laned | set(boxes)  # a new set: the wildcard reads it bare

    # -- folding a message ----------------------------------------------------------------

    def _take(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
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
        if self.lane is not None and updates:
            self._to_lane(str(data["box"]) for kind, data in updates if kind == "table")
        if self.commit is None:
            return
        if updates or self.board.changes != changes:
            self.commit(updates, functools.partial(client.ack, message.mid, message.qos))
        elif message.qos:  # it changed nothing (junk, a duplicate): nothing to keep first
            client.ack(message.mid, message.qos)
