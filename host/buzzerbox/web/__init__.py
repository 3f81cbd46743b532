"""The box's web side: `create_app(box, config, views)`, one blueprint per area, around
the phones' views of the box (web/views.py; made here from the config if not given).

- api.py      /api/state, /api/game, /api/event, /api/pads/*, /api/enrol, /api/games,
              /api/import
- pastgames.py /api/games/<id> (one to view), /api/games/<id>/rematch, /api/stats
- exports.py  /api/export/*, /api/qr/*
- stream.py   /api/events, the live stream: the full state, then deltas (buzzerbox.live)
- views.py    what a phone is shown (`PhoneViews`: the public state, the phones' live
              stream of it, subscribed to the box): serve makes it and hands it in
- openapi.py  /api/openapi.json
- pages.py    the HTML pages (its own blueprint `bp`, registered when present)

/api/login, /api/logout, /api/session (the admin PIN, CSRF, rate limits) are the
server's (buzzerbox.server.auth), shared with the hub; README.md says what is where.

Nothing lives in request globals: each blueprint is built around the box and the
settings it is given. Config keys (all optional): SECRET_KEY, ADMIN_PIN (random if
absent; read it back from app.config), URLS (the addresses phones open) or REACH (a
callable that gives them as they are now: server/reach.py), OPEN_PADS, WIFI_SSID, WIFI_PASSWORD,
SSE_KEEPALIVE_S, SSE_MAX_STREAM_S, SSE_RETRY_MS, SSE_MAX_CLIENTS, SSE_FANOUT (one thread
writes the stream to every phone, under waitress: `buzzerbox serve` sets it),
SSE_FANOUT_THREADS (how many such threads share the phones, 1 by default), LOGIN_LIMITER,
LANGUAGE (the table's language: the TV's, and a phone's whose browser asks for
none the box speaks; English if absent), SESSIONS (a sessions.Sessions: the admin
sessions, in memory if absent),
GUARD (the server's server.guard.Guard: per-address stream slots, the admin's lane).
"""

from __future__ import annotations

import importlib
import secrets
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

from flask import Flask, jsonify, request
from flask.typing import ResponseReturnValue

from buzzerbox.box import Box
from buzzerbox.errors import Words
from buzzerbox.live.fanout import Fanout
from buzzerbox.live.sse import StreamSettings
from buzzerbox.server import limits
from buzzerbox.server.auth import Auth, LoginLimiter, auth_blueprint, new_pin, refuse
from buzzerbox.server.guard import Guard, is_lane
from buzzerbox.server.language import install_language
from buzzerbox.server.security import security_headers
from buzzerbox.server.sessions import Sessions
from buzzerbox.web.api import api_blueprint
from buzzerbox.web.errors import register_errors
from buzzerbox.web.exports import exports_blueprint
from buzzerbox.web.members import SEAT_COOKIE, TV_COOKIE, members_blueprint
from buzzerbox.web.openapi import document
from buzzerbox.web.pastgames import past_games_blueprint
from buzzerbox.web.stream import StreamDoor, ViewerPath, live_blueprint
from buzzerbox.web.views import PhoneViews, phone_views

DEFAULTS: dict[str, Any] = {
    "URLS": [],
    "OPEN_PADS": False,
    "WIFI_SSID": None,
    "WIFI_PASSWORD": None,
    "SSE_KEEPALIVE_S": 2.0,  # the pages say "reconnecting" after two missed
    "SSE_MAX_STREAM_S": 600.0,
    "SSE_RETRY_MS": 2000,
    "SSE_MAX_CLIENTS": 1000,
    "MAX_CONTENT_LENGTH": 4 * 1024 * 1024,
    "SESSION_COOKIE_SAMESITE": "Strict",
    "SESSION_COOKIE_HTTPONLY": True,
    "PERMANENT_SESSION_LIFETIME": timedelta(hours=12),
    # the cookie lasts as long as its session (server/sessions.py: 12 h from the login, not
    # from the last request), so it is not signed and sent again with every answer
    "SESSION_REFRESH_EACH_REQUEST": False,
}


