"""The hub's web app: `create_app(board, live)`: GET / (the page, for a TV or a phone),
GET /api/board (JSON), GET /api/events (the live stream, with a keepalive every
SSE_KEEPALIVE_S: the page says "reconnecting to the hub…" after two missed),
/hub-assets/* (its JS and CSS, and the box's own watchdog of those keepalives,
web/static/keepalive.js, served from here: the page's CSP takes scripts from the hub
only), and the hub's admin: POST /api/login, /api/logout, GET /api/session (the box's
own admin session, server/auth.py: the PIN the hub prints at start, a session cookie,
CSRF tokens, rate-limited tries) and DELETE /api/tables/<box> (a table off the
board), DELETE /api/results/<box>/<game_id> (a game's result out of the tournament),
GET /api/screens/pair (the link that makes a venue's screen a member: screens.py).
Everything is served by the hub itself (a venue may be offline): no CDN,
no build step. Nothing lives in request globals: the app is built around its board
and live stream. Config keys (optional): ADMIN_PIN (random if not given), SECRET_KEY,
SSE_KEEPALIVE_S, SSE_MAX_STREAM_S, SSE_RETRY_MS, LOGIN_LIMITER, GUARD, COMMIT (the server's
server.guard.Guard: the per-address stream slots).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    jsonify,
    render_template,
    request,
    send_from_directory,
)
from flask.typing import ResponseReturnValue

from buzzerbox.errors import Words
from buzzerbox.hub.errors import NotRemovableError
from buzzerbox.hub.leaderboard import Leaderboard, Update
from buzzerbox.hub.screens import screens_blueprint
from buzzerbox.live.sse import StreamBody, StreamSettings
from buzzerbox.live.updates import UpdatesView
from buzzerbox.server.auth import Auth, LoginLimiter, auth_blueprint, new_pin, refuse
from buzzerbox.server.guard import Guard, channel_of, is_lane
from buzzerbox.server.language import install_language
from buzzerbox.server.refusals import register_refusals
from buzzerbox.server.security import security_headers
from buzzerbox.server.streams import (
    ADMIN,
    SHARE_TAKEN,
    VIEWER,
    Place,
    Slotted,
    StreamPlaces,
    give_way_of,
)

#: the box's pages' static folder: the one watchdog of the keepalives, for both (a
#: folder of files beside this package: the hub imports nothing of the box's web/)
BOX_STATIC = Path(__file__).resolve().parent.parent / "web" / "static"

DEFAULTS: dict[str, Any] = {
    "SSE_KEEPALIVE_S": 2.0,  # the page says "reconnecting" after two missed
    "SSE_MAX_STREAM_S": 600.0,
    "SSE_RETRY_MS": 2000,
    "SESSION_COOKIE_SAMESITE": "Strict",
    "SESSION_COOKIE_HTTPONLY": True,
    "PERMANENT_SESSION_LIFETIME": timedelta(hours=12),
}


def create_app(
    board: Leaderboard, live: UpdatesView, config: Mapping[str, Any] | None = None
) -> Flask:
    app = Flask(__name__)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.config.update(DEFAULTS)
    app.config.update(config or {})
    cfg = app.config
    secret = cfg["SECRET_KEY"] = cfg.get("SECRET_KEY") or secrets.token_bytes(32)
    key = secret.encode() if isinstance(secret, str) else secret
    auth = Auth(
        str(cfg.get("ADMIN_PIN") or new_pin()),
        key,
        cfg.get("LOGIN_LIMITER") or LoginLimiter(),
        shown_on=Words("the hub's console"),
    )
    guard: Guard = cfg.get("GUARD") or Guard()
    # COMMIT (record.Keeper.commit): the admin's changes are saved before they are shown
    commit: Callable[[list[Update]], None] | None = cfg.get("COMMIT")

    def show(updates: list[Update]) -> None:
        (commit or live.publish)(updates)

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

    @bp.get("/hub-assets/keepalive.js")  # fixed paths: they win over the folder's route
    def keepalive_js() -> ResponseReturnValue:
        return send_from_directory(BOX_STATIC, "keepalive.js")

    @bp.get("/hub-assets/i18n.js")
    def i18n_js() -> ResponseReturnValue:
        return send_from_directory(BOX_STATIC, "i18n.js")

    @bp.get("/api/board")
    def snapshot() -> ResponseReturnValue:
        return jsonify(live.snapshot())

    places = StreamPlaces(live.stream.max_clients, guard.limits.streams_per_address)
    screens, screen = screens_blueprint(auth, key)  # the venue's screens: members

    @bp.get("/api/events")
    def events() -> ResponseReturnValue:
        # the admin's own places beyond --max-screens; a screen that does not read, or
        # one of the address holding the most, gives way to a new one (server/streams.py)
        way = give_way_of(channel_of(request.environ))
        who = ADMIN if auth.is_admin() else screen() or VIEWER
        place = places.enter(request.remote_addr or "?", who, live.stream.join, *way)
        if place == SHARE_TAKEN:
            words = Words("this address already has its share of live pages: close some")
            return busy(429, words, "too-many-streams")
        if not isinstance(place, Place):
            return busy(503, Words("the hub serves as many screens as it can: try again soon"))
        held = place
        settings = StreamSettings(
            keepalive_s=float(cfg["SSE_KEEPALIVE_S"]),
            max_stream_s=float(cfg["SSE_MAX_STREAM_S"]),
            retry_ms=int(cfg["SSE_RETRY_MS"]),
        )
        last = live.stream.version_of(request.headers.get("Last-Event-ID"))
        frames = live.stream.messages(auth.is_admin(), last, settings)
        return Response(
            StreamBody(live.stream, Slotted(frames, lambda: places.leave(held))),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    @bp.delete("/api/tables/<box>")
    @auth.admin_only
    def remove(box: str) -> ResponseReturnValue:
        try:
            updates = board.remove(box)
        except NotRemovableError as exc:
            return refuse(exc.status, exc.words or str(exc), code=exc.code)
        show(updates)
        return jsonify(removed=box)

    @bp.delete("/api/results/<box>/<int:game_id>")
    @auth.admin_only
    def strike(box: str, game_id: int) -> ResponseReturnValue:
        try:
            updates = board.remove_result(box, game_id)
        except NotRemovableError as exc:
            return refuse(exc.status, exc.words or str(exc), code=exc.code)
        show(updates)
        return jsonify(removed={"box": box, "game_id": game_id})

    @bp.before_app_request
    def admin_lane() -> ResponseReturnValue | None:
        """At the connection limit the server serves the admin only (server/guard.py)."""
        if is_lane(request.environ) and not auth.is_admin():
            words = Words("the hub serves as many connections as it can: try again soon")
            response = busy(503, words)
            response.headers["Connection"] = "close"
            return response
        return None

    bp.after_app_request(security_headers("'none'"))
    # the hub's page follows the venue's language (LANGUAGE) unless switched on it
    install_language(app, lambda: cfg.get("LANGUAGE"), follows_table={"hub.page"})
    app.register_blueprint(bp)
    app.register_blueprint(auth_blueprint(auth))
    app.register_blueprint(screens)
    register_refusals(app)  # refusals as JSON, never a 500 for a bad body
    app.extensions["buzzerbox-hub"] = {"board": board, "live": live, "auth": auth}
    return app


def busy(status: int, words: Words, code: str = "hub-full") -> Response:
    """A refusal to come back in 5 s, said in the request's language."""
    response = refuse(status, words, {"Retry-After": "5"}, code=code)
    assert isinstance(response, Response)
    return response
