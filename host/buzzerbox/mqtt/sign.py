"""Authentic messages: each box signs what it publishes, the hub shows what verifies.

The broker is the venue's, usually open: anyone on its network may publish under
`buzzerbox/`. So the event's boxes and hub share a key (`--mqtt-secret-file FILE`,
`mqtt_secret` or `mqtt_secret_file` in serve's config, `BUZZERBOX_MQTT_SECRET`; the hub makes
one and prints it if it is given none) and every JSON message a box publishes ends
with one more field:

    {...the message as before..., "sig": "<64 hex digits>"}

`sig` = HMAC-SHA256(key, topic + "\\n" + the message's bytes without `,"sig":"..."`),
so it is checked on the bytes as they came (no canonical form to agree on), every
field Home Assistant reads is where it was, and a message copied onto another topic
(another box's, another game's) does not verify. A message replayed onto its own
topic is one the box did send: its `seq` (the log's, only ever growing) is in the
signed bytes, and the hub keeps per table and per game the highest seq it accepted,
so an old one changes nothing. `status` ("online"/"offline", Home Assistant's
availability, and the broker's last will) cannot carry a field: it is not signed,
and the hub lets it only mark a table it already holds (from signed messages)
offline or online, never add one.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

from buzzerbox.mqtt.errors import SigningKeyError

ENV_KEY = "BUZZERBOX_MQTT_SECRET"
#: a key shorter than this is refused (a guessable key signs nothing)
MIN_KEY = 16
_TAIL = b',"sig":"'
_SIG_LEN = len(_TAIL) + 64 + 2  # ,"sig":"<64 hex>"}
_HEX = re.compile(rb"[0-9a-f]{64}")


def new_key() -> str:
    """A fresh key: 32 characters of letters, digits, '-' and '_' (192 bits)."""
    return secrets.token_urlsafe(24)


def check_key(text: str, where: str) -> bytes:
    key = text.strip()
    if len(key) < MIN_KEY:
        raise SigningKeyError(
            f"the MQTT signing key from {where} has {len(key)} characters: give at least "
            f"{MIN_KEY} (`buzzerbox hub` prints one it made: copy that into the file)"
        )
    return key.encode("utf-8")


def read_key_file(path: str | Path) -> bytes:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SigningKeyError(f"the MQTT signing key file {path} cannot be read: {exc}") from None
    return check_key(text, str(path))


def key_from_env(env: dict[str, str] | None = None) -> bytes | None:
    value = (os.environ if env is None else env).get(ENV_KEY)
    return check_key(value, ENV_KEY) if value else None


class Signer:
    """Signs and verifies messages with one key."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def _mac(self, topic: str, body: bytes) -> bytes:
        data = topic.encode("utf-8") + b"\n" + body
        return hmac.new(self._key, data, hashlib.sha256).hexdigest().encode()

    def sign(self, topic: str, payload: bytes) -> bytes:
        """A JSON object's bytes with `sig` added as its last field."""
        if not (payload.startswith(b"{") and payload.endswith(b"}") and len(payload) > 2):
            raise ValueError("only a non-empty JSON object can be signed")
        return payload[:-1] + _TAIL + self._mac(topic, payload) + b'"}'

    def verify(self, topic: str, payload: bytes) -> str | None:
        """None if the message is signed with our key; else why not ("not signed",
        "bad signature")."""
        if len(payload) <= _SIG_LEN or payload[-_SIG_LEN:-66] != _TAIL:
            return "not signed"
        sig = payload[-66:-2]
        if not payload.endswith(b'"}') or not _HEX.fullmatch(sig):
            return "not signed"
        body = payload[:-_SIG_LEN] + b"}"
        if not hmac.compare_digest(sig, self._mac(topic, body)):
            return "bad signature"
        return None


def signed(signer: Signer | None, topic: str, payload: bytes) -> bytes:
    """The payload with its `sig` if there is a key and it is JSON; else as it is."""
    if signer is None or not payload.startswith(b"{"):
        return payload
    return signer.sign(topic, payload)
