"""The box's web side: `create_app(box, config)`, one blueprint per area.

- api.py      /api/state, /api/game, /api/event, /api/pads/*, /api/enrol, /api/games,
              /api/import
- pastgames.py /api/games/<id> (one to view), /api/games/<id>/rematch, /api/stats
- exports.py  /api/export/*, /api/qr/*
- stream.py   /api/events, the live stream: the full state, then deltas (buzzerbox.live)
- openapi.py  /api/openapi.json
- pages.py    the HTML pages (its own blueprint `bp`, registered when present)

/api/login, /api/logout, /api/session (the admin PIN, CSRF, rate limits) are the
server's (buzzerbox.server.auth), shared with the hub; README.md says what is where.

Nothing lives in request globals: each blueprint is built around the box and the
settings it is given. Config keys (all optional): SECRET_KEY, ADMIN_PIN (random if
absent; read it back from app.config), URLS, OPEN_PADS, WIFI_SSID, WIFI_PASSWORD,
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
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from flask import Flask, jsonify, request
from flask.typing import ResponseReturnValue

from buzzerbox.box import Box
from buzzerbox.errors import Words
from buzzerbox.live.fanout import Fanout
from buzzerbox.live.livestate import LiveState, StreamSettings, dumps
from buzzerbox.server import limits
from buzzerbox.server.auth import Auth, LoginLimiter, auth_blueprint, new_pin, refuse
from buzzerbox.server.guard import Guard, is_lane
from buzzerbox.server.language import install_language
from buzzerbox.server.security import security_headers
from buzzerbox.server.sessions import Sessions
from buzzerbox.web.api import api_blueprint
from buzzerbox.web.errors import register_errors
from buzzerbox.web.exports import exports_blueprint
from buzzerbox.web.members import members_blueprint
from buzzerbox.web.openapi import document
from buzzerbox.web.pastgames import past_games_blueprint
from buzzerbox.web.stream import live_blueprint

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


def create_app(box: Box, config: Mapping[str, Any] | None = None) -> Flask:
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
    urls = list(cfg["URLS"])
    extras = {
        "urls": urls,
        "open_pads": bool(cfg["OPEN_PADS"]),
        "wifi": bool(cfg["WIFI_SSID"]),
    }

    def public(state: dict[str, Any], is_admin: bool) -> dict[str, Any]:
        """The state object as a phone gets it: the box's, plus this session and now."""
        out = dict(state)
        out["box"] = {**state["box"], **extras, "admin": is_admin, "now_us": box.now_us()}
        return out

    def view(state: dict[str, Any]) -> dict[str, Any]:
        """The state for the live stream: now_us only while a countdown runs (it is
        what the phones count against), so that a pad press does not change it."""
        out = public(state, False)
        if out["box"]["countdown_ends_us"] is None:
            out["box"]["now_us"] = None
        return out

    def full(view: dict[str, Any], is_admin: bool) -> str:
        """A view as a whole state for a stream starting now (this session, now)."""
        return dumps({**view, "box": {**view["box"], "admin": is_admin, "now_us": box.now_us()}})

    live = LiveState(view, full, max_clients=int(cfg["SSE_MAX_CLIENTS"]))
    live.publish(box.state())
    box.when_changed.append(live.publish)
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
            box, auth, public, open_pads=bool(cfg["OPEN_PADS"]), rates=cfg.get("PRESS_RATES")
        )
    )
    app.register_blueprint(past_games_blueprint(box, auth, public))
    app.register_blueprint(
        exports_blueprint(
            box, urls=urls, wifi_ssid=cfg["WIFI_SSID"], wifi_password=cfg["WIFI_PASSWORD"]
        )
    )
    fanout = (
        Fanout(live, stream_settings.keepalive_s, threads=int(cfg.get("SSE_FANOUT_THREADS", 1)))
        if cfg.get("SSE_FANOUT")
        else None
    )
    guard: Guard = cfg.get("GUARD") or Guard()
    limits.install(app, auth.has_session, guard)  # bodies' sizes, before they are read
    members, member = members_blueprint(box, auth, auth_secret)
    app.register_blueprint(members)
    app.register_blueprint(live_blueprint(live, auth, stream_settings, fanout, guard, member))

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
