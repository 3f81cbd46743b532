"""The venue's screens: the hub's members (issue 39, item 2, the hub's side).

At a box, a seated player's phone and the paired TV always get their live view
(web/members.py). The hub has no seats; what must never go blind there is the venue's
own screens showing the board (the big TV at the front, one over each row of tables),
and its admin (who has places of its own already). So the hub's admin pairs each
screen as the box's admin pairs its TV:

- GET /api/screens/pair (the admin only) answers the path to open on a screen,
  /screens/pair/<token>; the hub page's admin bar shows it ("Pair a screen", hub.js).
- Opening it gives that screen a cookie of its own (a fresh id, signed with the hub's
  secret: forged or copied from nothing, it is a viewer's) and opens the board. Each
  screen is a member `screen:<id>`: PER_MEMBER streams of its own among the members'
  MEMBER_STREAMS places (server/streams.py), so 16 screens at 2 pages each; a crowd of
  viewers never takes them.

The secret is the app's SECRET_KEY: `buzzerbox hub` makes one each start, so a screen
pairs again after the hub restarts (a page still open keeps its cookie, and is a
viewer until then).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable

from flask import Blueprint, jsonify, redirect, request
from flask.typing import ResponseReturnValue

from buzzerbox.errors import Words
from buzzerbox.server.auth import Auth, refuse

SCREEN_COOKIE = "buzzerbox_hub_screen"
#: how long a screen's cookie is kept (s): an event's weekend
KEPT_S = 3 * 24 * 3600


def screens_blueprint(auth: Auth, secret: bytes) -> tuple[Blueprint, Callable[[], str | None]]:
    """The pairing's routes; and `member()`: the screen the current request comes from
    (None: a viewer)."""
    bp = Blueprint("screens", __name__)
    token = hmac.new(secret, b"buzzerbox hub: pair a screen", hashlib.sha256).hexdigest()[:32]

    def signed(ident: str) -> str:
        return hmac.new(secret, b"screen:" + ident.encode(), hashlib.sha256).hexdigest()[:32]

    @bp.get("/api/screens/pair")
    def pair_link() -> ResponseReturnValue:
        if not auth.is_admin():
            words = Words("This needs the admin: log in with the admin PIN.")
            return refuse(403, words, code="admin-only")
        return jsonify({"path": f"/screens/pair/{token}"})

    @bp.get("/screens/pair/<given>")
    def pair(given: str) -> ResponseReturnValue:
        if not hmac.compare_digest(given.encode(), token.encode()):
            words = Words("this is not this hub's screen link: ask the hub's admin for it")
            return refuse(404, words, code="not-this-hub")
        ident = secrets.token_hex(8)
        response = redirect("/")
        value = f"{ident}.{signed(ident)}"
        response.set_cookie(SCREEN_COOKIE, value, max_age=KEPT_S, httponly=True, samesite="Lax")
        return response

    def member() -> str | None:
        ident, _, mac = request.cookies.get(SCREEN_COOKIE, "").partition(".")
        if ident and hmac.compare_digest(mac.encode(), signed(ident).encode()):
            return f"screen:{ident}"
        return None

    return bp, member
