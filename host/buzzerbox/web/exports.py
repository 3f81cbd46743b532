"""What leaves the box: game logs, score sheets, BG Stats plays, and QR codes.

All read-only, so viewers may fetch them. `?game=<id>` picks a game from
GET /api/games; without it, the current game.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from flask import Blueprint, Response, request
from flask.typing import ResponseReturnValue

from buzzerbox.box import Box
from buzzerbox.errors import Words
from buzzerbox.i18n import say
from buzzerbox.server.auth import refuse
from buzzerbox.server.errors import BadBodyError
from buzzerbox.server.language import language
from buzzerbox.server.reach import page_url
from buzzerbox.web.card import result_card

if TYPE_CHECKING:
    import segno


#: the score sheet's headers (store/export.py's to_csv), said in the reader's language
CSV_LABELS = {
    "round": Words("round"),
    "caller": Words("caller"),
    "total": Words("total"),
    "rank": Words("rank"),
}


def game_param() -> int | None:
    raw = request.args.get("game")
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18:
        words = Words("game {game!r} is not a game id: see GET /api/games", {"game": raw})
        raise BadBodyError(words, code="not-a-game-id")
    return int(raw)


def attachment(body: str, mimetype: str, filename: str) -> Response:
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def svg(qr: segno.QRCode) -> Response:  # segno is loaded by the first QR code asked for
    out = io.BytesIO()
    qr.save(out, kind="svg", scale=8, border=2, xmldecl=False)
    response = Response(out.getvalue(), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-cache"
    return response


def exports_blueprint(
    box: Box, *, reach: Callable[[], list[str]], wifi_ssid: str | None, wifi_password: str | None
) -> Blueprint:
    bp = Blueprint("exports", __name__, url_prefix="/api")

    def name(game_id: int | None, ext: str) -> str:
        return f"buzzerbox-game-{game_id or box.game_id}.{ext}"

    @bp.get("/export/log")
    def export_log() -> ResponseReturnValue:
        game_id = game_param()
        text = box.archive.export_log(game_id)
        return attachment(text, "application/x-ndjson", name(game_id, "jsonl"))

    @bp.get("/export/csv")
    def export_csv() -> ResponseReturnValue:
        game_id = game_param()
        lang = language()
        labels = {key: say(words, lang) for key, words in CSV_LABELS.items()}
        return attachment(
            box.archive.export_csv(game_id, **labels), "text/csv", name(game_id, "csv")
        )

    @bp.get("/export/bgstats")
    def export_bgstats() -> ResponseReturnValue:
        play = box.archive.export_bgstats(game_param())
        return Response(json.dumps(play, ensure_ascii=False), mimetype="application/json")

    @bp.get("/export/card.svg")
    def export_card() -> ResponseReturnValue:
        state = box.state()
        if state.get("phase") != "finished":
            words = Words("the result card is made once the game is finished")
            return refuse(409, words, code="not-finished")
        response = Response(result_card(state, language()), mimetype="image/svg+xml")
        response.headers["Content-Disposition"] = f'inline; filename="{name(None, "svg")}"'
        return response

    @bp.get("/qr/scoreboard.svg")
    def qr_scoreboard() -> ResponseReturnValue:
        """The scoreboard's address: the one this page was opened through, unless that
        is this machine only (the box's screen), then the box's first on its network."""
        target = page_url(request.host, reach())
        if target is None:
            words = Words("no network: phones cannot reach this box")
            return refuse(404, words, code="no-network")
        import segno

        return svg(segno.make(target, error="m"))

    @bp.get("/qr/wifi.svg")
    def qr_wifi() -> ResponseReturnValue:
        if not wifi_ssid:
            words = Words("no Wi-Fi is configured: start the box with --wifi-ssid")
            return refuse(404, words, code="no-wifi")
        from segno import helpers

        security = "WPA" if wifi_password else None
        return svg(helpers.make_wifi(ssid=wifi_ssid, password=wifi_password, security=security))

    return bp
