"""`buzzerbox hub`: the event's leaderboard, from every box on the broker.

    buzzerbox hub --broker URL [--host H] [--port P] [--name NAME] [--max-screens N]
                  [--data DIR] [--pin PIN] [--forget-after MIN]
                  [--ca FILE --cert FILE --key FILE] [--secret-file FILE]
                  [--insecure-open-broker]

Subscribes to the broker (a persistent session named after --name, so two hubs on
one broker need two names), serves the leaderboard page for a TV or phones and
prints the address to open and the admin PIN (kept in --data if given): the admin
may remove a table from the page. It shows only messages signed with the event's
key (mqtt/sign.py): --secret-file, BUZZERBOX_MQTT_SECRET, or the one it keeps in
--data (made and printed at the first start, for the boxes); --insecure-open-broker
shows unsigned ones too. One hub a --data folder (a lock, as the box's). The boxes
publish with `buzzerbox serve --mqtt URL --mqtt-secret-file FILE`.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import TYPE_CHECKING, Any

from buzzerbox.errors import BuzzerboxError
from buzzerbox.mqtt.errors import BoxNameError, BrokerUrlError
from buzzerbox.mqtt.settings import add_tls_options, hub_broker
from buzzerbox.mqtt.topics import check_box_name
from buzzerbox.options import add_server_options

if TYPE_CHECKING:
    from buzzerbox.mqtt.sign import Signer

#: threads beyond the live streams, for the page, its assets and /api/board
RESERVE_THREADS = 8
#: the hub's signing key in --data
SECRET_FILE = "mqtt_secret"


def add_commands(sub: argparse._SubParsersAction[Any]) -> None:
    """Add this area's sub-commands to the `buzzerbox` parser."""
    hub = sub.add_parser(
        "hub",
        help="the event's leaderboard: every table on an MQTT broker, live",
        description="Serve one leaderboard for every box publishing to the broker.",
    )
    hub.add_argument("--broker", required=True, help="the broker: mqtt://host[:port]")
    add_server_options(
        hub,
        port=8080,
        data="folder for the hub's own record (hub.json) and its admin PIN",
        with_defaults=True,
    )
    hub.add_argument("--name", default="hub", help="this hub's session name (default: hub)")
    hub.add_argument(
        "--max-screens", type=int, default=100, help="live pages served at once (default 100)"
    )
    hub.add_argument(
        "--forget-after", type=float, default=60.0, help="minutes offline before a table drops off"
    )
    add_tls_options(hub, prefix="--")
    hub.add_argument(
        "--secret-file",
        metavar="FILE",
        help="the event's signing key, shared with the boxes (--mqtt-secret-file): the hub "
        "shows only what it signed; default: BUZZERBOX_MQTT_SECRET, else the one kept in "
        "--data (made and printed at the first start)",
    )
    hub.add_argument(
        "--insecure-open-broker",
        action="store_true",
        help="show unsigned messages too (boxes without a key): anyone on the broker may "
        "then forge or withdraw results",
    )
    hub.set_defaults(func=run_hub)


def hub_signer(args: argparse.Namespace) -> tuple[Signer | None, str | None]:
    """The hub's key: --secret-file, the environment's, the one kept in --data, or a
    new one (kept in --data if given). Returns (signer, the key to print if new)."""
    from buzzerbox.durable import write_atomic
    from buzzerbox.mqtt import sign

    if args.insecure_open_broker:
        return None, None
    if args.secret_file is not None:
        return sign.Signer(sign.read_key_file(args.secret_file)), None
    if (key := sign.key_from_env()) is not None:
        return sign.Signer(key), None
    kept = args.data / SECRET_FILE if args.data is not None else None
    if kept is not None and kept.exists():
        return sign.Signer(sign.read_key_file(kept)), None
    made = sign.new_key()
    if kept is not None:
        write_atomic(kept, made.encode())
    return sign.Signer(made.encode()), made


