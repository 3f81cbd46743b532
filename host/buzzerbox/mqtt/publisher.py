"""A box on the broker: `attach(box, broker_url, box_name, data_dir) -> Publisher`.

The `Publisher` listens to the box (`box.when_changed`: it only wakes its own thread,
never blocks the box) and publishes what its log holds beyond the cursor (see
outbox.py), in log order, with QoS 1: each event, the races, the results and, after
each batch, the retained state. On every (re)connection it says "online" (retained;
its last will says "offline"), sends the Home Assistant discovery configs and the
state. While the broker is gone the box plays on: the log keeps the events, the
cursor stays where the broker's last PUBACK left it, and the backlog goes out in
order when the broker is back (paho resends what was in flight, with the same ids).

At most `window` events are in flight at once, so a long outage never fills memory.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import MQTTErrorCode
from paho.mqtt.reasoncodes import ReasonCode

from buzzerbox.box import Box
from buzzerbox.mqtt.connect import make_client, stop_client
from buzzerbox.mqtt.derive import Deriver, Outgoing
from buzzerbox.mqtt.discovery import DEFAULT_PREFIX, discovery
from buzzerbox.mqtt.outbox import Acks
from buzzerbox.mqtt.topics import (
    OFFLINE,
    ONLINE,
    Broker,
    check_box_name,
    default_box_name,
    parse_broker,
    topic,
)
from buzzerbox.store.log import StoreError
from buzzerbox.store.tail import Cursor, LogTail

log = logging.getLogger(__name__)

CURSOR_FILE = "mqtt.db"


class Publisher:
    """Publishes one box's log to the broker. Start with `start()`, end with `close()`."""

    def __init__(
        self,
        log_path: str | Path,
        box_name: str,
        data_dir: str | Path,
        broker: Broker,
        *,
        discovery_prefix: str | None = DEFAULT_PREFIX,
        keepalive_s: int = 15,
        reconnect_max_s: int = 4,
        window: int = 500,
        batch: int = 200,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.name = check_box_name(box_name)
        self.broker = broker
        self.log_path = str(log_path)
        self.discovery_prefix = discovery_prefix
        self.keepalive_s = keepalive_s
        self.window = window
        self.batch = batch
        self._wall = wall_clock
        self._cursor = Cursor(Path(data_dir) / CURSOR_FILE)
        self._deriver = Deriver(self.name)
        self._acks = Acks(0)
        self._handed = 0
        self._saved = 0
        self._is_fresh = False
        self._wake = threading.Event()
        self._connected = threading.Event()
        self._stopping = threading.Event()
        self._progress = threading.Condition()
        self._detach: Callable[[], None] | None = None
        self._tail: LogTail | None = None
        self.failure: BaseException | None = None
        self.errors = 0
        self.client = make_client(
            broker, f"buzzerbox-box-{self.name}", clean=True, reconnect_max_s=reconnect_max_s
        )
        self.client.will_set(topic(self.name, "status"), OFFLINE, qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        self._thread = threading.Thread(target=self._run, name=f"mqtt-{self.name}", daemon=True)

    # -- the box's side -----------------------------------------------------------------

    def notify(self, state: dict[str, Any] | None = None) -> None:
        """A box listener: the log has grown. Returns at once."""
        self._wake.set()

    def listen_to(self, box: Box) -> None:
        box.when_changed.append(self.notify)
        self._detach = lambda: box.when_changed.remove(self.notify)

    def start(self) -> Publisher:
        """Read where to start (raises StoreError if the log cannot be read), connect
        in the background (the box plays on without a broker) and start publishing."""
        self._tail = LogTail(self.log_path)
        self._begin(self._tail)
        self.client.connect_async(self.broker.host, self.broker.port, self.keepalive_s)
        self.client.loop_start()
        self._thread.start()
        return self

    # -- reading ------------------------------------------------------------------------

    @property
    def published_seq(self) -> int:
        """The log seq up to which the broker has acknowledged every message."""
        return self._saved

    def wait_published(self, seq: int, timeout: float) -> bool:
        """Wait until everything up to `seq` is acknowledged; False on timeout."""
        with self._progress:
            return self._progress.wait_for(lambda: self._saved >= seq, timeout)

    def wait_connected(self, timeout: float) -> bool:
        return self._connected.wait(timeout)

    # -- paho's thread ------------------------------------------------------------------

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode, props: Any
    ) -> None:
        if reason.is_failure:
            log.warning("mqtt: %s refused box %s: %s", self.broker.url, self.name, reason)
            return
        log.info("mqtt: box %s connected to %s", self.name, self.broker.url)
        self._is_fresh = True
        self._connected.set()
        self._wake.set()

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode, props: Any
    ) -> None:
        if self._connected.is_set() and not self._stopping.is_set():
            log.warning("mqtt: box %s lost %s (%s): playing on", self.name, self.broker.url, reason)
        self._connected.clear()

    def _on_publish(
        self, client: mqtt.Client, userdata: Any, mid: int, reason: ReasonCode, props: Any
    ) -> None:
        self._acks.acked(mid)
        self._wake.set()

    # -- the publisher's thread -----------------------------------------------------------

    def _run(self) -> None:
        tail = self._tail
        assert tail is not None
        try:
            while not self._stopping.is_set():
                self._wake.wait(1.0)
                self._wake.clear()
                try:
                    self._step(tail)
                except StoreError as exc:  # a disk hiccup: the log is still there; retry
                    self.errors += 1
                    log.warning("mqtt: box %s: %s; trying again", self.name, exc)
        except Exception as exc:  # a bug: the box plays on; the failure is kept and logged
            self.failure = exc
            log.exception("mqtt: the publisher of box %s stopped", self.name)
        finally:
            tail.close()

    def _step(self, tail: LogTail) -> None:
        self._save()
        if self._stopping.is_set() or not self._connected.is_set():
            return
        if self._is_fresh:
            self._is_fresh = False
            self._greet()
        self._pump(tail)

    def _begin(self, tail: LogTail) -> None:
        """Where to start: the cursor, or (a new box name) the start of the last game."""
        cursor = self._cursor.get(self.name)
        if cursor is not None and cursor > tail.last_seq():
            log.warning("mqtt: the log of box %s is behind its cursor: a new log", self.name)
            cursor = None
        if cursor is None:
            last_game = tail.last_game()
            cursor = 0 if last_game is None else last_game - 1
            self._cursor.set(self.name, cursor)
        else:
            self._deriver.load(tail.game_upto(cursor))
        self._acks = Acks(cursor)
        with self._progress:
            self._handed = self._saved = cursor
            self._progress.notify_all()

    def _greet(self) -> None:
        """On each connection: online, the discovery configs, the state, the last race."""
        self._send(Outgoing(topic(self.name, "status"), ONLINE.encode(), retain=True))
        if self.discovery_prefix:
            for config in discovery(self.name, self.discovery_prefix):
                self._send(config)
        self._send(self._deriver.state_message())
        race = self._deriver.race_message()
        if race is not None:
            self._send(race)

    def _pump(self, tail: LogTail) -> None:
        """Hand the next events beyond what is in flight to paho, then the state."""
        room = min(self.window - self._acks.outstanding, self.batch)
        if room <= 0:
            return
        events = tail.after(self._handed, room)
        if not events:
            return
        now = self._wall()
        for event in events:
            self._acks.expect(event.seq)
            for message in self._deriver.feed(event, now):
                self._send(message)
            self._handed = event.seq
        self._send(self._deriver.state_message())
        if len(events) == room:
            self._wake.set()

    def _send(self, message: Outgoing) -> None:
        info = self.client.publish(message.topic, message.payload, qos=1, retain=message.retain)
        if info.rc not in (MQTTErrorCode.MQTT_ERR_SUCCESS, MQTTErrorCode.MQTT_ERR_NO_CONN):
            log.warning("mqtt: %s not queued: %s", message.topic, mqtt.error_string(info.rc))
        self._acks.sent(info.mid, message.seq)

    def _save(self) -> None:
        done = self._acks.advance()
        if done != self._saved:
            self._cursor.set(self.name, done)
            with self._progress:
                self._saved = done
                self._progress.notify_all()

    # -- the end --------------------------------------------------------------------------

    def close(self, timeout: float = 2.0) -> None:
        """Stop listening, say "offline", disconnect. What is unacknowledged stays in the
        log beyond the cursor, for the next start."""
        atexit.unregister(self.close)
        if self._stopping.is_set():
            return
        if self._detach is not None:
            self._detach()
            self._detach = None
        self._stopping.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        if self._connected.is_set():
            info = self.client.publish(topic(self.name, "status"), OFFLINE, qos=1, retain=True)
            with contextlib.suppress(RuntimeError, ValueError):  # the broker went meanwhile
                info.wait_for_publish(timeout)
        stop_client(self.client)
        self._save()
        self._cursor.close()


def attach(box: Box, broker_url: str, box_name: str | None, data_dir: str | Path) -> Publisher:
    """Publish `box`'s games to the broker at `broker_url` as `box_name` (default: the
    host name); the cursor goes to `data_dir`/mqtt.db. Returns the running publisher.
    Raises BrokerUrlError or BoxNameError (both ValueError) for a bad URL or name."""
    broker = parse_broker(broker_url)
    name = check_box_name(box_name) if box_name else default_box_name()
    publisher = Publisher(box.log.path, name, data_dir, broker)
    publisher.start()
    publisher.listen_to(box)
    atexit.register(publisher.close)  # a clean "offline"; the last will covers a crash
    return publisher
