"""The topic tree, box names, message ids and broker addresses. No I/O.

    buzzerbox/<box>/status           retained   "online" | "offline" (the last will)
    buzzerbox/<box>/state            retained   the game now (envelope + "state")
    buzzerbox/<box>/event            QoS 1      every event of the box's log, in order
    buzzerbox/<box>/race             retained   the latest race (photo finish)
    buzzerbox/<box>/games/<game_id>  retained   a game's result once it is finished
    buzzerbox/<box>/ha/event         QoS 1      Home Assistant's event entity
    homeassistant/<component>/buzzerbox_<box>/<object>/config   retained, discovery

Every message but `status` is a JSON object with the envelope `v`, `id`, `box`,
`game_id`, `seq`, `at`; `id` is "<box>/<game_id>/<seq>": the box, its game and the
log seq of the event that made the message, so a subscriber drops what QoS 1
delivers twice. Everything is published with QoS 1.
"""

from __future__ import annotations

import argparse
import re
import socket
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from buzzerbox.errors import BuzzerboxError, ConfigError

ROOT = "buzzerbox"
VERSION = 1
ONLINE = "online"
OFFLINE = "offline"
#: the kinds of message under buzzerbox/<box>/
KINDS = ("status", "state", "event", "race", "games", "ha")

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")


class MqttError(BuzzerboxError):
    """The root of the errors of the MQTT side."""


class BoxNameError(MqttError, ConfigError):
    """A box name that cannot be a topic level and a Home Assistant id."""


class BrokerUrlError(MqttError, ConfigError):
    """A broker address that is not mqtt://host[:port] or mqtts://host[:port]."""


def check_box_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise BoxNameError(
            f"box name {name!r} is not allowed: use 1-32 letters, digits, '-' and '_', "
            "starting with a letter or digit (it is a topic level and a Home Assistant id)"
        )
    return name


def default_box_name(hostname: str | None = None) -> str:
    """The host name made into a box name ("Table 3.local" -> "Table-3")."""
    host = (hostname if hostname is not None else socket.gethostname()).split(".")[0]
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", host).strip("-_")[:32]
    return name or "box"


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
    password: str | None = None

    @property
    def url(self) -> str:
        """The address without the password, for printing."""
        user = f"{self.username}@" if self.username else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.is_tls else 'mqtt'}://{user}{host}:{self.port}"


def parse_broker(url: str) -> Broker:
    """mqtt://host[:port] (1883), mqtts://host[:port] (8883), or host[:port]."""
    raw = url.strip()
    parts = urlsplit(raw if "://" in raw else f"mqtt://{raw}")
    allowed = "use mqtt://host[:port] or mqtts://host[:port], e.g. mqtt://192.168.1.10:1883"
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
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise BrokerUrlError(f"broker {url!r}: a path or query is not allowed: {allowed}")
    is_tls = parts.scheme in ("mqtts", "ssl")
    return Broker(
        host=parts.hostname,
        port=port or (8883 if is_tls else 1883),
        is_tls=is_tls,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


def add_serve_options(parser: argparse.ArgumentParser) -> None:
    """`buzzerbox serve --mqtt URL --box-name NAME` (here, not in publisher.py: the
    command line is built without importing paho)."""
    group = parser.add_argument_group("event installation (an MQTT broker)")
    group.add_argument(
        "--mqtt",
        metavar="URL",
        help="publish this box's games to the broker at URL: mqtt://host[:port] or mqtts://",
    )
    group.add_argument(
        "--box-name",
        metavar="NAME",
        help="this box's name on the broker and in Home Assistant (default: the host name)",
    )