def client_id(args: argparse.Namespace, name: str) -> str:
    """The hub's client id: its name and a random suffix (a stranger reusing a known
    id would throw the hub off the broker), kept in --data so the broker's session
    (the events queued while the hub restarts) is found again."""
    import secrets

    from buzzerbox.durable import write_atomic

    path = args.data / f"client_id-{name}" if args.data is not None else None
    if path is not None and path.exists():
        kept = path.read_text(encoding="ascii", errors="replace").strip()
        if kept.startswith(f"buzzerbox-hub-{name}-"):
            return str(kept)
    made = f"buzzerbox-hub-{name}-{secrets.token_hex(6)}"
    if path is not None:
        write_atomic(path, made.encode())
    return made


def run_hub(args: argparse.Namespace) -> int:
    from buzzerbox.datadir import DataLock, admin_pin
    from buzzerbox.errors import DataFolderBusyError
    from buzzerbox.hub.app import create_app  # here: the other commands load no Flask
    from buzzerbox.hub.leaderboard import Leaderboard
    from buzzerbox.hub.record import RECORD_FILE, Keeper
    from buzzerbox.hub.subscriber import Subscriber
    from buzzerbox.live.updates import UpdatesView
    from buzzerbox.server.auth import new_pin
    from buzzerbox.server.guard import Guard
    from buzzerbox.server.listen import bind, make_server
    from buzzerbox.server.reach import Reach
    from buzzerbox.server.streams import BEYOND

    try:
        broker = hub_broker(args)
        name = check_box_name(args.name)
        sock = bind(args.host, args.port)
    except (BrokerUrlError, BoxNameError) as exc:
        print(f"buzzerbox hub: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"buzzerbox hub: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    lock = None
    try:
        if args.data is not None:
            args.data.mkdir(mode=0o700, parents=True, exist_ok=True)  # as a box's (datadir.py)
            lock = DataLock(args.data)  # one hub a folder, as one box (datadir.py)
            pin, _ = admin_pin(args.data, args.pin, new_pin)
        else:
            pin = "".join((args.pin or new_pin()).split())
        signer, made = hub_signer(args)
        ident = client_id(args, name)
    except (OSError, BuzzerboxError) as exc:
        sock.close()
        print(f"buzzerbox hub: {exc}", file=sys.stderr)
        return 2 if not isinstance(exc, DataFolderBusyError) else 3
    board = Leaderboard(forget_after_s=args.forget_after * 60, signer=signer)
    live = UpdatesView(board.snapshot, max_clients=args.max_screens)
    keeper = Keeper(board, args.data / RECORD_FILE if args.data else None, live.publish).start()
    live.snapshot = keeper.shown  # new pages get the board as saved
    subscriber = Subscriber(
        broker, board, live.publish, name=name, client_id=ident, commit=keeper.commit
    ).start()
    guard = Guard()
    app = create_app(board, live, {"GUARD": guard, "ADMIN_PIN": pin, "COMMIT": keeper.commit})
    server = make_server(
        app,
        sock,
        args.max_screens,
        reserve=RESERVE_THREADS + BEYOND,  # the admin's streams, those leaving: threads too
        ident="buzzerbox-hub",
        guard=guard,
    )
    print(f"buzzerbox hub: broker {broker.url}", flush=True)
    if signer is None:
        print("buzzerbox hub: INSECURE: unsigned messages are shown (--insecure-open-broker)")
    elif made is not None:
        print(
            f"buzzerbox hub: signing key {made} (new{', kept in --data' if args.data else ''}): "
            "give it to every box (a file holding it: serve --mqtt-secret-file FILE, or "
            "mqtt_secret in its config); the hub shows only what it signed",
            flush=True,
        )
    print(f"buzzerbox hub: admin PIN {pin} (to remove an offline table)", flush=True)
    for line in Reach(args.host, int(sock.getsockname()[1])).console_lines():
        print(f"buzzerbox hub: {line}", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        subscriber.close()
        keeper.close()
        if lock is not None:
            lock.release()
    return 0
