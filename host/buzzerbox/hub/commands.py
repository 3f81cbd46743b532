"""`buzzerbox hub`: the event's leaderboard, from every box on the broker.

    buzzerbox hub --broker URL [--host H] [--port P] [--name NAME] [--max-screens N]
                  [--data DIR] [--forget-after MIN] [--ca FILE --cert FILE --key FILE]

Subscribes to the broker (a persistent session named after --name, so two hubs on
one broker need two names), serves the leaderboard page for a TV or phones and
prints the address to open. The boxes publish with `buzzerbox serve --mqtt URL`.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from buzzerbox.hub import create_app
from buzzerbox.hub.board import Board
from buzzerbox.hub.record import RECORD_FILE, Keeper
from buzzerbox.hub.subscriber import Subscriber
from buzzerbox.mqtt.settings import add_tls_options, hub_broker
from buzzerbox.mqtt.topics import BoxNameError, BrokerUrlError, check_box_name
from buzzerbox.web.guard import Guard
from buzzerbox.web.server import bind, make_server, urls
from buzzerbox.web.sse import Live

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
    hub.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all)")
    hub.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    hub.add_argument("--name", default="hub", help="this hub's session name (default: hub)")
    hub.add_argument(
        "--max-screens", type=int, default=100, help="live pages served at once (default 100)"
    )
    hub.add_argument("--data", type=Path, help="folder for the hub's own record (hub.json)")
    hub.add_argument(
        "--forget-after", type=float, default=60.0, help="minutes offline before a table drops off"
    )
    add_tls_options(hub, prefix="--")
    hub.set_defaults(func=run_hub)


def run_hub(args: argparse.Namespace) -> int:
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
    keeper = Keeper(board, args.data / RECORD_FILE if args.data else None, live.publish).start()
    subscriber = Subscriber(broker, board, live.publish, name=name).start()
    guard = Guard()
    app = create_app(board, live, {"GUARD": guard})
    server = make_server(
        app, sock, args.max_screens, reserve=RESERVE_THREADS, ident="buzzerbox-hub", guard=guard
    )
    print(f"buzzerbox hub: broker {broker.url}", flush=True)
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
