"""The appliance's commands: install, box, url, doctor, hardware.

buzzerbox install [--dry-run] [install.sh options]   the Pi boots into the box
buzzerbox box [serve options] [--name N] [--no-mdns]  what the systemd unit runs
buzzerbox url [--port P] [--name N]                   the scoreboard's URL and QR code
buzzerbox doctor [--pads MAP] [--board URL] [--pad-test S]   is the hardware right?
buzzerbox hardware diagram|schematic|table|check MAP  wiring docs from the pad map
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from buzzerbox.appliance import mdns
from buzzerbox.appliance.errors import MdnsError
from buzzerbox.appliance.run import add_box_command


def add_commands(sub: argparse._SubParsersAction[Any]) -> None:
    """Add this area's sub-commands to the `buzzerbox` parser."""
    _add_install(sub)
    add_box_command(sub)
    _add_url(sub)
    from buzzerbox.appliance.doctor import add_doctor_command
    from buzzerbox.appliance.hardware import add_hardware_command

    add_doctor_command(sub)
    add_hardware_command(sub)


def _add_install(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "install",
        help="install the box on this Pi: venv, user, systemd unit, started at boot",
        description=(
            "Install the appliance on Raspberry Pi OS (Bookworm): runs the packaged "
            "install.sh as root. With --dry-run it prints every command and changes nothing."
        ),
    )
    p.add_argument("--dry-run", action="store_true", help="print the commands, run none")
    p.add_argument("--pads", metavar="MAP", help="pad map to install (TOML)")
    p.add_argument("--port", type=int, help="scoreboard port (default 80)")
    p.add_argument("--name", help="mDNS name (default buzzerbox)")
    p.add_argument("--source", help="what pip installs (default: what this box came from)")
    p.add_argument("--prefix", help="where the venv goes (default /opt/buzzerbox)")
    p.add_argument("--bin", help="where the buzzerbox command is linked (default /usr/local/bin)")
    p.add_argument("--root", help="a trial install under this folder (no root needed)")
    p.add_argument("--user", help="the box's system user (default buzzerbox)")
    p.add_argument("--no-start", action="store_true", help="do not start the box now")
    p.add_argument("--no-apt", action="store_true", help="install no Debian packages")
    p.add_argument("--force", action="store_true", help="install on a machine that is not a Pi")
    p.set_defaults(func=_run_install)


def install_options(args: argparse.Namespace) -> list[str]:
    """The install.sh options for the parsed `buzzerbox install` arguments."""
    out: list[str] = []
    for key in ("pads", "port", "name", "source", "prefix", "bin", "root", "user"):
        value = getattr(args, key)
        if value is not None:
            out += [f"--{key}", str(value)]
    for key in ("dry_run", "no_start", "no_apt", "force"):
        if getattr(args, key):
            out.append("--" + key.replace("_", "-"))
    return out


def _run_install(args: argparse.Namespace) -> int:
    from buzzerbox.appliance.installer import run_install

    return run_install(install_options(args))


def _add_url(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "url",
        help="print the scoreboard's URL and its QR code",
        description="Print the URL phones open (http://NAME.local/), its QR code and addresses.",
    )
    p.add_argument("--port", type=int, default=80, help="the scoreboard's port (default 80)")
    p.add_argument("--name", default=mdns.DEFAULT_NAME, help="mDNS name (default buzzerbox)")
    p.set_defaults(func=_run_url)


def _run_url(args: argparse.Namespace) -> int:
    try:
        ann = mdns.Announcement(args.name, args.port, mdns.local_addresses())
    except MdnsError as exc:
        print(f"buzzerbox url: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(mdns.banner(ann))
    return 0
