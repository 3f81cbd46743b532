"""The event's hub: one leaderboard page for every table, from the broker.

    buzzerbox hub --broker mqtt://broker.local [--host H --port P]

- board.py       the fold of the boxes' messages: tables, tournament, photo finishes
- web/sse.py     Live: Server-Sent Events from the board to every screen
- subscriber.py  the hub's MQTT client
- commands.py    `buzzerbox hub --broker URL`: subscribe, serve, print the address
- app.py         create_app: GET / (the page, for a TV or a phone), GET /api/board
                 (JSON), GET /api/events (the live stream), /hub-assets/* (its JS, CSS)

Everything is served by the hub itself (a venue may be offline): no CDN, no build
step. Nothing lives in request globals: the app is built around its board and live
stream. Config keys (optional): SSE_KEEPALIVE_S, SSE_MAX_STREAM_S, SSE_RETRY_MS, GUARD
(the server's web.guard.Guard: the per-address stream slots).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from buzzerbox import lazy

if TYPE_CHECKING:
    from buzzerbox.hub.app import create_app
    from buzzerbox.hub.board import Board
    from buzzerbox.web.sse import Live

#: what the package gives, loaded when first asked for (`buzzerbox --help` loads no Flask)
LAZY = {
    "create_app": "buzzerbox.hub.app",
    "Board": "buzzerbox.hub.board",
    "Live": "buzzerbox.web.sse",
}


__getattr__ = lazy.attributes(__name__, LAZY)


__all__ = ["Board", "Live", "create_app"]
