"""`buzzerbox box`: the appliance's one process: `buzzerbox serve` (serve.py).

It takes every option of `buzzerbox serve` (reused as is) plus its own: advertise
the scoreboard by mDNS as `NAME.local`, print the URL and its QR code on the console
(the Pi's screen, if one is plugged in, and the journal), then run `serve` in this
process. The advertisement follows the box's addresses (wifi that comes up after
boot) and is withdrawn when serve returns.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
from collections.abc import Callable
from typing import Any, Protocol

from buzzerbox.appliance import mdns
from buzzerbox.appliance.errors import MdnsError
from buzzerbox.errors import BuzzerboxError
from buzzerbox.serve import run_serve, settings

log = logging.getLogger(__name__)

#: how often the box looks again at its network addresses, in s
WATCH_S = 15.0


class Advertisement(Protocol):
    """What `run_box` needs of `mdns.Advertiser`."""

    @property
    def announcement(self) -> mdns.Announcement: ...

    def start(self) -> mdns.Announcement: ...

    def refresh(self, addresses: tuple[str, ...]) -> bool: ...

    def stop(self) -> None: ...


def add_box_command(sub: argparse._SubParsersAction[Any]) -> None:
    """`box`: every option of `serve` plus mDNS ones."""
    parents = [sub.choices["serve"]]  # added first: cli.AREAS lists serve before appliance
    box = sub.add_parser(
        "box",
        parents=parents,
        conflict_handler="resolve",
        help="run the appliance: serve, advertised as buzzerbox.local, URL and QR on the console",
        description=(
            "Run the box as the appliance does (the systemd unit runs this): advertise "
            "the scoreboard by mDNS, print its URL and QR code, then serve. Takes every "
            "option of `buzzerbox serve`."
        ),
    )
    box.add_argument(
        "--name",
        help="mDNS name: phones open http://NAME.local/ (default: the config's `name`, "
        "else buzzerbox; NAME-2 ... when another box has it)",
    )
    box.add_argument("--no-mdns", action="store_true", help="do not advertise the box")
    box.set_defaults(func=run_box)


def serve_port(args: argparse.Namespace) -> int:
    """The port serve will listen on: its defaults, its config file, its options."""
    return int(settings(args)["port"])


def box_name(args: argparse.Namespace) -> str:
    """The mDNS name: --name, else the config file's `name` (install.sh --name writes
    it), else buzzerbox. MdnsError if it is no DNS label."""
    name = str(settings(args)["name"] or mdns.DEFAULT_NAME)
    if not mdns.valid_name(name):
        raise MdnsError(
            f"the name {name!r} is not allowed: a host name is 1-63 of a-z, 0-9 and -, "
            "not starting or ending with - (e.g. table-07)"
        )
    return name


def run_box(
    args: argparse.Namespace,
    *,
    serve: Callable[[argparse.Namespace], int] | None = None,
    advertiser: Callable[[mdns.Announcement], Advertisement] = mdns.Advertiser,
    addresses: Callable[[], tuple[str, ...]] = mdns.local_addresses,
) -> int:
    """Advertise, print the banner, serve; withdraw the advertisement when serve ends."""
    serve = serve or run_serve
    try:
        name = box_name(args)
    except MdnsError as exc:
        print(f"buzzerbox box: {exc}", file=sys.stderr, flush=True)
        return 2
    except (OSError, ValueError, BuzzerboxError) as exc:
        log.debug("no name: %s", exc)  # serve reads the same settings and says why
        return serve(args)
    try:
        port = serve_port(args)
        ann = mdns.Announcement(name, port, addresses())
    except (OSError, ValueError, BuzzerboxError) as exc:
        # serve reads the same settings and says what is wrong with them
        log.debug("no announcement: %s", exc)
        return serve(args)
    if args.no_mdns:
        print(mdns.banner(ann, advertised=False), flush=True)
        return serve(args)
    adv = advertiser(ann)
    try:
        ann = adv.start()
    except (OSError, BuzzerboxError) as exc:
        print(f"buzzerbox box: not advertised by mDNS: {exc}", file=sys.stderr, flush=True)
        print(mdns.banner(ann, advertised=False), flush=True)
        return serve(args)
    print(mdns.banner(ann), flush=True)
    args.advertised_url = ann.url  # serve lists it with the addresses (its pages' links)
    stop = threading.Event()
    watcher = threading.Thread(
        target=_watch, args=(adv, addresses, stop), name="mdns-watch", daemon=True
    )
    watcher.start()
    try:
        return serve(args)
    finally:
        stop.set()
        watcher.join(timeout=2)
        adv.stop()


def _watch(
    adv: Advertisement, addresses: Callable[[], tuple[str, ...]], stop: threading.Event
) -> None:
    while not stop.wait(WATCH_S):
        try:
            if adv.refresh(addresses()):
                print(mdns.banner(adv.announcement), flush=True)
        except Exception:  # the box goes on serving without a fresh advertisement
            log.exception("mDNS refresh failed")
