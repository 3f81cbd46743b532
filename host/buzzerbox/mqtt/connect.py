"""The connection both sides use: MQTT 3.1.1 (paho, callbacks API v2), QoS 1 throughout.

`BrokerLink` keeps one connection to the broker up, in a thread of its own, and says at
once, in words, why it is not: every attempt is a fresh paho client (so nothing of a
dead connection is resent behind the caller's back: the box rewinds to its cursor
instead), the failure is read from the exception or the broker's answer
(`explain`, reasons.py) and every change of `status` goes to the log and to `when_status`.
Nothing a broker sends can end the thread: an exception in a callback is logged,
counted (`crashes`) and the link starts again.
"""

from __future__ import annotations

import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from buzzerbox.errors import Words
from buzzerbox.i18n import said_elsewhere
from buzzerbox.mqtt.errors import TlsFileError
from buzzerbox.mqtt.reasons import closed_early, explain, refusal
from buzzerbox.mqtt.topics import Broker

log = logging.getLogger(__name__)

CONNECTING = "connecting"
CONNECTED = "connected"
UNREACHABLE = "unreachable"
REFUSED = "refused"
#: an accepted connection that ended sooner than this was thrown off (s)
SHORT_LIVED_S = 2.0
STOPPED = "stopped"
#: the states in words, for the status line said in the reader's language
STATE_WORDS = {
    CONNECTING: Words("connecting"),
    UNREACHABLE: Words("unreachable"),
    REFUSED: Words("refused"),
    STOPPED: Words("stopped"),
}


@dataclass(frozen=True, slots=True)
class BrokerLinkStatus:
    """Where a link stands: `state` (connecting, connected, unreachable, refused,
    stopped), why in words (`reason` in English; `words` to say it in another language),
    and since when (Unix s)."""

    state: str
    reason: str
    broker: str
    since: float
    words: Words | None = None

    @property
    def is_connected(self) -> bool:
        return self.state == CONNECTED

    def line(self) -> str:
        """One line for people: "broker unreachable: certificate not trusted (...)"."""
        if self.state == CONNECTED:
            return f"connected to the broker {self.broker}"
        return f"broker {self.state}: {self.reason}"

    def line_words(self) -> Words:
        """`line()`, to be said in a language."""
        if self.state == CONNECTED:
            return Words("connected to the broker {broker}", {"broker": self.broker})
        reason = self.words or self.reason
        said = {"state": STATE_WORDS.get(self.state, self.state), "reason": reason}
        return Words("broker {state}: {reason}", said)

    def to_json(self) -> dict[str, Any]:
        """The status for the pages: `text` in English, `said` in the box's other
        languages (the state is every phone's: each shows its own)."""
        words = self.line_words()
        return {
            "state": self.state,
            "reason": self.reason,
            "broker": self.broker,
            "since": self.since,
            "text": self.line(),
            "said": said_elsewhere(words),
        }


def tls_context(broker: Broker) -> ssl.SSLContext:
    """The TLS context of an mqtts:// broker: the system's CAs, or the CA file; the
    client certificate and key if given. Raises TlsFileError naming the file."""
    try:
        context = ssl.create_default_context(cafile=broker.ca_file)
    except (OSError, ssl.SSLError) as exc:
        raise TlsFileError(
            f"the CA file {broker.ca_file} cannot be read ({exc}): "
            "give the PEM file of the CA that signed the broker's certificate"
        ) from None
    if broker.cert_file:
        try:
            context.load_cert_chain(broker.cert_file, broker.key_file)
        except (OSError, ssl.SSLError) as exc:
            raise TlsFileError(
                f"the client certificate {broker.cert_file} (key {broker.key_file or 'in it'}) "
                f"cannot be used ({exc}): give a PEM certificate and its unencrypted key"
            ) from None
    return context


#: what a PUBACK of MQTT 3.1.1 says besides its mid: success, no properties
PUBACK_OK = ReasonCode(PacketTypes.PUBACK)
NO_PROPERTIES = Properties(PacketTypes.PUBACK)  # type: ignore[no-untyped-call]


