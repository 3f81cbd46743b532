"""Why a connection to the broker failed, and what to do, in words (connect.py's `BrokerLink`).

`explain` reads a failed attempt's exception (refused, unknown host, no route, a
certificate not trusted, a TLS handshake to a plain port, ...); `refusal` reads the
broker's CONNACK when it answered but said no.
"""

from __future__ import annotations

import errno
import socket
import ssl
from typing import TYPE_CHECKING

from buzzerbox.errors import Words
from buzzerbox.mqtt.topics import Broker

if TYPE_CHECKING:
    from paho.mqtt.reasoncodes import ReasonCode


def explain(exc: BaseException, broker: Broker, timeout_s: float) -> Words:
    """Why a connection attempt failed, and what to do, in words (the system's own
    reason, in parentheses, stays as the system says it)."""
    said: dict[str, object] = {"where": f"{broker.host}:{broker.port}", "host": broker.host}
    if isinstance(exc, ssl.SSLCertVerificationError):
        said["why"] = exc.verify_message
        if exc.verify_code == 62 or "hostname" in str(exc).lower():
            return Words(
                "certificate not trusted: it is not for the host {host} ({why}): "
                "connect by the name the certificate holds",
                said,
            )
        if broker.ca_file is None:
            return Words(
                "certificate not trusted ({why}): give the venue's CA with --mqtt-ca FILE "
                "(mqtt_ca in the config)",
                said,
            )
        said["ca"] = broker.ca_file
        return Words(
            "certificate not trusted ({why}): is {ca} the CA that signed the broker's certificate?",
            said,
        )
    if isinstance(exc, ssl.SSLError):
        said["why"] = f"{exc.reason or exc}"
        text = str(said["why"]).lower()
        if "certificate_required" in text or "certificate required" in text:
            return Words(
                "the broker wants a client certificate: give --mqtt-cert FILE and "
                "--mqtt-key FILE (mqtt_cert, mqtt_key in the config)"
            )
        if "unknown_ca" in text or "bad_certificate" in text or "unknown ca" in text:
            said["why"] = exc.reason
            return Words("the broker does not accept this box's client certificate ({why})", said)
        return Words(
            "the TLS handshake with {where} failed ({why}): if this port takes plain MQTT, "
            "use mqtt:// (TLS is usually on port 8883)",
            said,
        )
    if broker.is_tls and isinstance(exc, ConnectionResetError | BrokenPipeError):
        return Words(
            "{where} hung up during the TLS handshake: if this port takes plain MQTT, use "
            "mqtt:// (TLS is usually on port 8883)",
            said,
        )
    if isinstance(exc, ConnectionRefusedError):
        return Words(
            "nothing listens on {where} (connection refused): is the broker running, "
            "and is this its port?",
            said,
        )
    if isinstance(exc, socket.gaierror):
        said["why"] = exc.strerror
        return Words("the host {host} is not known ({why}): check its name", said)
    if isinstance(exc, TimeoutError):
        said["s"] = timeout_s
        return Words("no answer from {where} within {s:g} s: is the address right?", said)
    if isinstance(exc, OSError) and exc.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH):
        said["why"] = exc.strerror
        return Words("no route to {where} ({why}): is this box on the venue's network?", said)
    said["why"] = str(exc)
    return Words("cannot connect to {where}: {why}", said)


def refusal(reason: ReasonCode) -> Words:
    """Why the broker refused the connection (its CONNACK), and what to do."""
    text = str(reason)
    lower = text.lower()
    said = {"why": text}
    if "user name or password" in lower or "credentials" in lower or "not authorized" in lower:
        return Words(
            "the broker refused the connection ({why}): check the user name and the password "
            "(BUZZERBOX_MQTT_PASSWORD, mqtt_password, or percent-encoded in the URL) against "
            "the broker's password file",
            said,
        )
    if "identifier" in lower:
        return Words(
            "the broker refused the connection ({why}): the broker does not accept this client id",
            said,
        )
    return Words("the broker refused the connection ({why}): see the broker's log", said)


def closed_early(broker: Broker) -> Words:
    """Why a broker closed the connection before it answered, and what to do."""
    said = {"where": f"{broker.host}:{broker.port}", "cert": broker.cert_file}
    if broker.is_tls and broker.cert_file is None:
        return Words(
            "{where} closed the connection before it answered: if the broker wants a "
            "client certificate, give --mqtt-cert FILE and --mqtt-key FILE (mqtt_cert, "
            "mqtt_key in the config); else see the broker's log",
            said,
        )
    if broker.is_tls:
        return Words(
            "{where} closed the connection before it answered: does the broker accept "
            "the client certificate {cert}? See the broker's log",
            said,
        )
    return Words(
        "{where} closed the connection before it answered: if this port takes TLS, "
        "use mqtts:// (and --mqtt-ca for the venue's own CA)",
        said,
    )
