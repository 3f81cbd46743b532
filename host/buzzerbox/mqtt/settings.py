"""Where the broker is and how to log in: the options of `buzzerbox serve` (and the
hub's), the keys of serve's config file, and the environment.

    serve --mqtt URL [--box-name NAME] [--mqtt-ca FILE] [--mqtt-cert FILE --mqtt-key FILE]
          [--mqtt-secret-file FILE]
    config:      mqtt, box_name, mqtt_username, mqtt_password, mqtt_ca, mqtt_cert, mqtt_key,
                 mqtt_secret, mqtt_secret_file
    environment: BUZZERBOX_MQTT_USERNAME, BUZZERBOX_MQTT_PASSWORD, BUZZERBOX_MQTT_SECRET

A user name or password in the URL wins; else the environment's; else the config's
(a password is better kept out of the URL: no percent-encoding, not in `ps`). File
names in the config are relative to the config file.
"""

from __future__ import annotations

import argparse
import atexit
import dataclasses
import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from buzzerbox.mqtt.claim import machine_id
from buzzerbox.mqtt.topics import Broker, check_box_name, default_box_name, parse_broker

log = logging.getLogger(__name__)

if TYPE_CHECKING:  # paho (connect, publisher) loads when a broker is used, not for --help
    from buzzerbox.box import Box
    from buzzerbox.mqtt.connect import BrokerLinkStatus
    from buzzerbox.mqtt.publisher import Publisher
    from buzzerbox.mqtt.sign import Signer

ENV_USERNAME = "BUZZERBOX_MQTT_USERNAME"
ENV_PASSWORD = "BUZZERBOX_MQTT_PASSWORD"

#: serve's config keys of this area, and their defaults (all strings)
SERVE_DEFAULTS: dict[str, Any] = {
    "mqtt": None,
    "box_name": None,
    "mqtt_username": None,
    "mqtt_password": None,
    "mqtt_ca": None,
    "mqtt_cert": None,
    "mqtt_key": None,
    "mqtt_secret": None,
    "mqtt_secret_file": None,
}
SERVE_TYPES: dict[str, tuple[type, ...]] = {key: (str,) for key in SERVE_DEFAULTS}
#: the keys a config file names files with
FILE_KEYS = ("mqtt_ca", "mqtt_cert", "mqtt_key", "mqtt_secret_file")


