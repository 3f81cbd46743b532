"""The topic tree, box names, message ids and broker addresses. No I/O.

    buzzerbox/<box>/status           retained   "online" | "offline" (the last will)
    buzzerbox/<box>/state            retained   the game now (envelope + "state")
    buzzerbox/<box>/event            QoS 1      every event of the box's log, in order
    buzzerbox/<box>/race             retained   the latest race (photo finish)
    buzzerbox/<box>/games/<game_id>  retained   a game's result once it is finished
    buzzerbox/<box>/ha/event         QoS 1      Home Assistant's event entity
    homeassistant/<component>/buzzerbox_<box>/<object>/config   retained, discovery
                                     (entities, and the device_automation trigger)

Every message but `status` is a JSON object with the envelope `v`, `id`, `box`,
`game_id`, `seq`, `at`; `id` is "<box>/<game_id>/<seq>": the box, its game and the
log seq of the event that made the message, so a subscriber drops what QoS 1
delivers twice. Everything is published with QoS 1.
"""

from __future__ import annotations

import re
import socket
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from buzzerbox.mqtt.errors import BoxNameError, BrokerUrlError

ROOT = "buzzerbox"
VERSION = 1
ONLINE = "online"
OFFLINE = "offline"
#: the kinds of message under buzzerbox/<box>/
KINDS = ("status", "state", "event", "race", "games", "ha", "claim")

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")


def check_box_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise BoxNameError(
            f"box name {name!r} is not allowed: use 1-32 letters, digits, '-' and '_', "
            "starting with a letter or digit (it is a topic level and a Home Assistant id)"
        )
    return name


def default_box_name(hostname: str | None = None, machine: str = "") -> str:
    """The host name made into a box name, with the first 6 characters of the machine's
    id, so that two boxes made from one SD image differ ("Table 3.local" and machine
    "3fa9c2..." -> "Table-3-3fa9c2")."""
    host = (hostname if hostname is not None else socket.gethostname()).split(".")[0]
    suffix = re.sub(r"[^A-Za-z0-9]+", "", machine)[:6].lower()
    room = 32 - (len(suffix) + 1 if suffix else 0)
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", host).strip("-_")[:room].strip("-_") or "box"
    return f"{name}-{suffix}" if suffix else name


def topic(box: str, kind: str, *rest: str) -> str:
    return "/".join((ROOT, box, kind, *rest))


def message_id(box: str, game_id: int | None, seq: int) -> str:
    return f"{box}/{game_id if game_id is not None else 0}/{seq}"


@dataclass(frozen=True, slots=True)
class Parsed:
    """A topic under ROOT: the box, the kind and what follows (the game id of `games`)."""

    box: str
    kind: str
    rest: tuple[str, ...]


def parse_topic(name: str) -> Parsed | None:
    """buzzerbox/<box>/<kind>/...; None for anything else."""
    parts = name.split("/")
    if len(parts) < 3 or parts[0] != ROOT or parts[2] not in KINDS:
        return None
    if not _NAME.fullmatch(parts[1]):
        return None
    return Parsed(parts[1], parts[2], tuple(parts[3:]))


@dataclass(frozen=True, slots=True)
class Broker:
    """Where the broker is: mqtt://[user[:password]@]host[:port], or mqtts:// (TLS)."""

    host: str
    port: int
    is_tls: bool = False
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None

    @property
    def url(self) -> str:
        """The address without the password, for printing."""
        user = f"{self.username}@" if self.username else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.is_tls else 'mqtt'}://{user}{host}:{self.port}"


def masked(url: str) -> str:
    """The URL with what lies between "://" and its last "@" hidden (a password)."""
    scheme, sep, rest = url.rpartition("://")
    if "@" not in rest:
        return url
    user = rest.split(":", 1)[0].split("@", 1)[0]
    return f"{scheme}{sep}{user}:***@{rest.rsplit('@', 1)[1]}"


#: what to do about a password that holds a character a URL reserves
ENCODE_HINT = (
    "a user name or password in the URL must be percent-encoded (@ as %40, : as %3A, "
    "/ as %2F, % as %25), or leave it out of the URL: BUZZERBOX_MQTT_PASSWORD in the "
    "environment or mqtt_password in the config"
)


def parse_broker(url: str) -> Broker:
    """mqtt://host[:port] (1883), mqtts://host[:port] (8883), or host[:port]."""
    raw = url.strip()
    parts = urlsplit(raw if "://" in raw else f"mqtt://{raw}")
    url = masked(raw)  # never print a password
    allowed = "use mqtt://host[:port] or mqtts://host[:port], e.g. mqtt://192.168.1.10:1883"
    if "@" in raw:
        allowed += f"; {ENCODE_HINT}"
    if parts.scheme not in ("mqtt", "mqtts", "tcp", "ssl"):
        raise BrokerUrlError(f"broker {url!r}: scheme {parts.scheme!r} is not known: {allowed}")
    try:
        port = parts.port
    except ValueError:
        raise BrokerUrlError(
            f"broker {url!r}: the port is not a number 1-65535: {allowed}"
        ) from None
    if not parts.hostname:
        raise BrokerUrlError(f"broker {url!r} names no host: {allowed}")
    if parts.path not in ("", "/") or parts.query or parts.fragment or "@" in parts.hostname:
        raise BrokerUrlError(f"broker {url!r}: a path or query is not allowed: {allowed}")
    is_tls = parts.scheme in ("mqtts", "ssl")
    return Broker(
        host=parts.hostname,
        port=port or (8883 if is_tls else 1883),
        is_tls=is_tls,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )
