"""Who belongs to the table, for the live stream's places (server/streams.py): a seated
player's phone and the paired TV always get their live view (issue 39, item 2).

- A phone that takes a seat or says it is there (POST /api/phones/seat, /here) is
  answered with a cookie holding its seat's token as well (HttpOnly: no page script
  reads it; a stream cannot send a body, but it sends its cookies). While the token
  holds a seat of the game, that phone's streams are the member `seat:<token>`.
- The admin pairs the TV: GET /api/tv/pair answers the path to open on the TV,
  /tv/pair/<token>, which gives the TV its cookie and opens /tv. The token comes from
  the box's secret key (kept in the data folder): a paired TV stays paired over a
  restart. Its streams are the member `tv`.
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
    box: Box, auth: Auth, secret: bytes
) -> tuple[Blueprint, Callable[[], str | None]]:
    """The pairing's routes and the seat cookie; and `member()`: the member the current
    request comes from (None: a viewer)."""
    bp = Blueprint("members", __name__)
    token = tv_token(secret)

    def holds_seat(seat_token: str) -> bool:
        try:
            box.phone_seat(seat_token)
        except BuzzerboxError:
            return False
        return True

    @bp.get("/api/tv/pair")
    @auth.admin_only
    def pair_link() -> ResponseReturnValue:
        return jsonify({"path": f"/tv/pair/{token}"})

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
