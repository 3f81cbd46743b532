"""Players across games, from the event log: finished games only, wins (in all and per
game), best round, win streaks, and the quickest stop each player called.

Pure: the finished games (`PlayedGame`, read back from the log by archive.py) in, figures
out. A game without its end (abandoned, or still going) is no `PlayedGame`: it counts
for nobody.

Why no "mean reaction": the first press after the go is a reaction in Twin It! only. In
Ligretto and Kids it is the stop press that ends the round (tens of seconds after the
go: the length of the round, not a reaction), in Twist a card laid on a pile pad. Their
mean was a number of seconds no one at the table would call a reaction. What a family
knows is the round it ended quickest: `quickest_call`, the time from the go to the stop
press of a round the player called (a caller named by the table has no press: left out).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: the games where the fewest in a round is best (they count cards left)
FEWEST_BEST = frozenset({"kids"})


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """A finished game as the log has it: id (its `game` line's seq), kind, when it
    started (Unix s), its players in seat order, its winners, its scored rounds (the
    state's `history`) and its stop presses' times after the go (`stop_times`)."""

    id: int
    game: str
    started: float
    players: Sequence[str]
    winners: Sequence[str]
    history: Sequence[Mapping[str, Any]] = ()
    stops: Mapping[tuple[int, int], int] = field(default_factory=dict, repr=False)


def stop_times(events: Iterable[Mapping[str, Any]]) -> dict[tuple[int, int], int]:
    """(round, seat) -> µs from the go to the seat's first stop press of that round that
    was not taken back (`void`). Presses before the go (false starts) are not counted."""
    bodies = list(events)
    voided = {(b.get("seat"), b.get("t_us")) for b in bodies if b.get("type") == "void"}
    out: dict[tuple[int, int], int] = {}
    round_no, go = 0, None
    for body in bodies:
        kind = body.get("type")
        if kind == "round":
            round_no, go = round_no + 1, None
        elif kind == "go" and isinstance(body.get("t_us"), int):
            go = body["t_us"]
        elif kind == "press" and body.get("pad") == "stop" and go is not None:
            seat, t = body.get("seat"), body.get("t_us")
            if not isinstance(seat, int) or not isinstance(t, int) or t < go:
                continue
            if (seat, t) not in voided:
                out.setdefault((round_no, seat), t - go)
    return out


def _better(game: str, a: int, b: int) -> bool:
    return a < b if game in FEWEST_BEST else a > b


def player_stats(played: Iterable[PlayedGame]) -> list[dict[str, Any]]:
    """Per player name, most wins first: {name, games, wins, by_game: [{game, games,
    wins, best_round}], streak: {longest, current}, quickest_call}. `best_round` is
    {points, round, game_id, started} (the most points, Kids: the fewest cards) or null;
    `quickest_call` is {us, game, game_id, started, round} or null."""
    rows: dict[str, dict[str, Any]] = {}
    for g in sorted(played, key=lambda g: g.id):  # oldest first: the streaks run in order
        stops = g.stops
        for seat, name in enumerate(g.players):
            row = rows.setdefault(
                name,
                {"name": name, "games": 0, "wins": 0, "by_game": {}, "_run": 0, "_best_run": 0},
            )
            won = name in g.winners
            row["games"] += 1
            row["wins"] += won
            row["_run"] = row["_run"] + 1 if won else 0
            row["_best_run"] = max(row["_best_run"], row["_run"])
            per = row["by_game"].setdefault(
                g.game, {"game": g.game, "games": 0, "wins": 0, "best_round": None}
            )
            per["games"] += 1
            per["wins"] += won
            for r in g.history:
                points = (r.get("points") or {}).get(name)
                best = per["best_round"]
                if isinstance(points, int) and (
                    best is None or _better(g.game, points, best["points"])
                ):
                    per["best_round"] = {
                        "points": points,
                        "round": r.get("round"),
                        "game_id": g.id,
                        "started": g.started,
                    }
                if r.get("caller") == name and (r.get("round"), seat) in stops:
                    us = stops[(r.get("round"), seat)]  # type: ignore[index]
                    quickest = row.get("quickest_call")
                    if quickest is None or us < quickest["us"]:
                        row["quickest_call"] = {
                            "us": us,
                            "game": g.game,
                            "game_id": g.id,
                            "started": g.started,
                            "round": r.get("round"),
                        }
    result = []
    for row in rows.values():
        row["by_game"] = sorted(row["by_game"].values(), key=lambda p: (-p["games"], p["game"]))
        row["streak"] = {"longest": row.pop("_best_run"), "current": row.pop("_run")}
        row.setdefault("quickest_call", None)
        result.append(row)
    return sorted(result, key=lambda r: (-r["wins"], -r["games"], r["name"]))
