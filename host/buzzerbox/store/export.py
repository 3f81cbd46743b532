"""Formats a game leaves the box in: the game log (v1), CSV, and a BG Stats play.

Pure functions of plain data (the log's event objects, the state object); no I/O.

- `to_jsonl`: the game log, one JSON object per line (buzzerbox/rules/game-log.md).
- `to_csv`: a finished game's score sheet: one row per round with each player's
  points, then the totals and the ranks.
- `to_bgstats`: a finished game as the JSON of BG Stats' push link
  (https://www.bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/);
  `bgstats_link` wraps it in the link that opens the app's import dialog.
"""

from __future__ import annotations

import csv
import io
import json
import time
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

TITLES = {
    "ligretto": "Ligretto",
    "twist": "Ligretto Twist",
    "kids": "Ligretto Kids",
    "twinit": "Twin It!",
}
#: games where the fewest points win (Ligretto Kids counts the cards left)
LOWEST_WINS = frozenset({"kids"})
SOURCE_NAME = "buzzerbox"
BGSTATS_URL = "https://app.bgstatsapp.com/createPlay.html?data="


def to_jsonl(events: Iterable[Mapping[str, Any]]) -> str:
    """A game log: one compact JSON object per line, each line ended by a newline."""
    return "".join(
        json.dumps(dict(e), ensure_ascii=False, separators=(",", ":")) + "\n" for e in events
    )


def ranks(state: Mapping[str, Any]) -> list[int]:
    """Each player's rank by total (1 = best; ties share a rank), in seat order."""
    totals = [p["total"] for p in state["players"]]
    low = state.get("game") in LOWEST_WINS
    return [1 + sum(1 for u in totals if (u < t if low else u > t)) for t in totals]


#: a cell a spreadsheet would take for a formula starts with one of these
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> object:
    """A text cell that a spreadsheet would run as a formula gets a leading ' (OWASP's
    CSV injection advice); numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def to_csv(state: Mapping[str, Any], **labels: str) -> str:
    """The score sheet: `round, caller, <player>...`, then `total` and `rank` rows;
    `labels` say those four words in another language (round="Runde", ...)."""
    names = [p["name"] for p in state["players"]]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    word = {key: labels.get(key, key) for key in ("round", "caller", "total", "rank")}
    writer.writerow([word["round"], word["caller"], *map(cell, names)])
    for entry in state.get("history", []):
        points = entry.get("points", {})
        writer.writerow(
            [
                entry.get("round"),
                cell(entry.get("caller") or ""),
                *(cell(points.get(n, "")) for n in names),
            ]
        )
    writer.writerow([word["total"], "", *(p["total"] for p in state["players"])])
    writer.writerow([word["rank"], "", *ranks(state)])
    return out.getvalue()


class BgStatsPlayer(TypedDict):
    name: str
    score: int
    rank: int
    winner: bool
    startPlayer: bool
    role: str
    sourcePlayerId: str


class BgStatsGame(TypedDict):
    name: str
    sourceGameId: str
    highestWins: bool
    noPoints: bool


class BgStatsPlay(TypedDict):
    """A play as BG Stats' push link takes it."""

    sourceName: str
    sourcePlayId: str
    playDate: str
    durationMin: int
    location: str
    board: str
    comments: str
    game: BgStatsGame
    players: list[BgStatsPlayer]


def to_bgstats(
    state: Mapping[str, Any],
    *,
    play_id: str,
    started: float,
    ended: float,
    location: str = "",
    variants: Iterable[str] = (),
) -> BgStatsPlay:
    """A finished game as the push link's play object (times are Unix seconds)."""
    game = str(state.get("game"))
    winners = set(state.get("winners", []))
    player_ranks = ranks(state)
    players: list[BgStatsPlayer] = [
        {
            "name": p["name"],
            "score": p["total"],
            "rank": rank,
            "winner": p["name"] in winners,
            "startPlayer": False,
            "role": "",
            "sourcePlayerId": p["name"],
        }
        for p, rank in zip(state["players"], player_ranks, strict=True)
    ]
    rounds = len(state.get("history", []))
    comments = f"{rounds} round{'s' if rounds != 1 else ''}, scored by the buzzer box"
    return {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": play_id,
        "playDate": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)),
        "durationMin": max(0, round((ended - started) / 60)),
        "location": location,
        "board": ", ".join(variants),
        "comments": comments,
        "game": {
            "name": TITLES.get(game, game),
            "sourceGameId": game,
            "highestWins": game not in LOWEST_WINS,
            "noPoints": False,
        },
        "players": players,
    }


def bgstats_link(play: Mapping[str, Any]) -> str:
    """The link that opens BG Stats' import dialog with this play."""
    data = json.dumps(dict(play), ensure_ascii=False, separators=(",", ":"))
    return BGSTATS_URL + urllib.parse.quote(data, safe="")
