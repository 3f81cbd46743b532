"""`buzzerbox mosquitto-config`: the venue's mosquitto, with a login per box and an ACL.

Signing (mqtt/sign.py) makes a forged result visible as forged; the broker's ACL
keeps strangers from writing under a box's topics at all. Each box logs in with its
own name and may write only `buzzerbox/<its name>/#` (and its Home Assistant
discovery configs); the hub's user and Home Assistant's read. Anonymous clients are
refused.

    buzzerbox mosquitto-config --boxes table-1 table-2 --dir /etc/mosquitto/buzzerbox
    mosquitto_passwd -c /etc/mosquitto/buzzerbox/passwords hub     # then each box's
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from buzzerbox.mqtt.errors import BoxNameError
from buzzerbox.mqtt.topics import check_box_name

CONF = "buzzerbox.conf"
ACL = "acl"
PASSWORDS = "passwords"


def acl(boxes: list[str], hub_user: str = "hub", ha_user: str = "homeassistant") -> str:
    """The ACL: a box writes only its own topics; the hub and Home Assistant read."""
    lines = [
        "# made by `buzzerbox mosquitto-config`: a box writes only its own topics",
        f"user {hub_user}",
        "topic read buzzerbox/#",
        "",
        f"user {ha_user}",
        "topic read buzzerbox/#",
        "topic read homeassistant/#",
        "",
    ]
    for box in boxes:
        lines += [
            f"user {box}",
            f"topic readwrite buzzerbox/{box}/#",
            f"topic write homeassistant/+/buzzerbox_{box}/+/config",
            "",
        ]
    return "\n".join(lines)


def conf(folder: Path, port: int = 1883, listen: str = "") -> str:
    """mosquitto's config: the password file and the ACL in `folder`, no anonymous."""
    return (
        f"listener {port}{f' {listen}' if listen else ''}\n"
        "allow_anonymous false\n"
        f"password_file {folder / PASSWORDS}\n"
        f"acl_file {folder / ACL}\n"
        "persistence true\n"
        "max_queued_messages 100000\n"
        "message_size_limit 262144\n"
    )


def add_commands(sub: argparse._SubParsersAction[Any]) -> None:
    cmd = sub.add_parser(
        "mosquitto-config",
        help="a venue's mosquitto config: a login per box, each writing only its own topics",
    )
    cmd.add_argument("--boxes", nargs="+", required=True, metavar="NAME", help="the box names")
    cmd.add_argument("--dir", type=Path, required=True, help="where to write conf and ACL")
    cmd.add_argument("--port", type=int, default=1883)
    cmd.add_argument("--hub-user", default="hub", help="the hub's login (default: hub)")
    cmd.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        boxes = [check_box_name(b) for b in args.boxes]
    except BoxNameError as exc:
        print(f"buzzerbox mosquitto-config: {exc}", file=sys.stderr)
        return 2
    folder: Path = args.dir.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ACL).write_text(acl(boxes, args.hub_user), encoding="utf-8")
    (folder / CONF).write_text(conf(folder, args.port), encoding="utf-8")
    print(f"wrote {folder / CONF} and {folder / ACL}; now the logins:")
    print(f"  mosquitto_passwd -c {folder / PASSWORDS} {args.hub_user}")
    for box in [*boxes, "homeassistant"]:
        print(f"  mosquitto_passwd {folder / PASSWORDS} {box}")
    print(f"and in mosquitto.conf: include_dir {folder} (or mosquitto -c {folder / CONF})")
    return 0
