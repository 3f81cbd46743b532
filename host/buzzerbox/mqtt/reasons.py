"""Why a connection to the broker failed, and what to do, in words (connect.py's `Link`).

`explain` reads a failed attempt's exception (refused, unknown host, no route, a
certificate not trusted, a TLS handshake to a plain port, ...); `refusal` reads the
broker's CONNACK when it answered but said no.
"""

from __future__ import annotations

import errno
import socket
import ssl
from typing import TYPE_CHECKING

from buzzerbox.mqtt.topics import Broker

if TYPE_CHECKING:
    from paho.mqtt.reasoncodes import ReasonCode


def explain(exc: BaseException, broker: Broker, timeout_s: float) -> str:
    """Why a connection attempt failed, and what to do, in words."""
    where = f"{broker.host}:{broker.port}"
    if isinstance(exc, ssl.SSLCertVerificationError):
        if exc.verify_code == 62 or "hostname" in str(exc).lower():
            return (
                f"certificate not trusted: it is not for the host {broker.host} "
                f"({exc.verify_message}): connect by the name the certificate holds"
            )
        hint = (
            "give the venue's CA with --mqtt-ca FILE (mqtt_ca in the config)"
            if broker.ca_file is None
            else f"is {broker.ca_file} the CA that signed the broker's certificate?"
        )
        return f"certificate not trusted ({exc.verify_message}): {hint}"
    if isinstance(exc, ssl.SSLError):
        text = f"{exc.reason or exc}".lower()
        if "certificate_required" in text or "certificate required" in text:
            return (
                "the broker wants a client certificate: give --mqtt-cert FILE and "
                "--mqtt-key FILE (mqtt_cert, mqtt_key in the config)"
            )
        if "unknown_ca" in text or "bad_certificate" in text or "unknown ca" in text:
            return f"the broker does not accept this box's client certificate ({exc.reason})"
        return (
            f"the TLS handshake with {where} failed ({exc.reason or exc}): if this port "
            "takes plain MQTT, use mqtt:// (TLS is usually on port 8883)"
        )
    if broker.is_tls and isinstance(exc, ConnectionResetError | BrokenPipeError):
        return (
            f"{where} hung up during the TLS handshake: if this port takes plain MQTT, use "
            "mqtt:// (TLS is usually on port 8883)"
        )
    if isinstance(exc, ConnectionRefusedError):
        return (
            f"nothing listens on {where} (connection refused): is the broker running, "
            "and is this its port?"
        )
    if isinstance(exc, socket.gaierror):
        return f"the host {broker.host} is not known ({exc.strerror}): check its name"
    if isinstance(exc, TimeoutError):
        return f"no answer from {where} within {timeout_s:g} s: is the address right?"
    if isinstance(exc, OSError) and exc.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH):
        return f"no route to {where} ({exc.strerror}): is this box on the venue's network?"
    return f"cannot connect to {where}: {exc}"


def refusal(reason: ReasonCode) -> str:
    """Why the broker refused the connection (its CONNACK), and what to do."""
    text = str(reason)
    lower = text.lower()
    if "user name or password" in lower or "credentials" in lower or "not authorized" in lower:
        hint = (
            "check the user name and the password (BUZZERBOX_MQTT_PASSWORD, mqtt_password, "
            "or percent-encoded in the URL) against the broker's password file"
        )
    elif "identifier" in lower:
        hint = "the broker does not accept this client id"
    else:
        hint = "see the broker's log"
    return f"the broker refused the connection ({text}): {hint}"
