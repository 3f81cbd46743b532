"""Who belongs to the table, for the live stream's places (server/streams.py): a seated
player's phone and the paired TV always get their live view (issue 39, item 2).

- A phone that takes a seat or says it is there (POST /api/phones/seat, /here) is
  answered with a cookie holding its seat's token as well (HttpOnly: no page script
  reads it; a stream cannot send a body, but it sends its cookies). While the token
  holds a seat of the game, that phone's streams are the member `seat:<token>`.
- The admin pairs the TV: GET /api/tv/pair answers the path to open on the TV,
  /tv/pair/<token>, which gives the TV its cookie and opens /tv, and `url`, that path
  on the address the admin's page was opened through (the box's first on its network
  when opened on the box itself; null with none); /api/qr/tv.svg is that URL as a QR
  code. The table view's tools offer both ("Pair a TV", web/static/tvpair.js). The
  token comes from the box's secret key (kept in the data folder): a paired TV stays
  paired over a restart. Its streams are the member `tv`.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable

from flask import Blueprint, Response, jsonify, redirect, request
from flask.typing import ResponseReturnValue

from buzzerbox.box import Box
from buzzerbox.errors import BuzzerboxError, Words
from buzzerbox.server.auth import Auth, refuse
from buzzerbox.server.reach import page_url
from buzzerbox.web.exports import svg

SEAT_COOKIE = "buzzerbox_seat"
TV_COOKIE = "buzzerbox_tv"
#: how long a phone's or the TV's cookie is kept (s): an evening, and the next
KEPT_S = 2 * 24 * 3600
#: the answers that hand a seated phone its cookie
SEAT_PATHS = frozenset({"/api/phones/seat", "/api/phones/here"})


def tv_token(secret: bytes) -> str:
    """The TV's pairing token, from the box's secret key."""
    return hmac.new(secret, b"buzzerbox: the paired TV", hashlib.sha256).hexdigest()[:32]


def members_blueprint(
    box: Box, auth: Auth, secret: bytes, reach: Callable[[], list[str]] = list
) -> tuple[Blueprint, Callable[[], str | None]]:
    """The pairing's routes and the seat cookie; and `member()`: the member the current
    request comes from (None: a viewer). `reach`: the box's addresses (server/reach.py)."""
    bp = Blueprint("members", __name__)
    token = tv_token(secret)

    def pair_url() -> str | None:
        base = page_url(request.host, reach())
        return None if base is None else f"{base.rstrip('/')}/tv/pair/{token}"

    def holds_seat(seat_token: str) -> bool:
        try:
            box.phone_seat(seat_token)
        except BuzzerboxError:
            return False
        return True

    def not_admin() -> ResponseReturnValue | None:
        """A read of the admin's (no CSRF token: an image cannot send one)."""
        if auth.is_admin():
            return None
        return refuse(
            403, Words("This needs the admin: log in with the admin PIN."), code="admin-only"
        )

    @bp.get("/api/tv/pair")
    def pair_link() -> ResponseReturnValue:
        return not_admin() or jsonify({"path": f"/tv/pair/{token}", "url": pair_url()})

    @bp.get("/api/qr/tv.svg")
    def pair_qr() -> ResponseReturnValue:
        if (refusal := not_admin()) is not None:
            return refusal
        url = pair_url()
        if url is None:
            words = Words("no network: the TV cannot reach this box")
            return refuse(404, words, code="no-network")
        import segno  # loaded by the first code asked for, as web/exports.py's

        return svg(segno.make(url, error="m"))

    @bp.get("/tv/pair/<given>")
    def pair(given: str) -> ResponseReturnValue:
        if not hmac.compare_digest(given.encode(), token.encode()):
            words = Words("this is not this box's TV link: ask the box's admin for it")
            return refuse(404, words, code="not-this-box")
        response = redirect("/tv")
        response.set_cookie(TV_COOKIE, token, max_age=KEPT_S, httponly=True, samesite="Lax")
        return response

    @bp.after_app_request
    def seat_cookie(response: Response) -> Response:
        if request.path in SEAT_PATHS and response.status_code == 200:
            body = request.get_json(silent=True)
            seat_token = body.get("token") if isinstance(body, dict) else None
            if isinstance(seat_token, str) and holds_seat(seat_token):
                response.set_cookie(
                    SEAT_COOKIE, seat_token, max_age=KEPT_S, httponly=True, samesite="Lax"
                )
        return response

    def member() -> str | None:
        if hmac.compare_digest(request.cookies.get(TV_COOKIE, "").encode(), token.encode()):
            return "tv"
        seat_token = request.cookies.get(SEAT_COOKIE)
        if seat_token and holds_seat(seat_token):
            return f"seat:{seat_token}"
        return None

    return bp, member