class Client(mqtt.Client):
    """paho's client, run by the BrokerLink's thread (`run`), closing the socket of a failed
    TLS handshake at once (paho leaves it to the garbage collector: a ResourceWarning,
    and a file descriptor per retry), reading a PUBACK without paho's objects."""

    def _handle_pubackcomp(self, cmd: Any) -> MQTTErrorCode:
        """A PUBACK of MQTT 3.1.1 is two bytes, its mid: read as that, without the reason
        code and properties objects paho builds for each one (they cannot carry anything
        in 3.1.1; building them was a third of a box's network thread, one PUBACK per
        event). Anything else goes paho's way."""
        packet = self._in_packet["packet"]
        if cmd != "PUBACK" or self._protocol != mqtt.MQTTv311 or len(packet) != 2:
            return super()._handle_pubackcomp(cmd)
        mid = int.from_bytes(packet, "big")
        with self._out_message_mutex:
            if mid in self._out_messages:  # paho's own test: one on_publish per message
                return self._do_on_publish(mid, PUBACK_OK, NO_PROPERTIES)
        return MQTTErrorCode.MQTT_ERR_SUCCESS

    def run(self) -> None:
        """`loop_forever` in the calling thread, which paho then knows as its network
        thread (as under `loop_start`): a publish from another thread is queued for it,
        never written to the socket from that other thread (two writers at once
        corrupt a TLS stream: "bad record mac")."""
        self._thread = threading.current_thread()
        try:
            # one step by hand first: `loop` makes the socket pair through which another
            # thread's publish wakes this loop at once (loop_forever alone does not)
            self.loop(timeout=0.0)
            self.loop_forever()
        finally:
            self._thread = None

    def _ssl_wrap_socket(self, tcp_sock: socket.socket) -> ssl.SSLSocket:
        context = self._ssl_context
        assert context is not None  # tls_set_context was called
        ssl_sock = context.wrap_socket(
            tcp_sock, server_hostname=self._host, do_handshake_on_connect=False
        )
        try:
            ssl_sock.settimeout(self._connect_timeout)
            ssl_sock.do_handshake()  # the context checks the host name
        except BaseException:
            ssl_sock.close()
            raise
        return ssl_sock


def configure(client: mqtt.Client, broker: Broker) -> None:
    """The broker's login and TLS on a paho client; QoS 1 bounded by the publisher."""
    if broker.username:
        client.username_pw_set(broker.username, broker.password)
    if broker.is_tls:
        client.tls_set_context(tls_context(broker))
    client.max_queued_messages_set(0)
    client.max_inflight_messages_set(0)  # the publisher bounds what is in flight


def stop_client(client: mqtt.Client) -> None:
    """Disconnect, stop the network thread and close every socket now.

    paho leaves the socket pair of loop_start() to its __del__, which a garbage
    collected reference cycle (the callbacks are bound methods) may run after the
    sockets' own finalizers: a ResourceWarning. So it is closed here."""
    client.disconnect()
    client.loop_stop()
    client._reset_sockets()


