"""`buzzerbox serve`: the one place that wires the box. Data flows one way:

    pad sources (GPIO, pad boards, or the phones' virtual pads)
      -> PadFeed (pads/feed.py) -> Box (box/: rules, the event log in store/)
      -> listeners: the phones' live stream (web/views.py: a live/ Stream of the
         box's state), the MQTT publisher (mqtt/), the pad lights; the Flask app (web/)
         serves the pages and the API around them

This module builds them: the pad sources the config names (a pad map, or virtual
pads), the event log, the Box, the MQTT publisher, the pad feed (started once
nothing can fail before it), the Flask app and the waitress server; it closes the
server, the feed and the box when it ends.

    buzzerbox serve [--config FILE] [--host H] [--port P] [--data DIR] [--pin PIN]
                    [--open-pads] [--wifi-ssid S --wifi-password P] [--max-phones N]
                    [--fanout-threads K]

With no config and no hardware it starts a simulated box (virtual pads on the phones).
It prints the addresses to open and the admin PIN (kept in the data folder: a restart
keeps it; --pin or the config's `pin` change it), as it keeps the admin sessions and
the seats phones took (phones.json). It locks the data folder (one box
per folder), checks the log and repairs what can be rebuilt (store/check.py) before
anything else. The config file is TOML with the
same keys as the options (host, port, data, pin, open_pads, wifi_ssid, wifi_password,
max_phones, fanout_threads, countdown_s, phone_offline_s: how long a seat's phone is
unheard before the table view shows it offline), options given on the command line win; and a
`[pads]` table (see pads/feed.py) for a box with real pads: GPIO and pad boards.
"""

from __future__ import annotations

import argparse
import logging
import os
import resource
import shutil
import signal
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from buzzerbox.errors import BuzzerboxError, ConfigError
from buzzerbox.mqtt.settings import SERVE_DEFAULTS, SERVE_TYPES, add_serve_options
from buzzerbox.options import ALL_ADDRESSES, add_server_options

if TYPE_CHECKING:
    from buzzerbox.box import Box
    from buzzerbox.datadir import DataLock
    from buzzerbox.pads.feed import PadFeed
    from buzzerbox.server.reach import Reach
    from buzzerbox.store.eventlog import EventLog

DEFAULTS: dict[str, Any] = {
    "host": ALL_ADDRESSES,
    "port": 8000,
    "data": None,
    "pin": None,
    "open_pads": False,
    "wifi_ssid": None,
    "wifi_password": None,
    "max_phones": 1000,
    "fanout_threads": 1,
    "countdown_s": 3.0,
    "phone_offline_s": 10.0,
    "name": None,  # the box's host and mDNS name: `buzzerbox box` and install.sh read it
    **SERVE_DEFAULTS,  # mqtt, box_name, mqtt_ca, mqtt_password, ... (buzzerbox.mqtt)
}

#: the types each config key takes (the command line's are checked by argparse)
TYPES: dict[str, tuple[type, ...]] = {
    "host": (str,),
    "port": (int,),
    "data": (str,),
    "pin": (str, int),
    "open_pads": (bool,),
    "wifi_ssid": (str,),
    "wifi_password": (str,),
    "max_phones": (int,),
    "fanout_threads": (int,),
    "countdown_s": (int, float),
    "phone_offline_s": (int, float),
    "name": (str,),
    **SERVE_TYPES,
}


def add_commands(sub: argparse._SubParsersAction[Any]) -> None:
    """Add this area's sub-commands to the `buzzerbox` parser."""
    serve = sub.add_parser(
        "serve",
        help="run the box: the log, the live scoreboard, the phones' API",
        description="Run the box. Without --config and hardware: a simulated box.",
    )
    serve.add_argument("--config", type=Path, help="a TOML file (see the docs)")
    add_server_options(
        serve,
        port=DEFAULTS["port"],
        data="folder for the log (default: user data dir)",
        with_defaults=False,  # the config file's come between
    )
    serve.add_argument(
        "--open-pads",
        action="store_const",
        const=True,
        help="let anyone at the table press the virtual pads (default: the admin only)",
    )
    serve.add_argument("--wifi-ssid", help="the table's Wi-Fi, for its QR code")
    serve.add_argument("--wifi-password", help="the Wi-Fi's password, for its QR code")
    serve.add_argument("--max-phones", type=int, help="live streams served at once (1000)")
    serve.add_argument(
        "--fanout-threads",
        type=int,
        help="threads writing the live streams (default 1: tests/bench/README.md, Which Pi)",
    )
    add_serve_options(serve)
    serve.set_defaults(func=run_serve)


