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
the order they came, so a flood of junk under made-up box names queues ahead of a
table's signed state on the wildcard (megabytes in the broker's socket to the hub:
9-72 s under tests/bench/broker_flood.py). So a second connection, `lane`, subscribes
to the state, race and results of each table on the board (a message the board took
put it there, or the record after a restart). The lane only goes ahead: the wildcard
still folds every message of every table, so nothing it queued before the lane's
subscription is lost. What the lane carries is ordered by its own seq (the board keeps
the newer state, race or result, whichever connection brings it first, and takes the
older one as nothing new); a table's events (each counted once, in order: `prev`) and
its status (plain text, no seq: its order is the broker's) stay on the wildcard alone.
(The first lane, 2590a14, left a laned table's messages to the lane alone: the events
the wildcard had queued before the lane's subscription were dropped, issue 39.)
Folding and passing on are one step under `_fold`, so the two connections never pass
the page an older update after a newer one.
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

SUBSCRIPTIONS = [
    (f"{ROOT}/+/status", 1),
    (f"{ROOT}/+/state", 1),
    (f"{ROOT}/+/event", 1),
    (f"{ROOT}/+/race", 1),
    (f"{ROOT}/+/games/+", 1),
]

#: what the lane carries of a table (buzzerbox/<box>/...): the topics ordered by seq
LANE_KINDS = ("state", "race", "games/+")


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
        self._fold = threading.Lock()
        ident = client_id or f"buzzerbox-hub-{name}"
        self.link = BrokerLink(
            broker,
            ident,
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
        #: the tables' own connection (a clean session: the wildcard's keeps what comes
        #: while the hub is gone); the boxes it carries (the broker acknowledged them)
        #: and those asked for (SUBSCRIBE's mid -> boxes)
        self.lane: BrokerLink | None = None
        self.laned: frozenset[str] = frozenset()
        self._wanted: set[str] = set()
        self._asked: dict[int, list[str]] = {}
        self._lane_client: mqtt.Client | None = None
        self._lane_lock = threading.Lock()
        if lane:
            self.lane = BrokerLink(
                broker,
                f"{ident}-tables",
                clean=True,
                manual_ack=commit is not None,
                label=f"hub {name} tables",
                on_up=self._lane_up,
                on_message=self._on_message,
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

    # -- the tables' lane ----------------------------------------------------------------

    def _lane_up(self, client: mqtt.Client) -> None:
        client.on_subscribe = self._lane_subscribed
        with self._lane_lock:
            self._lane_client = client
            self._wanted.clear()
            self._asked.clear()
        self._to_lane(str(table["box"]) for table in self.board.snapshot()["tables"])

    def _lane_status(self, status: BrokerLinkStatus) -> None:
        if not status.is_connected:
            with self._lane_lock:
                self._lane_client = None
                self.laned = frozenset()

    def _to_lane(self, boxes: Iterable[str]) -> None:
        """Ask the lane for these boxes' topics (those not asked for yet); past the
        board's size, first let go of the boxes no longer on the board."""
        with self._lane_lock:
            client = self._lane_client
            new = [box for box in dict.fromkeys(boxes) if box not in self._wanted]
            if client is None or not new:
                return
            if len(self._wanted) + len(new) > self.board.max_tables:
                off = [box for box in self._wanted if self.board.table(box) is None]
                if off:
                    client.unsubscribe(
                        [f"{ROOT}/{box}/{kind}" for box in off for kind in LANE_KINDS]
                    )
                    self._wanted.difference_update(off)
                    self.laned = self.laned - set(off)
            topics = [(f"{ROOT}/{box}/{kind}", 1) for box in new for kind in LANE_KINDS]
            result, mid = client.subscribe(topics)
            if result == mqtt.MQTT_ERR_SUCCESS and mid is not None:
                self._wanted.update(new)
                self._asked[mid] = new

    def _lane_subscribed(self, client: mqtt.Client, userdata: Any, mid: int, *args: Any) -> None:
        with self._lane_lock:
            boxes = self._asked.pop(mid, [])
            if client is self._lane_client:
                self.laned = self.laned | set(boxes)

    # -- folding a message (from either connection) --------------------------------------

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        # junk: acknowledged, never folded, counted once (on the wildcard: the lane's
        # topics come there too)
        if self._refused(message, count=client is self.link.client):
            if message.qos and self.commit is not None:
                client.ack(message.mid, message.qos)
            return
        with self._fold:
            self._take(client, message)

    def _refused(self, message: mqtt.MQTTMessage, *, count: bool) -> bool:
        """With the event's key, a message that does not verify is refused here, before
        the fold and its lock (the board verifies what it folds again: a signed message
        costs that HMAC twice, junk once)."""
        signer = self.board.signer
        if signer is None or message.topic.endswith("/status"):
            return False
        try:
            why = signer.verify(message.topic, bytes(message.payload))
        except Exception:  # the fold counts what it cannot handle
            return False
        if why is not None and count:
            self.board.count_refused(why)
        return why is not None

    def _take(self, client: mqtt.Client, message: mqtt.MQTTMessage) -> None:
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