class BrokerLink:
    """One connection to the broker, kept up in a thread of its own.

    `on_up(client)` is called (in the link's thread) on each accepted connection, with
    that connection's client; `on_message` and `on_publish` are set on every client.
    """

    def __init__(
        self,
        broker: Broker,
        client_id: str,
        *,
        clean: bool,
        label: str,
        manual_ack: bool = False,
        on_up: Callable[[mqtt.Client], None],
        will: tuple[str, str] | None = None,
        on_message: Callable[[mqtt.Client, Any, mqtt.MQTTMessage], None] | None = None,
        keepalive_s: int = 15,
        reconnect_max_s: float = 4.0,
        connect_timeout_s: float = 5.0,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.broker = broker
        self.client_id = client_id
        self.clean = clean
        self.manual_ack = manual_ack
        self.label = label
        self.on_up = on_up
        self.on_message = on_message
        self.will = will
        self.keepalive_s = keepalive_s
        self.reconnect_max_s = reconnect_max_s
        self.connect_timeout_s = connect_timeout_s
        self.when_status: list[Callable[[BrokerLinkStatus], None]] = []
        self.crashes = 0
        self.client: mqtt.Client | None = None
        self._wall = wall_clock
        self._closing = threading.Event()
        self._held: str | None = None  # a refusal of our own: stop reconnecting
        self._answered = False
        self._pause_s: float | None = None  # held for a while (hold's retry_s)
        self._lock = threading.Lock()
        self._client_lock = threading.Lock()  # the client's sockets, closed or in use
        self.status = BrokerLinkStatus(CONNECTING, "connecting", broker.url, wall_clock())
        self._thread = threading.Thread(target=self._run, name=f"mqtt {label}", daemon=True)

    def start(self) -> BrokerLink:
        log.info("mqtt: %s: connecting to %s", self.label, self.broker.url)
        self._thread.start()
        return self

    @property
    def is_connected(self) -> bool:
        return self.status.is_connected

    def hold(self, state: str, reason: str | Words, retry_s: float | None = None) -> None:
        """Stop with this status (e.g. the box name is taken): a clean DISCONNECT, so
        the broker sends no last will; no more attempts, or (`retry_s`) none for that
        long: then the link connects again."""
        self._held = reason if isinstance(reason, str) else reason.english()
        self._set(state, reason)
        if retry_s is None:
            self._closing.set()
        else:
            self._pause_s = retry_s
        self._disconnect()

    def close(self, timeout: float = 5.0) -> None:
        self._closing.set()
        self._disconnect()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        if self._held is None:
            self._set(STOPPED, "closed")

    def _disconnect(self) -> None:
        """A clean DISCONNECT on the connection in use, if one is: never on a client
        whose connection has ended, whose sockets the link's thread closes."""
        with self._client_lock:
            if self.client is not None:
                self.client.disconnect()

    # -- the link's thread ----------------------------------------------------------------

    def _set(self, state: str, reason: str | Words) -> None:
        words = reason if isinstance(reason, Words) else None
        english = reason.english() if isinstance(reason, Words) else reason
        with self._lock:
            old = self.status
            if (old.state, old.reason) == (state, english):
                return
            status = BrokerLinkStatus(state, english, self.broker.url, self._wall(), words)
            self.status = status
        for listener in list(self.when_status):  # first: the console says what they show
            try:
                listener(status)
            except Exception:  # a listener's bug never stops the link
                log.exception("mqtt: %s: a status listener failed", self.label)
        if state == CONNECTED:
            log.info("mqtt: %s: connected to %s", self.label, self.broker.url)
        elif state != STOPPED:
            log.warning("mqtt: %s: %s", self.label, status.line())

    def _run(self) -> None:
        delay = 1.0
        while not self._closing.is_set():
            try:
                began = time.monotonic()
                # a connection that worked a while: try again at once; one thrown off
                # right away (a box with our name on the broker?) backs off as a
                # failure does, or two such boxes would throw each other off non-stop
                if self._attempt() and time.monotonic() - began >= SHORT_LIVED_S:
                    delay = 0.0
                pause, self._pause_s = self._pause_s, None
                if pause is not None:
                    if self._closing.wait(pause):
                        break
                    self._held = None
                    delay = 0.0
            except Exception as exc:  # a bug, or something a broker sent: start again
                self.crashes += 1
                log.exception("mqtt: %s: the connection failed unexpectedly", self.label)
                said = {"why": repr(exc)}
                self._set(UNREACHABLE, Words("the connection failed unexpectedly ({why})", said))
            if self._closing.wait(delay):
                break
            delay = min(max(delay * 2, 1.0), self.reconnect_max_s)

    def _attempt(self) -> bool:
        """One connection, until it ends; True if the broker accepted it."""
        client = Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            clean_session=self.clean,
            protocol=mqtt.MQTTv311,
            reconnect_on_failure=False,  # the BrokerLink reconnects, with a fresh client
            manual_ack=self.manual_ack,  # the caller acks a message once it is kept
        )
        configure(client, self.broker)
        client.connect_timeout = self.connect_timeout_s
        if self.will is not None:
            client.will_set(self.will[0], self.will[1], qos=1, retain=True)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        if self.on_message is not None:
            client.on_message = self.on_message
        self._answered = False
        self._accepted = False
        self._lost: str | Words | None = None
        try:
            try:
                # close() and hold() say so, then wait for the sockets (connect_timeout_s)
                with self._client_lock:
                    if self._closing.is_set() or self._pause_s is not None:
                        return False
                    self.client = client
                    client.connect(self.broker.host, self.broker.port, self.keepalive_s)
            except (OSError, ValueError) as exc:
                self._set(UNREACHABLE, explain(exc, self.broker, self.connect_timeout_s))
                return False
            client.run()
        finally:
            with self._client_lock:  # not while close() wakes it to disconnect
                client._reset_sockets()
                self.client = None
        if self._closing.is_set() or self._pause_s is not None:
            return self._accepted
        if not self._answered:
            self._set(UNREACHABLE, closed_early(self.broker))
        elif self._accepted:
            why = self._lost or Words("connection closed")
            self._set(CONNECTING, Words("lost the broker ({why})", {"why": why}))
        return self._accepted

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode, props: Any
    ) -> None:
        self._answered = True
        if reason.is_failure:
            self._set(REFUSED, refusal(reason))
            client.disconnect()
            return
        self._accepted = True
        self._set(CONNECTED, "")
        self.on_up(client)

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode, props: Any
    ) -> None:
        text = str(reason)
        self._lost = Words("the connection closed") if text == "Unspecified error" else text


def wait_until(link: BrokerLink, states: tuple[str, ...], timeout: float) -> BrokerLinkStatus:
    """The link's status once it is one of `states` (or whatever it is at the timeout)."""
    done = threading.Event()

    def check(status: BrokerLinkStatus) -> None:
        if status.state in states:
            done.set()

    link.when_status.append(check)
    try:
        if link.status.state not in states:
            done.wait(timeout)
    finally:
        link.when_status.remove(check)
    return link.status
