"""`buzzerbox doctor --mqtt URL` (or `--config FILE`, serve's): can this box reach
the broker? One attempt, the answer in words (connect.py's reasons), no retries."""

from __future__ import annotations

import argparse
import tomllib
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from buzzerbox.mqtt.errors import BrokerUrlError
from buzzerbox.mqtt.settings import FILE_KEYS, SERVE_DEFAULTS, add_tls_options, broker_from
from buzzerbox.mqtt.topics import Broker

if TYPE_CHECKING:
    from buzzerbox.mqtt.connect import BrokerLinkStatus


def probe(broker: Broker, timeout_s: float = 10.0) -> BrokerLinkStatus:
    """One connection attempt (a throwaway client id): connected, or why not."""
    from buzzerbox.mqtt.connect import (  # paho
        CONNECTED,
        REFUSED,
        UNREACHABLE,
        BrokerLink,
        wait_until,
    )

    link = BrokerLink(
        broker,
        f"buzzerbox-doctor-{uuid.uuid4().hex[:8]}",
        clean=True,
        label="doctor",
        on_up=lambda client: None,
        connect_timeout_s=min(5.0, timeout_s),
    )
    link.start()
    try:
        return wait_until(link, (CONNECTED, UNREACHABLE, REFUSED), timeout_s)
    finally:
        link.close()


def add_doctor_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("the event's broker")
    group.add_argument("--mqtt", metavar="URL", help="check that the broker at URL answers")
    group.add_argument(
        "--config", metavar="FILE", type=Path, help="serve's config: check its broker"
    )
    add_tls_options(group)


def _from_config(path: Path) -> dict[str, Any]:
    with open(path, "rb") as f:
        loaded = tomllib.load(f)
    cfg = {key: loaded.get(key) for key in SERVE_DEFAULTS}
    for key in FILE_KEYS:
        if cfg[key]:
            cfg[key] = path.parent / Path(str(cfg[key])).expanduser()
    return cfg


def doctor_section(args: argparse.Namespace, out: TextIO) -> bool:
    """The broker's line of doctor's report; False if it does not answer."""
    cfg: dict[str, Any] = dict(SERVE_DEFAULTS)
    try:
        if getattr(args, "config", None):
            cfg.update(_from_config(args.config))
        for key in ("mqtt", "mqtt_ca", "mqtt_cert", "mqtt_key", "mqtt_username"):
            if getattr(args, key, None):
                cfg[key] = getattr(args, key)
        if not cfg["mqtt"]:
            return True
        broker = broker_from(
            str(cfg["mqtt"]),
            username=cfg["mqtt_username"],
            password=cfg["mqtt_password"],
            ca_file=cfg["mqtt_ca"],
            cert_file=cfg["mqtt_cert"],
            key_file=cfg["mqtt_key"],
        )
    except (OSError, tomllib.TOMLDecodeError, BrokerUrlError) as exc:
        out.write(f"== broker: {exc}\n")
        return False
    status = probe(broker)
    out.write(f"== broker {broker.url}: {status.line()}\n")
    return status.is_connected
