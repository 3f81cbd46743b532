"""A box on the broker: `Publisher(log_path, box_name, data_dir, broker)`.

The `Publisher` listens to the box (`box.when_changed`: it only wakes its own thread,
never blocks the box) and publishes what its log holds beyond the cursor (see
outbox.py), in log order, with QoS 1: each event, the races, the results and, after
each batch, the retained state. Its `BrokerLink` (connect.py) keeps the connection and
says why there is none (`status`, `when_status`). On every connection it claims
its name (nameguard.py, claim.py), says "online" (retained; its last will: "offline"), sends the
Home Assistant discovery configs, rewinds to the cursor, publishes the backlog in
order and only then the state. With the event's key (sign.py) every JSON message,
the claim too, is signed, and a claim that does not verify is ignored. Without a
broker the box plays on: the log keeps the events, the cursor stays put.

At most `window` events are in flight at once, so a long outage never fills memory.

Home Assistant's `ha/event` (what its automations trigger on) goes out once per
finish (finishes.py).
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import MQTTErrorCode

from buzzerbox.box import Box
from buzzerbox.mqtt import claim as claims
from buzzerbox.mqtt.connect import BrokerLink, BrokerLinkStatus
from buzzerbox.mqtt.derive import Deriver, Outgoing
from buzzerbox.mqtt.discovery import DEFAULT_PREFIX, discovery
from buzzerbox.mqtt.finishes import SentFinishes
from buzzerbox.mqtt.nameguard import LOSE_RETRY_S, NameGuard
from buzzerbox.mqtt.outbox import Acks
from buzzerbox.mqtt.sign import Signer, signed
from buzzerbox.mqtt.topics import OFFLINE, ONLINE, Broker, check_box_name, topic
from buzzerbox.store.eventlog import StoreError
from buzzerbox.store.tail import Cursor, LogTail

log = logging.getLogger(__name__)

CURSOR_FILE = "mqtt.db"
#: the cursor goes to disk at most this often (s): losing its last moves costs only
#: messages sent again, which subscribers drop by seq (see outbox.py)
SAVE_EVERY_S = 0.5
#: after a wake, the events of this long (s) go out as one batch, with one state: the
#: presses of a race come within a few ms of each other
GATHER_S = 0.004


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
        grace_s: float = claims.GRACE_S,
        gather_s: float = GATHER_S,
        owner: str | None = None,
        signer: Signer | None = None,
        lose_retry_s: float = LOSE_RETRY_S,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.name = check_box_name(box_name)
        self.broker = broker
        self.log_path = str(log_path)
        self.discovery_prefix = discovery_prefix
        self.window = window
        self.batch = batch
        self.gather_s = gather_s
        self._wall = wall_clock
        self.signer = signer
        self._cursor = Cursor(Path(data_dir) / CURSOR_FILE)
        self._deriver = Deriver(self.name)
        self._acks = Acks(0)
        self._handed = 0
        self._saved = 0  # acknowledged by the broker, up to this seq
        self._stored = 0  # ... and written to the cursor file
        self._store_due = 0.0
        self._blocked = False  # the window is full: the next PUBACK wakes the thread
        self._client: mqtt.Client | None = None
        self._gen = 0  # connections accepted so far; the thread follows it
        self._next: tuple[int, mqtt.Client, Acks] | None = None
        self._settled_gen = -1  # the connection on which our name was confirmed
        self._grace_until: float | None = None
        self._greeted_gen = -1
        self._state_due = False
        self._ha_topic = topic(self.name, "ha", "event")
        self._finishes = SentFinishes(self._cursor, self.name)
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._progress = threading.Condition()
        self._detach: Callable[[], None] | None = None
        self._tail: LogTail | None = None
        self.failure: BaseException | None = None
        self.errors = 0
        self.link = BrokerLink(
            broker,
            # a suffix of its own: two boxes with one name (or a stranger reusing the
            # id) do not throw each other off the broker; the claim tells them apart
            f"buzzerbox-box-{self.name}-{secrets.token_hex(4)}",
            clean=True,
            label=f"box {self.name}",
            on_up=self._on_up,
            will=(topic(self.name, "status"), OFFLINE),
            on_message=self._on_message,
            keepalive_s=keepalive_s,
            reconnect_max_s=reconnect_max_s,
            wall_clock=wall_clock,
        )
        claimant = claims.Claimant(owner or claims.owner_id(data_dir), socket.gethostname()[:64])
        self.names = NameGuard(
            self.name,
            claimant,
            self.link,
            signer,
            grace_s=grace_s,
            lose_retry_s=lose_retry_s,
            wall_clock=wall_clock,
        )
        self._thread = threading.Thread(target=self._run, name=f"mqtt-{self.name}", daemon=True)

    # -- the box's side -----------------------------------------------------------------

    def notify(self, state: object = None) -> None:
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
        self._thread.start()
        self.link.start()
        return self

    # -- reading ------------------------------------------------------------------------

    @property
    def status(self) -> BrokerLinkStatus:
        return self.link.status

    @property
    def is_connected(self) -> bool:
        return self.link.is_connected

    @property
    def claims_refused(self) -> int:
        """Claims on our name that did not verify (with a key): ignored."""
        return self.names.refused

    @property
    def published_seq(self) -> int:
        """The log seq up to which the broker has acknowledged every message."""
        return self._saved

    def wait_published(self, seq: int, timeout: float) -> bool:
        """Wait until everything up to `seq` is acknowledged; False on timeout."""
        with self._progress:
            return self._progress.wait_for(lambda: self._saved >= seq, timeout)

    def wait_connected(self, timeout: float) -> bool:
        """Wait until the broker took the connection and the name is ours."""
        with self._progress:
            return self._progress.wait_for(lambda: self._greeted_gen == self._gen > 0, timeout)

    # -- the network thread -------------------------------------------------------------

    def _on_up(self, client: mqtt.Client) -> None:
        """A new connection: claim the name; the publisher's thread takes it from here."""
        acks = Acks(0)

        def on_publish(c: mqtt.Client, userdata: Any, mid: int, reason: Any, props: Any) -> None:
            acks.acked(mid)
            if acks is self._acks:
                self._advance(acks)

        client.on_publish = on_publish
        acks.sent(self.names.claim(client), None)
        with self._lock:
            self._gen += 1
            self._next = (self._gen, client, acks)
            self._grace_until = None
        self._wake.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        verdict = self.names.heard(client, message, self._publishing)
        if verdict is None:
            return
        with self._lock:
            if verdict in (claims.OURS, claims.REPUBLISH):
                self._settled_gen = self._gen
            elif verdict == claims.WAIT:
                self._grace_until = time.monotonic() + self.names.grace_s
        self._wake.set()

    def _publishing(self) -> bool:
        with self._lock:
            return self._greeted_gen == self._gen > 0 and not self._stopping.is_set()

    # -- the publisher's thread -----------------------------------------------------------

    def _run(self) -> None:
        tail = self._tail
        assert tail is not None
        try:
            while not self._stopping.is_set():
                if self._wake.wait(self._sleep_s()):
                    self._stopping.wait(self.gather_s)  # what comes meanwhile joins the batch
                self._wake.clear()  # after the gathering: what it covered is read below
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

    def _sleep_s(self) -> float:
        """How long the thread may sleep if nothing wakes it: until the cursor is due
        (if it moved), a claim's grace is up, or a second (a look at the log)."""
        sleep = 0.25 if self._grace_until is not None else 1.0
        if self._saved != self._stored:
            sleep = min(sleep, max(0.01, self._store_due - time.monotonic()))
        return sleep

    def _advance(self, acks: Acks) -> None:
        """The network thread, on a PUBACK: move over the events done. It wakes the
        publisher's thread only if that waits for room in the window."""
        done = acks.advance()
        self._finishes.acked_upto(done)  # before anyone hears the event is published
        if done > self._saved:
            with self._progress:
                self._saved = max(self._saved, done)
                self._progress.notify_all()
            if self._blocked:
                self._wake.set()

    def _step(self, tail: LogTail) -> None:
        self._save()
        if self._stopping.is_set():
            return
        with self._lock:
            fresh, self._next = self._next, None
            grace = self._grace_until
            if grace is not None and time.monotonic() >= grace:
                self._grace_until = None
                self._settled_gen = self._gen
            settled = self._settled_gen == self._gen
        if fresh is not None:
            self._rewind(tail, *fresh)
        if not settled or not self.link.is_connected or self._client is None:
            return
        if self._greeted_gen != self._gen:
            self._greet()
        self.names.put_right(self._client)  # an "offline" said by another, not put right yet
        self._pump(tail)

    def _begin(self, tail: LogTail) -> None:
        """Where to start: the cursor, or (a new box name) the start of the last game."""
        cursor = self._cursor.get(self.name)
        if cursor is not None and cursor > tail.last_seq():
            log.warning("mqtt: the log of box %s is behind its cursor: a new log", self.name)
            cursor = None
        is_new = cursor is None
        if cursor is None:
            last_game = tail.last_game()
            cursor = 0 if last_game is None else last_game - 1
            self._cursor.set(self.name, cursor)
        self._finishes.load(is_new=is_new)  # a new name or a new log: no finish sent yet
        self._acks = Acks(cursor)
        with self._progress:
            self._handed = self._saved = self._stored = cursor
            self._progress.notify_all()

    def _rewind(self, tail: LogTail, gen: int, client: mqtt.Client, acks: Acks) -> None:
        """A new connection: go on from the cursor (what was in flight goes again, with
        the same ids), with a deriver folded up to it."""
        acks.start_at(self._saved)
        self._client, self._acks = client, acks
        self._handed = self._saved
        self._deriver = Deriver(self.name)
        self._deriver.load(tail.game_upto(self._handed))

    def _greet(self) -> None:
        """Online, the discovery configs; the state follows the backlog (`_pump`)."""
        self._send(Outgoing(topic(self.name, "status"), ONLINE.encode(), retain=True))
        if self.discovery_prefix:
            for config in discovery(self.name, self.discovery_prefix):
                self._send(config)
        self._state_due = True
        self.names.greeted()
        with self._progress:
            self._greeted_gen = self._gen
            self._progress.notify_all()

    def _pump(self, tail: LogTail) -> None:
        """Hand the next events beyond what is in flight to paho, then the state."""
        room = min(self.window - self._acks.outstanding, self.batch)
        self._blocked = room <= 0
        if self._blocked:
            self._advance(self._acks)  # the acks that came while it was not blocked
            return
        events = tail.after(self._handed, room)
        if events:
            now = self._wall()
            for event in events:
                self._acks.expect(event.seq)
                for message in self._deriver.feed(event, now):
                    if message.topic == self._ha_topic and not self._finishes.should_send(
                        event.seq
                    ):
                        continue
                    self._send(message)
                self._acks.seal(event.seq)
                self._handed = event.seq
            self._advance(self._acks)  # acks that came before the seal
            self._state_due = True
            if len(events) == room:
                self._wake.set()
                return  # more backlog: the state goes after it
        if self._state_due:
            self._state_due = False
            self._send(self._deriver.state_message())
            race = self._deriver.race_message() if not events else None
            if race is not None:
                self._send(race)

    def _send(self, message: Outgoing) -> None:
        client = self._client
        assert client is not None
        payload = signed(self.signer, message.topic, message.payload)
        info = client.publish(message.topic, payload, message.qos, message.retain)
        if info.rc not in (MQTTErrorCode.MQTT_ERR_SUCCESS, MQTTErrorCode.MQTT_ERR_NO_CONN):
            log.warning("mqtt: %s not queued: %s", message.topic, mqtt.error_string(info.rc))
        self._acks.sent(info.mid, message.seq)

    def _save(self, now: bool = False) -> None:
        """The cursor to disk, if it moved, at most every SAVE_EVERY_S (`now`: at once)."""
        done = self._saved
        if done != self._stored and (now or time.monotonic() >= self._store_due):
            self._cursor.set(self.name, done)
            self._stored = done
            self._store_due = time.monotonic() + SAVE_EVERY_S

    # -- the end --------------------------------------------------------------------------

    def close(self, timeout: float = 2.0) -> None:
        """Stop listening, say "offline", disconnect. What is unacknowledged stays in the
        log beyond the cursor, for the next start."""
        if self._stopping.is_set():
            return
        if self._detach is not None:
            self._detach()
            self._detach = None
        self._stopping.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        client = self._client
        if client is not None and self.link.is_connected and self._greeted_gen == self._gen:
            info = client.publish(topic(self.name, "status"), OFFLINE, qos=1, retain=True)
            with contextlib.suppress(RuntimeError, ValueError):  # the broker went meanwhile
                info.wait_for_publish(timeout)
        self.link.close()
        self._save(now=True)
        self._cursor.close()
