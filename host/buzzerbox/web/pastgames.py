"""The past games of the log: one to view, one to play again; and the players across the
finished games (the Stats tab, static/stats.js).

GET /api/games (api.py) lists the games; GET /api/games/<id> shows one as it ended (or
stood, when it has no end); POST /api/games/<id>/rematch starts it again (the admin's);
GET /api/stats counts the finished games only (box/stats.py). Its exports are the
exports' (`?game=<id>`, exports.py).
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from flask.typing import ResponseReturnValue

from buzzerbox.box import Box, GameNotFoundError
from buzzerbox.box.stats import player_stats
from buzzerbox.errors import Words
from buzzerbox.server.auth import Auth
from buzzerbox.web.api import SAVE_WAIT_S, Public, state_response
from buzzerbox.web.rates import Cached

#: a game id is a seq of the log: SQLite's integers are 64-bit
MAX_ID = 2**63 - 1


def known_id(game_id: int) -> int:
    if game_id > MAX_ID:
        words = Words("game {game} is not in the log: see the list of games", {"game": game_id})
        raise GameNotFoundError(words, code="game-not-found")
    return game_id


def past_games_blueprint(box: Box, auth: Auth, public: Public) -> Blueprint:
    bp = Blueprint("pastgames", __name__, url_prefix="/api")
    stats_cache: Cached[bytes] = Cached()

    @bp.get("/games/<int:game_id>")
    def view(game_id: int) -> ResponseReturnValue:
        response = jsonify(box.archive.view(known_id(game_id)))
        response.headers["Cache-Control"] = "no-cache"
        return response

    @bp.post("/games/<int:game_id>/rematch")
    @auth.admin_only
    def rematch(game_id: int) -> ResponseReturnValue:
        """The current game again keeps its seats and pads (Box.rematch); an older one
        comes back with its players in their seats, its settings."""
        if known_id(game_id) == box.game_id:
            box.rematch()
        else:
            box.new_game(box.archive.rematch_fields(game_id))
        box.log.wait_durable(box.state()["box"]["seq"], SAVE_WAIT_S)  # typed: answered saved
        return state_response(public(box.state(), auth.is_admin()), box.log.durable_seq)

    @bp.get("/stats")
    def stats() -> ResponseReturnValue:
        """Players across the finished games: games, wins, per game, best round, streaks."""
        archive = box.archive
        # anyone may ask: computed once per set of finished games, one at a time
        body = stats_cache.get(
            archive.finished_key(), lambda: jsonify(player_stats(archive.played_games())).data
        )
        response = Response(body, mimetype="application/json")
        response.headers["Cache-Control"] = "no-cache"
        return response

    return bp