def settings(args: argparse.Namespace) -> dict[str, Any]:
    """DEFAULTS, then the config file, then the command line."""
    out = dict(DEFAULTS)
    if args.config is not None:
        with open(args.config, "rb") as f:
            try:
                loaded = tomllib.load(f)
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"{args.config}: not valid TOML: {exc}") from None
        unknown = sorted(set(loaded) - set(DEFAULTS) - {"pads"})
        if unknown:
            raise ConfigError(f"{args.config}: unknown keys {', '.join(unknown)}")
        for key, value in loaded.items():
            kinds = TYPES.get(key)
            if kinds is not None and type(value) not in kinds:
                names = " or ".join(k.__name__ for k in kinds)
                raise ConfigError(f"{args.config}: {key} {value!r} is not allowed: it is a {names}")
        out.update(loaded)
    for key in DEFAULTS:
        value = getattr(args, key, None)
        if value is not None:
            out[key] = value
    return out


def run_serve(args: argparse.Namespace) -> int:
    # imported here, not at the top: `buzzerbox --help` and the other commands need none
    from buzzerbox.box import Box
    from buzzerbox.box.phones import PhoneSeats
    from buzzerbox.box.presence import PresenceWatch
    from buzzerbox.datadir import DataLock, admin_pin, data_dir, secret_key, spill_dir
    from buzzerbox.live.fanout import FAST, SLOW_LOOP, check_threads
    from buzzerbox.mqtt.settings import attach_serve  # paho only once a broker is named
    from buzzerbox.pads.virtual import VirtualPads
    from buzzerbox.server.auth import new_pin, pin_warning
    from buzzerbox.server.guard import Guard
    from buzzerbox.server.listen import ACCEPT_LIMIT, RESERVE_THREADS, bind, make_server
    from buzzerbox.server.reach import Reach
    from buzzerbox.server.sessions import Sessions
    from buzzerbox.server.streams import BEYOND
    from buzzerbox.store.check import ensure_healthy
    from buzzerbox.store.eventlog import EventLog
    from buzzerbox.web import create_app
    from buzzerbox.web.stream import PATH
    from buzzerbox.web.views import phone_views

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    feed: PadFeed | None = None
    lock: DataLock | None = None
    try:
        cfg = settings(args)
        check_threads(int(cfg["fanout_threads"]))
        os.umask(os.umask(0o077) | 0o077)  # the folder, the PIN, the databases: the box's own
        folder = data_dir(cfg["data"])
        lock = DataLock(folder)
        pin, _ = admin_pin(folder, cfg["pin"], new_pin)
        sessions = Sessions(folder / "sessions.db")
        health = ensure_healthy(folder / "buzzerbox.db")
        for line in [] if health.is_healthy else health.lines():
            print(f"buzzerbox serve: {line}", file=sys.stderr, flush=True)
        pads = cfg.get("pads")
        pad_map, sources = (None, None)
        if pads is not None:
            from buzzerbox.pads.feed import PadFeed, open_sources  # pyserial: real pads only

            base = args.config.parent if args.config else Path.cwd()
            pad_map, sources = open_sources(pads, base)
        log_ = EventLog(folder / "buzzerbox.db", sync="behind")  # store/behind.py
        box = Box(
            log_,
            countdown_us=int(float(cfg["countdown_s"]) * 1_000_000),
            pads=pad_map if pad_map is not None else VirtualPads(),
            phones=(phones := PhoneSeats(folder / "phones.json")),
        )
        say_unsaved(box, log_)
        if phones.problem:
            print(f"buzzerbox serve: {phones.problem.english()}", file=sys.stderr, flush=True)
        if not float(cfg["phone_offline_s"]) > 0:
            raise ConfigError(
                f"phone_offline_s {cfg['phone_offline_s']!r} is not allowed: it is seconds, above 0"
            )
        presence = PresenceWatch(box, int(float(cfg["phone_offline_s"]) * 1_000_000))
        attach_serve(box, cfg, folder, args.config.parent if args.config else None)
        if sources is not None:
            feed = PadFeed(sources, box)
            feed.start()
    except (OSError, ValueError, tomllib.TOMLDecodeError, BuzzerboxError) as exc:
        print(f"buzzerbox serve: {exc}", file=sys.stderr)
        if lock is not None:
            lock.release()
        return 2
    assert lock is not None
    spill = spill_dir(folder)
    if spill is not None:  # the server's temporary files never fill the log's disk
        tempfile.tempdir = str(spill)
    max_phones = int(cfg["max_phones"])
    try:
        sock = bind(str(cfg["host"]), int(cfg["port"]))
    except OSError as exc:
        print(
            f"buzzerbox serve: cannot listen on {cfg['host']}:{cfg['port']}: {exc}", file=sys.stderr
        )
        close(feed, box)
        lock.release()
        return 2
    reach = Reach(str(cfg["host"]), int(sock.getsockname()[1]), names=mdns_urls(args))
    guard = Guard()
    app_config = {
        "SECRET_KEY": secret_key(folder),
        "ADMIN_PIN": pin,
        "SESSIONS": sessions,
        "REACH": reach,
        "OPEN_PADS": bool(cfg["open_pads"]),
        "WIFI_SSID": cfg["wifi_ssid"],
        "WIFI_PASSWORD": cfg["wifi_password"],
        "SSE_MAX_CLIENTS": max_phones,
        "SSE_FANOUT": True,
        "SSE_FANOUT_THREADS": int(cfg["fanout_threads"]),
        "GUARD": guard,
    }
    # the phones' view of the box and its live stream (web/views.py), subscribed to the
    # box here; the app registers its blueprints around them
    views = phone_views(box, app_config)
    app = create_app(box, app_config, views)
    presence.start()
    # wifi that comes up after the start (or a new lease): the console and every page
    unfollow = reach.follow(lambda urls: say_reach(box, reach, urls))
    # server/listen.py: the connections accepted, and the fanout's copy of each phone's
    raise_file_limit(max(2 * max_phones, ACCEPT_LIMIT) + max_phones + 256)
    # the admin's and the members' streams, and those leaving, take threads too
    viewers = app.extensions["buzzerbox"]["viewers"]  # their streams on the loop
    server = make_server(
        app,
        sock,
        max_phones,
        reserve=RESERVE_THREADS + BEYOND,
        guard=guard,
        on_loop=(PATH, viewers.on_loop),
    )
    signal.signal(signal.SIGTERM, on_sigterm)
    mode = (
        "simulated box (virtual pads)"
        if box.is_simulated
        else f"{len(pad_map.pads) if pad_map else 0} pads"
    )
    try:  # a signal from here on ends in the same tidy close
        print(f"buzzerbox: {mode}; log {folder / 'buzzerbox.db'}", flush=True)
        for line in reach.console_lines():  # the addresses phones open, or why none can
            print(f"buzzerbox: {line}", flush=True)
        print(f"buzzerbox: admin PIN {pin}", flush=True)
        if warning := pin_warning(pin):
            print(f"buzzerbox serve: note: {warning}", file=sys.stderr, flush=True)
        if not FAST:
            print(f"buzzerbox serve: note: {SLOW_LOOP}", file=sys.stderr, flush=True)
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        unfollow()
        presence.stop()
        server.close()
        if (fanout := app.extensions["buzzerbox"]["fanout"]) is not None:
            fanout.close()  # the phones' streams end: they come back to the next box
        close(feed, box)
        lock.release()
        if spill is not None:
            shutil.rmtree(spill, ignore_errors=True)
    return 0


