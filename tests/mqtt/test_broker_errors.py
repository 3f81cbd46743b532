"""A venue's broker with its own CA and a password file, and every way to miss it:
each says why at once, in words (the link's status, which the box's state, the
hub's page and doctor show)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from buzzerbox.hub.leaderboard import Leaderboard
from buzzerbox.hub.subscriber import Subscriber
from buzzerbox.mqtt import TlsFileError, attach, broker_from
from buzzerbox.mqtt.connect import (
    CONNECTED,
    REFUSED,
    UNREACHABLE,
    BrokerLink,
    BrokerLinkStatus,
    wait_until,
)
from buzzerbox.mqtt.topics import Broker

from .certs import Pki, make_pki, password_file, tls_listener
from .mqtt_fakes import TIMEOUT_S, MakeBox, ManualClock, Mosquitto, free_port, kids_round

PASSWORD = "p@ss:w/rd%"  # every character a URL reserves
ENV = {"BUZZERBOX_MQTT_PASSWORD": PASSWORD}
#: "at once": a refusal or a closed port is known within this (no retry needed)
AT_ONCE_S = 3.0


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture
def tls_broker(tmp_path: Path, pki: Pki) -> Iterator[Mosquitto]:
    passwords = password_file(tmp_path / "passwords", "box", PASSWORD)
    mosquitto = Mosquitto(tmp_path / "tls", listener=tls_listener(pki, passwords=passwords))
    mosquitto.start()
    yield mosquitto
    mosquitto.stop()


def first_answer(broker: Broker) -> BrokerLinkStatus:
    link = BrokerLink(broker, "buzzerbox-test", clean=True, label="test", on_up=lambda c: None)
    link.start()
    try:
        return wait_until(link, (CONNECTED, UNREACHABLE, REFUSED), AT_ONCE_S)
    finally:
        link.close()


def test_tls_with_the_venues_ca_and_a_password_from_the_environment(
    tls_broker: Mosquitto, pki: Pki
) -> None:
    broker = broker_from(f"mqtts://box@127.0.0.1:{tls_broker.port}", ca_file=pki.ca, env=ENV)
    assert broker.password == PASSWORD and PASSWORD not in repr(broker)
    assert first_answer(broker).state == CONNECTED
    encoded = "p%40ss%3Aw%2Frd%25"
    url = f"mqtts://box:{encoded}@localhost:{tls_broker.port}"
    assert first_answer(broker_from(url, ca_file=pki.ca, env={})).state == CONNECTED


def test_a_box_publishes_a_game_over_tls(
    tls_broker: Mosquitto, pki: Pki, make_box: MakeBox, clock: ManualClock, tmp_path: Path
) -> None:
    """The publisher's thread and the network thread share one TLS stream."""
    box = make_box("t1", clock)
    broker = broker_from(f"mqtts://box@localhost:{tls_broker.port}", ca_file=pki.ca, env=ENV)
    publisher = attach(box, broker, "t1", tmp_path / "t1")
    try:
        box.new_game({"game": "kids", "players": ["Ann", "Ben"]})
        for winner in (0, 1, 1):
            kids_round(box, clock, winner)
        assert publisher.wait_published(box.seq, TIMEOUT_S)
        assert publisher.status.state == CONNECTED
    finally:
        publisher.close()


def test_a_client_certificate(tmp_path: Path, pki: Pki) -> None:
    listener = tls_listener(pki, client_certs=True)
    mosquitto = Mosquitto(tmp_path / "certs", listener=listener)
    mosquitto.start()
    try:
        url = f"mqtts://127.0.0.1:{mosquitto.port}"
        without = first_answer(broker_from(url, ca_file=pki.ca))
        assert without.state == UNREACHABLE and "client certificate" in without.reason
        broker = broker_from(
            url, ca_file=pki.ca, cert_file=pki.client_cert, key_file=pki.client_key
        )
        assert first_answer(broker).state == CONNECTED
    finally:
        mosquitto.stop()


@pytest.mark.parametrize(
    ("ca", "expected"),
    [
        (None, "certificate not trusted (self-signed certificate in certificate chain): give "
               "the venue's CA with --mqtt-ca FILE"),
        ("other", "certificate not trusted"),
    ],
)  # fmt: skip
def test_an_untrusted_certificate_says_so(
    tls_broker: Mosquitto, pki: Pki, ca: str | None, expected: str
) -> None:
    ca_file = pki.other_ca if ca else None
    url = f"mqtts://box@127.0.0.1:{tls_broker.port}"
    status = first_answer(broker_from(url, ca_file=ca_file, env=ENV))
    assert status.state == UNREACHABLE
    assert status.line().startswith("broker unreachable: " + expected), status.line()


