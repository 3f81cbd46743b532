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
from typing import Any, TypedDict, cast

from buzzerbox.rules.result import RoundResult

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
    history: Sequence[RoundResult] = ()
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


class BestRoundJson(TypedDict):
    points: int
    round: int
    game_id: int
    started: float


class QuickestCallJson(TypedDict):
    us: int
    game: str
    game_id: int
    started: float
    round: int


class GameStatsJson(TypedDict):
    game: str
    games: int
    wins: int
    best_round: BestRoundJson | None


class StreakJson(TypedDict):
    longest: int
    current: int


class PlayerStatsJson(TypedDict):
    name: str
    games: int
    wins: int
    by_game: list[GameStatsJson]
    streak: StreakJson
    quickest_call: QuickestCallJson | None


@dataclass(slots=True)
class GameTally:
    """A player's games of one kind: played, won, the best round (most points; Kids:
    the fewest cards)."""

    game: str
    games: int = 0
    wins: int = 0
    best_round: BestRoundJson | None = None

    def to_json(self) -> GameStatsJson:
        best = self.best_round
        return {"game": self.game, "games": self.games, "wins": self.wins, "best_round": best}


@dataclass(slots=True)
class PlayerTally:
    """A player's games, counted oldest first: wins, per kind, the run of wins, the
    quickest stop called."""

    name: str
    games: int = 0
    wins: int = 0
    by_game: dict[str, GameTally] = field(default_factory=dict)
    run: int = 0
    best_run: int = 0
    quickest_call: QuickestCallJson | None = None

    def to_json(self) -> PlayerStatsJson:
        by_game = sorted(self.by_game.values(), key=lambda p: (-p.games, p.game))
        out: dict[str, object] = {
            "name": self.name,
            "games": self.games,
            "wins": self.wins,
            "by_game": [p.to_json() for p in by_game],
        }
        # the order the JSON has always had: a quickest call found comes before the streak
        if self.quickest_call is not None:
            out["quickest_call"] = self.quickest_call
        out["streak"] = {"longest": self.best_run, "current": self.run}
        out.setdefault("quickest_call", None)
        return cast(PlayerStatsJson, out)


def player_stats(played: Iterable[PlayedGame]) -> list[PlayerStatsJson]:
    """Per player name, most wins first: {name, games, wins, by_game: [{game, games,
    wins, best_round}], streak: {longest, current}, quickest_call}. `best_round` is
    {points, round, game_id, started} (the most points, Kids: the fewest cards) or null;
    `quickest_call` is {us, game, game_id, started, round} or null."""
    rows: dict[str, PlayerTally] = {}
    for g in sorted(played, key=lambda g: g.id):  # oldest first: the streaks run in order
        stops = g.stops
        for seat, name in enumerate(g.players):
            row = rows.setdefault(name, PlayerTally(name))
            won = name in g.winners
            row.games += 1
            row.wins += won
            row.run = row.run + 1 if won else 0
            row.best_run = max(row.best_run, row.run)
            per = row.by_game.setdefault(g.game, GameTally(g.game))
            per.games += 1
            per.wins += won
            for r in g.history:
                points = r.points.get(name)
                best = per.best_round
                if points is not None and (best is None or _better(g.game, points, best["points"])):
                    per.best_round = {
                        "points": points,
                        "round": r.round,
                        "game_id": g.id,
                        "started": g.started,
                    }
                if r.caller == name and (r.round, seat) in stops:
                    us = stops[(r.round, seat)]
                    quickest = row.quickest_call
                    if quickest is None or us < quickest["us"]:
                        row.quickest_call = {
                            "us": us,
                            "game": g.game,
                            "game_id": g.id,
                            "started": g.started,
                            "round": r.round,
                        }
    result = [row.to_json() for row in rows.values()]
    return sorted(result, key=lambda r: (-r["wins"], -r["games"], r["name"]))