def broker_from(
    url: str,
    *,
    username: str | None = None,
    password: str | None = None,
    ca_file: str | Path | None = None,
    cert_file: str | Path | None = None,
    key_file: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Broker:
    """The broker at `url`, with its login and TLS files checked (BrokerUrlError or
    TlsFileError, both ValueError, say what is wrong)."""
    from buzzerbox.mqtt.connect import tls_context
    from buzzerbox.mqtt.errors import TlsFileError

    env = os.environ if env is None else env
    broker = parse_broker(url)
    tls_files = [str(f) for f in (ca_file, cert_file, key_file) if f]
    if tls_files and not broker.is_tls:
        raise TlsFileError(
            f"broker {broker.url}: a CA file, certificate or key is given but the URL is "
            "mqtt:// (plain): use mqtts://host[:port] for TLS"
        )
    if key_file and not cert_file:
        raise TlsFileError("a client key without its certificate: give --mqtt-cert FILE too")
    broker = dataclasses.replace(
        broker,
        username=broker.username or env.get(ENV_USERNAME) or username,
        password=broker.password or env.get(ENV_PASSWORD) or password,
        ca_file=str(ca_file) if ca_file else None,
        cert_file=str(cert_file) if cert_file else None,
        key_file=str(key_file) if key_file else None,
    )
    if broker.password and not broker.username:
        raise TlsFileError(
            f"broker {broker.url}: a password without a user name: put the user in the URL "
            f"(mqtt://user@host), in {ENV_USERNAME} or in mqtt_username"
        )
    if broker.is_tls:
        tls_context(broker)  # read the files now: a wrong one is said at start
    return broker


def attach(
    box: Box,
    broker_url: str | Broker,
    box_name: str | None,
    data_dir: str | Path,
    **options: Any,
) -> Publisher:
    """Publish `box`'s games to the broker as `box_name` (default: the host name and
    part of the machine's id); the cursor goes to `data_dir`/mqtt.db. The link's
    status goes into the box's state (`box.mqtt`). Returns the running publisher.
    Raises BrokerUrlError, BoxNameError or TlsFileError (all ValueError)."""
    from buzzerbox.mqtt.publisher import Publisher

    broker = broker_url if isinstance(broker_url, Broker) else broker_from(broker_url)
    name = check_box_name(box_name) if box_name else default_box_name(machine=machine_id())
    publisher = Publisher(box.log.path, name, data_dir, broker, **options)

    def report(status: BrokerLinkStatus) -> None:
        box.report("mqtt", {"box_name": name, **status.to_json()})

    publisher.link.when_status.append(report)
    report(publisher.status)
    publisher.start()
    publisher.listen_to(box)
    atexit.register(publisher.close)  # a clean "offline"; the last will covers a crash
    return publisher


def attach_serve(
    box: Box, cfg: Mapping[str, Any], data_dir: Path, base: Path | None = None
) -> Publisher | None:
    """`buzzerbox serve`'s publisher from its settings (None without `mqtt`); file
    names relative to `base` (the config file's folder)."""
    if not cfg.get("mqtt"):
        return None

    def path(key: str) -> Path | None:
        value = cfg.get(key)
        return None if not value else (base or Path.cwd()) / Path(str(value)).expanduser()

    broker = broker_from(
        str(cfg["mqtt"]),
        username=cfg.get("mqtt_username"),
        password=cfg.get("mqtt_password"),
        ca_file=path("mqtt_ca"),
        cert_file=path("mqtt_cert"),
        key_file=path("mqtt_key"),
    )
    return attach(box, broker, cfg.get("box_name"), data_dir, signer=signer_from(cfg, path))


def signer_from(cfg: Mapping[str, Any], path: Callable[[str], Path | None]) -> Signer | None:
    """The event's signing key (sign.py): the environment's, else `mqtt_secret_file`
    (--mqtt-secret-file), else `mqtt_secret`; None without one (unsigned: a hub with
    a key refuses what this box sends)."""
    from buzzerbox.mqtt import sign

    key = sign.key_from_env()
    if key is None and (file := path("mqtt_secret_file")) is not None:
        key = sign.read_key_file(file)
    if key is None and cfg.get("mqtt_secret"):
        key = sign.check_key(str(cfg["mqtt_secret"]), "mqtt_secret in the config")
    if key is None:
        log.warning(
            "mqtt: no signing key (--mqtt-secret-file): this box's messages are unsigned, "
            "and a hub with the event's key shows none of them"
        )
        return None
    return sign.Signer(key)


def add_tls_options(group: Any, prefix: str = "--mqtt-") -> None:
    group.add_argument(
        f"{prefix}ca",
        metavar="FILE",
        help="mqtts://: trust the broker's certificate if this CA (PEM) signed it",
    )
    group.add_argument(f"{prefix}cert", metavar="FILE", help="mqtts://: a client certificate")
    group.add_argument(f"{prefix}key", metavar="FILE", help="mqtts://: the client key")
    group.add_argument(
        f"{prefix}username",
        metavar="USER",
        help=f"the broker's user (the password: {ENV_PASSWORD}, or mqtt_password in a config)",
    )


def add_serve_options(parser: argparse.ArgumentParser) -> None:
    """`buzzerbox serve --mqtt URL --box-name NAME --mqtt-ca FILE ...`."""
    group = parser.add_argument_group("event installation (an MQTT broker)")
    group.add_argument(
        "--mqtt",
        metavar="URL",
        help="publish this box's games to the broker at URL: mqtt://host[:port] or mqtts://",
    )
    group.add_argument(
        "--box-name",
        metavar="NAME",
        help="this box's name on the broker and in Home Assistant "
        "(default: the host name and 6 characters of the machine's id)",
    )
    add_tls_options(group)
    group.add_argument(
        "--mqtt-secret-file",
        metavar="FILE",
        help="the event's signing key, shared with the hub (which prints one it made): "
        "the hub shows only what it signed (or BUZZERBOX_MQTT_SECRET, mqtt_secret)",
    )


def hub_broker(args: argparse.Namespace) -> Broker:
    """The hub's broker from `buzzerbox hub --broker URL --ca FILE ...`."""
    return broker_from(
        args.broker,
        username=args.username,
        ca_file=args.ca,
        cert_file=args.cert,
        key_file=args.key,
    )
