"""`buzzerbox hub`: the event's leaderboard, from every box on the broker.

    buzzerbox hub --broker URL [--host H] [--port P] [--name NAME] [--max-screens N]
                  [--data DIR] [--pin PIN] [--forget-after MIN]
                  [--ca FILE --cert FILE --key FILE]

Subscribes to the broker (a persistent session named after --name, so two hubs on
one broker need two names), serves the leaderboard page for a TV or phones and
prints the address to open and the admin PIN (kept in --data if given): the admin
may remove an offline table from the page. The boxes publish with `buzzerbox serve
--mqtt URL`.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from buzzerbox.mqtt.errors import BoxNameError, BrokerUrlError
from buzzerbox.mqtt.settings import add_tls_options, hub_broker
from buzzerbox.mqtt.topics import check_box_name
from buzzerbox.options import add_server_options

#: threads beyond the live streams, for the page, its assets and /api/board
RESERVE_THREADS = 8


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
    hub.set_defaults(func=run_hub)


def run_hub(args: argparse.Namespace) -> int:
    from buzzerbox.datadir import admin_pin
    from buzzerbox.hub.app import create_app  # here: the other commands load no Flask
    from buzzerbox.hub.board import Board
    from buzzerbox.hub.record import RECORD_FILE, Keeper
    from buzzerbox.hub.subscriber import Subscriber
    from buzzerbox.live.sse import Live
    from buzzerbox.server.auth import new_pin
    from buzzerbox.server.guard import Guard
    from buzzerbox.server.listen import bind, make_server, urls

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
    board = Board(forget_after_s=args.forget_after * 60)
    live = Live(board.snapshot, max_clients=args.max_screens)
    if args.data is not None:
        args.data.mkdir(parents=True, exist_ok=True)
        pin, _ = admin_pin(args.data, args.pin, new_pin)
    else:
        pin = "".join((args.pin or new_pin()).split())
    keeper = Keeper(board, args.data / RECORD_FILE if args.data else None, live.publish).start()
    subscriber = Subscriber(broker, board, live.publish, name=name).start()
    guard = Guard()
    app = create_app(board, live, {"GUARD": guard, "ADMIN_PIN": pin})
    server = make_server(
        app, sock, args.max_screens, reserve=RESERVE_THREADS, ident="buzzerbox-hub", guard=guard
    )
    print(f"buzzerbox hub: broker {broker.url}", flush=True)
    print(f"buzzerbox hub: admin PIN {pin} (to remove an offline table)", flush=True)
    for address in urls(args.host, int(sock.getsockname()[1])):
        print(f"buzzerbox hub: open {address}", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        subscriber.close()
        keeper.close()
    return 0