def test_a_wrong_password_is_refused_with_what_to_check(tls_broker: Mosquitto, pki: Pki) -> None:
    url = f"mqtts://box@127.0.0.1:{tls_broker.port}"
    status = first_answer(broker_from(url, ca_file=pki.ca, env={"BUZZERBOX_MQTT_PASSWORD": "x"}))
    assert status.state == REFUSED
    assert "Not authorized" in status.reason and "BUZZERBOX_MQTT_PASSWORD" in status.reason


def test_plain_to_a_tls_port(tls_broker: Mosquitto) -> None:
    status = first_answer(broker_from(f"mqtt://box@127.0.0.1:{tls_broker.port}", env=ENV))
    assert status.state == UNREACHABLE
    assert "closed the connection before it answered" in status.reason
    assert "use mqtts://" in status.reason


def test_tls_to_a_plain_port(broker: Mosquitto, pki: Pki) -> None:
    status = first_answer(broker_from(f"mqtts://127.0.0.1:{broker.port}", ca_file=pki.ca))
    assert status.state == UNREACHABLE
    assert "TLS handshake" in status.reason and "use mqtt://" in status.reason


def test_no_broker_at_all() -> None:
    port = free_port()
    status = first_answer(broker_from(f"mqtt://127.0.0.1:{port}"))
    assert status.state == UNREACHABLE
    assert status.reason.startswith(f"nothing listens on 127.0.0.1:{port} (connection refused)")
    # the box's state is every phone's: the line is said in each of its languages too
    said = status.to_json()["said"]
    assert said["de"] == (
        f"Broker nicht erreichbar: auf 127.0.0.1:{port} lauscht nichts (Verbindung abgelehnt): "
        "läuft der Broker, und ist das sein Port?"
    )
    assert said["fr"].startswith(f"broker injoignable : rien n'écoute sur 127.0.0.1:{port}")
    assert said["da"].startswith(f"broker ikke tilgængelig: intet lytter på 127.0.0.1:{port}")


def test_tls_files_are_checked_at_start(tmp_path: Path, pki: Pki) -> None:
    with pytest.raises(TlsFileError, match=r"the CA file .* cannot be read"):
        broker_from("mqtts://h", ca_file=tmp_path / "missing.pem")
    with pytest.raises(TlsFileError, match="use mqtts://"):
        broker_from("mqtt://h", ca_file=pki.ca)
    with pytest.raises(TlsFileError, match="without its certificate"):
        broker_from("mqtts://h", key_file=pki.client_key)
    with pytest.raises(TlsFileError, match="a password without a user name"):
        broker_from("mqtt://h", env=ENV)


def test_the_hubs_board_carries_the_reason(tls_broker: Mosquitto) -> None:
    board = Leaderboard()
    broker = broker_from(f"mqtt://box@127.0.0.1:{tls_broker.port}", env=ENV)
    subscriber = Subscriber(broker, board, name="hub-test").start()
    try:
        wait_until(subscriber.link, (UNREACHABLE,), AT_ONCE_S)
        status = board.snapshot()["broker"]
        assert status["state"] == "unreachable"
        assert str(status["text"]).startswith("broker unreachable: 127.0.0.1:")
    finally:
        subscriber.close()


class SlowWaker:
    """paho's waker (the socket pair's writing end) as the closing thread meets it when
    it loses the processor at the wrong moment: the network thread, given the
    DISCONNECT just queued, sends it, ends and closes the pair before the waker is
    written (CI saw this once: paho's "Bad file descriptor" from the hub's close())."""

    def __init__(self, real: socket.socket, network: threading.Thread) -> None:
        self.real, self.network = real, network
        self.closed = threading.Event()

    def send(self, data: bytes) -> int:
        if threading.current_thread() is not self.network:
            self.closed.wait(3.0)  # the network thread writes what it has within 1 s
        return self.real.send(data)

    def close(self) -> None:
        self.real.close()
        self.closed.set()


def test_closing_races_the_network_thread(broker: Mosquitto) -> None:
    """close() holds the client's sockets while it wakes the network thread: the thread
    closes them after, never under it."""
    link = BrokerLink(
        broker_from(broker.url), "buzzerbox-test", clean=True, label="test", on_up=lambda c: None
    )
    link.start()
    assert wait_until(link, (CONNECTED,), TIMEOUT_S).state == CONNECTED
    client = link.client
    assert client is not None and client._sockpairW is not None
    client._sockpairW = SlowWaker(client._sockpairW, link._thread)  # type: ignore[assignment]
    link.close()
    assert not link._thread.is_alive()