def mdns_urls(args: argparse.Namespace) -> tuple[str, ...]:
    """The box's URL by its mDNS name, when `buzzerbox box` advertises one."""
    advertised = getattr(args, "advertised_url", None)
    return (advertised,) if advertised else ()


def say_reach(box: Box, reach: Reach, urls: list[str]) -> None:
    """The box's addresses changed: said on the console, and sent to every page (the
    state's box.urls: their codes and links follow)."""
    for line in reach.console_lines():
        print(f"buzzerbox: {line}", flush=True)
    box.report("urls", urls)


def say_unsaved(box: Box, log_: EventLog) -> None:
    """Put what the log showed before its fsync returned in the state (`box.unsaved`)."""
    log_.when_saved.append(lambda: box.report("unsaved", log_.unsaved))


def close(feed: PadFeed | None, box: Box) -> None:
    if feed is not None:
        feed.close()
    box.close()


def on_sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # the same tidy end as Ctrl-C


def raise_file_limit(wanted: int) -> None:
    """Every phone's stream is an open socket: lift the soft limit (1024 on Pi OS)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        top = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))


def main(argv: list[str] | None = None) -> int:
    """`python -m buzzerbox.serve serve ...`: this area alone, without the others."""
    parser = argparse.ArgumentParser(prog="buzzerbox")
    add_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