def create_app(
    box: Box, config: Mapping[str, Any] | None = None, views: PhoneViews | None = None
) -> Flask:
    app = Flask(__name__)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.config.update(DEFAULTS)
    app.config.update(config or {})
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = secrets.token_bytes(32)
    if not app.config.get("ADMIN_PIN"):
        app.config["ADMIN_PIN"] = new_pin()
    cfg = app.config
    secret = cfg["SECRET_KEY"]
    auth_secret = secret.encode() if isinstance(secret, str) else secret
    auth = Auth(
        str(cfg["ADMIN_PIN"]),
        auth_secret,
        cfg.get("LOGIN_LIMITER") or LoginLimiter(),
        cfg.get("SESSIONS") or Sessions(),
    )
    if views is None:  # the phones' views of this box (serve makes them: web/views.py)
        views = phone_views(box, cfg)
    live = views.stream
    fixed = list(cfg["URLS"])
    reach: Callable[[], list[str]] = cfg.get("REACH") or (lambda: fixed)
    stream_settings = StreamSettings(
        keepalive_s=float(cfg["SSE_KEEPALIVE_S"]),
        max_stream_s=float(cfg["SSE_MAX_STREAM_S"]),
        retry_ms=int(cfg["SSE_RETRY_MS"]),
    )

    # the TV follows the table's language (LANGUAGE) unless switched on it
    install_language(app, lambda: cfg.get("LANGUAGE"), follows_table={"pages.tv"})
    app.register_blueprint(auth_blueprint(auth))
    app.register_blueprint(
        api_blueprint(
            box, auth, views.public, open_pads=bool(cfg["OPEN_PADS"]), rates=cfg.get("PRESS_RATES")
        )
    )
    app.register_blueprint(past_games_blueprint(box, auth, views.public))
    app.register_blueprint(
        exports_blueprint(
            box, reach=reach, wifi_ssid=cfg["WIFI_SSID"], wifi_password=cfg["WIFI_PASSWORD"]
        )
    )
    fanout = (
        Fanout(live, stream_settings.keepalive_s, threads=int(cfg.get("SSE_FANOUT_THREADS", 1)))
        if cfg.get("SSE_FANOUT")
        else None
    )
    guard: Guard = cfg.get("GUARD") or Guard()
    limits.install(app, auth.has_session, guard)  # bodies' sizes, before they are read
    members, member = members_blueprint(box, auth, auth_secret, reach)
    app.register_blueprint(members)
    door = StreamDoor(live, stream_settings, fanout, guard)
    app.register_blueprint(live_blueprint(door, auth, member))
    # the cookies that may make a stream the admin's or a member's: Flask's to say
    whose = frozenset({str(cfg["SESSION_COOKIE_NAME"]), SEAT_COOKIE, TV_COOKIE})
    viewers = ViewerPath(app.wsgi_app, door, whose)
    app.wsgi_app = viewers  # type: ignore[method-assign]

    @app.before_request
    def admin_lane() -> ResponseReturnValue | None:
        """At the connection limit the server serves the admin only (server/guard.py)."""
        if is_lane(request.environ) and not auth.is_admin():
            words = Words("the box is serving as many connections as it can: try again soon")
            # no Connection header: waitress refuses a hop-by-hop one from the app (a 500)
            return refuse(503, words, {"Retry-After": "5"}, code="box-full")
        return None

    @app.get("/api/openapi.json")
    def openapi() -> ResponseReturnValue:
        return jsonify(document())

    app.extensions["buzzerbox"] = {
        "box": box,
        "live": live,
        "auth": auth,
        "fanout": fanout,
        "guard": guard,
        "viewers": viewers,  # the server serves their streams on its loop (serve.py)
    }
    register_errors(app)
    app.after_request(security_headers("'self'"))  # the API and the exports too
    pages = _pages()
    if pages is not None:
        app.register_blueprint(pages)
    return app


def _pages() -> Any:
    """The pages' blueprint (web/pages.py, `bp`), if that module is there."""
    try:
        module = importlib.import_module("buzzerbox.web.pages")
    except ModuleNotFoundError as exc:
        if exc.name != "buzzerbox.web.pages":
            raise
        return None
    return getattr(module, "bp", None)
