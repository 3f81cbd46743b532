"""The event's hub: one leaderboard page for every table, from the broker.

    buzzerbox hub --broker mqtt://broker.local [--host H --port P]

- board.py       the fold of the boxes' messages: tables, tournament, photo finishes
- web/sse.py     Live: Server-Sent Events from the board to every screen
- subscriber.py  the hub's MQTT client
- commands.py    `buzzerbox hub --broker URL`: subscribe, serve, print the address
- create_app     GET / (the page, for a TV or a phone), GET /api/board (JSON),
                 GET /api/events (the live stream), /hub-assets/* (its JS and CSS)

Everything is served by the hub itself (a venue may be offline): no CDN, no build
step. Nothing lives in request globals: the app is built around its board and live
stream. Config keys (optional): SSE_KEEPALIVE_S, SSE_MAX_STREAM_S, SSE_RETRY_MS, GUARD
(the server's web.guard.Guard: the per-address stream slots).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Flask, Response, jsonify, render_template, request
from flask.typing import ResponseReturnValue

from buzzerbox.hub.board import Board
from buzzerbox.web.guard import Guard, Slotted
from buzzerbox.web.security import security_headers
from buzzerbox.web.sse import Live, Stream

DEFAULTS: dict[str, Any] = {
    "SSE_KEEPALIVE_S": 15.0,
    "SSE_MAX_STREAM_S": 600.0,
    "SSE_RETRY_MS": 2000,
}


def create_app(board: Board, live: Live, config: Mapping[str, Any] | None = None) -> Flask:
    app = Flask(__name__)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.config.update(DEFAULTS)
    app.config.update(config or {})
    cfg = app.config
    guard: Guard = cfg.get("GUARD") or Guard()
    bp = Blueprint(
        "hub",
        __name__,
        template_folder="templates",
        static_folder="static",
        static_url_path="/hub-assets",
    )

    @bp.get("/")
    def page() -> str:
        return render_template("hub.html")

    @bp.get("/api/board")
    def snapshot() -> ResponseReturnValue:
        return jsonify(board.snapshot())

    @bp.get("/api/events")
    def events() -> ResponseReturnValue:
        address = request.remote_addr or "?"
        if not guard.take_stream(address):
            return busy(429, "this address already has its share of live pages: close some")
        if not live.join():
            guard.give_stream(address)
            return busy(503, "the hub serves as many screens as it can: try again soon")
        frames = live.stream(
            keepalive_s=float(cfg["SSE_KEEPALIVE_S"]),
            max_stream_s=float(cfg["SSE_MAX_STREAM_S"]),
            retry_ms=int(cfg["SSE_RETRY_MS"]),
        )
        return Response(
            Stream(live, Slotted(frames, lambda: guard.give_stream(address))),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    bp.after_app_request(security_headers("'none'"))
    app.register_blueprint(bp)
    app.extensions["buzzerbox-hub"] = {"board": board, "live": live}
    return app


def busy(status: int, message: str) -> Response:
    response = jsonify(error=message)
    response.status_code = status
    response.headers["Retry-After"] = "5"
    return response


__all__ = ["Board", "Live", "create_app"]
