"""The box's archive: a game read back from the log, its state and its exports (log,
CSV, BG Stats); the past games (one to view, or to play again) and the finished ones the
stats count (stats.py). The store (store/) keeps the events; this is what the box makes
of them. A game is finished when its log ends it (phase `finished`): an abandoned game
(a rematch started and left, a game with no end) is listed, never counted."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, NotRequired, TypedDict, TypeVar

from buzzerbox.box.colours import colours_of
from buzzerbox.box.errors import GameNotFoundError, NoGameError, NotFinishedError
from buzzerbox.box.kept import Kept
from buzzerbox.box.stats import PlayedGame, stop_times
from buzzerbox.errors import Words
from buzzerbox.rules.phase import Phase
from buzzerbox.rules.statejson import PlayerJson, StateJson
from buzzerbox.store.eventlog import EventLog, GameSummary, GameSummaryJson, StoredEvent, StoreError
from buzzerbox.store.export import BgStatsPlay, bgstats_link, to_bgstats, to_csv, to_jsonl
from buzzerbox.store.restore import replay_events

T = TypeVar("T")


class StandingJson(TypedDict):
    name: str
    total: int
    takes: NotRequired[list[int]]


class PastRoundJson(TypedDict):
    round: int
    caller: str | None
    points: dict[str, int]
    totals: dict[str, int]
    winners: list[str]


class GameViewJson(GameSummaryJson):
    """A past game to view: its summary, title, players' totals and scored rounds."""

    title: str
    standings: list[StandingJson]
    history: list[PastRoundJson]


class BgStatsExport(TypedDict):
    """A finished game for BG Stats: the play, and the link that imports it."""

    play: BgStatsPlay
    link: str


#: how many of the log's latest games the colours are folded over
COLOUR_GAMES = 1000


class GameArchive:
    """The log's games and their exports (log, CSV, BG Stats). The box holds one and
    asks it of `game_id`, else of its current game (`current()`)."""

    def __init__(self, log: EventLog, current: Callable[[], int | None]) -> None:
        self.log = log
        self.current = current
        #: finished games read back, by (id, last change): a finished game's log only
        #: changes by an undo of its finish, which changes `updated` too
        self._played: dict[tuple[int, float], PlayedGame] = {}
        self._colours: tuple[int | None, list[int]] = (None, [])
        #: the views and exports read back, kept (kept.py: a guest's ask costs a replay once)
        self.kept = Kept()

    def colours(self) -> list[int]:
        """The current game's players' colours, seat by seat (colours.py: they follow
        the names through the log's games); [] before any game."""
        game_id = self.current()
        if game_id is not None and self._colours[0] != game_id:
            summary = self.log.game(game_id)
            earlier = [g.players for g in reversed(self.log.games(COLOUR_GAMES)) if g.id < game_id]
            self._colours = (game_id, colours_of(earlier, summary.players if summary else []))
        return list(self._colours[1]) if game_id is not None else []

    def games(self) -> list[GameSummaryJson]:
        return [g.to_json() for g in self.log.games()]

    def finished_key(self) -> tuple[tuple[int, float], ...]:
        """What the stats depend on: each finished game and when it last changed."""
        return tuple((g.id, g.updated) for g in self.log.games(MAX_GAMES) if g.is_finished)

    def played_games(self) -> list[PlayedGame]:
        """The finished games of the log (at most MAX_GAMES, the newest), oldest first."""
        out = []
        for g in reversed(self.log.games(MAX_GAMES)):
            if g.is_finished:
                key = (g.id, g.updated)
                if key not in self._played:
                    self._played[key] = played_game(g, game_events(self.log, g.id))
                out.append(self._played[key])
        return out

    def view(self, game_id: int) -> GameViewJson:
        """A game of the log as it stands (or ended): its summary, title, players' totals
        and scored rounds. GameNotFoundError if the log has no such game."""
        return self._kept("view", check_game(self.log, game_id), lambda s: game_view(self.log, s))

    def rematch_fields(self, game_id: int) -> dict[str, Any]:
        """The new game that repeats a game of the log: its kind, players (in their
        seats), target or rounds and variants."""
        line = game_events(self.log, check_game(self.log, game_id))[0].body
        return {k: line[k] for k in REMATCH_FIELDS if k in line}

    def export_log(self, game_id: int | None = None) -> str:
        return self._kept("log", self._game(game_id), lambda s: export_log(self.log, s.id))

    def export_csv(self, game_id: int | None = None, **labels: str) -> str:
        """The score sheet; `labels` say its headers in the reader's language."""
        said = tuple(sorted(labels.items()))
        return self._kept(
            ("csv", said),
            self._game(game_id),
            lambda s: export_csv(self.log, s.id, **labels),
            finished_only=True,
        )

    def export_bgstats(self, game_id: int | None = None) -> BgStatsExport:
        return self._kept(
            "bgstats",
            self._game(game_id),
            lambda s: export_bgstats(self.log, s.id),
            finished_only=True,
        )

    def _kept(
        self,
        what: Hashable,
        game_id: int,
        compute: Callable[[GameSummary], T],
        *,
        finished_only: bool = False,
    ) -> T:
        """`compute(summary)` of a game, kept by the game's last change (kept.py);
        `finished_only`: NotFinishedError, without a replay, if the log has not ended it."""
        summary = self.log.game(game_id)
        if summary is None:
            raise GameNotFoundError(not_in_log(game_id), code="game-not-found")
        if finished_only and not summary.is_finished:
            raise not_finished(game_id, summary.phase)
        version = (summary.updated, summary.phase)
        return self.kept.get(
            (what, game_id), version, not summary.is_finished, lambda: compute(summary)
        )

    def _game(self, game_id: int | None) -> int:
        return check_game(self.log, self.current() if game_id is None else game_id)


#: what a rematch repeats of a game's `game` line
REMATCH_FIELDS = ("game", "players", "target", "rounds", "variants")

#: the most games the stats read back (the newest): a box's whole life of family games
MAX_GAMES = 5000


def game_events(log: EventLog, game_id: int) -> list[StoredEvent]:
    """A listed game's events, its `game` line first; StoreError if the log lost them."""
    events = log.events(game_id)
    if not events:
        raise StoreError(lost_game(log.path, game_id), code="game-lost")
    return events


def lost_game(path: object, game_id: int) -> Words:
    """Why a game the log lists cannot be shown: its events are gone."""
    return Words(
        "the log {path} lists game {game} but holds none of its events: "
        "run `buzzerbox doctor --log` on its folder",
        {"path": str(path), "game": game_id},
    )


def played_game(summary: GameSummary, events: list[StoredEvent]) -> PlayedGame:
    """A finished game read back from its events: players, winners, rounds."""
    game = replay_events(events)[0].game
    return PlayedGame(
        id=summary.id,
        game=summary.game,
        started=summary.started,
        players=list(game.players),
        winners=list(game.winners),
        history=game.history,
        stops=stop_times(e.body for e in events),
    )


def check_game(log: EventLog, game_id: int | None) -> int:
    """`game_id` if the log has it; NoGameError / GameNotFoundError otherwise."""
    if game_id is None:
        raise NoGameError(Words("no game has been played on this box yet"), code="no-game")
    if log.game(game_id) is None:
        raise GameNotFoundError(not_in_log(game_id), code="game-not-found")
    return game_id


def not_in_log(game_id: int) -> Words:
    return Words("game {game} is not in the log: see the list of games", {"game": game_id})


def game_view(log: EventLog, summary: GameSummary) -> GameViewJson:
    """A game's summary, title, players' totals and scored rounds (a replay)."""
    game = replay_events(game_events(log, summary.id))[0].game
    return {
        **summary.to_json(),
        "title": game.title,
        "standings": [_standing(game.player_json(seat)) for seat in range(len(game.players))],
        "history": [
            {
                "round": r.round,
                "caller": r.caller,
                "points": dict(r.points),
                "totals": dict(r.totals),
                "winners": list(r.winners),
            }
            for r in game.history
        ],
    }


def _standing(player: PlayerJson) -> StandingJson:
    """A player's line of a past game: name, total (Twin It!: and the takes)."""
    out: StandingJson = {"name": player["name"], "total": player["total"]}
    if "takes" in player:
        out["takes"] = player["takes"]
    return out


def export_log(log: EventLog, game_id: int) -> str:
    return to_jsonl(e.body for e in log.events(game_id))


def finished(log: EventLog, game_id: int) -> tuple[StateJson, list[StoredEvent]]:
    """The state of a finished game and its events; NotFinishedError if it is not."""
    events = log.events(game_id)
    state = replay_events(events)[0].state()
    if state["phase"] != Phase.FINISHED:
        raise not_finished(game_id, state["phase"])
    return state, events


def not_finished(game_id: int, phase: str) -> NotFinishedError:
    return NotFinishedError(
        Words(
            "game {game} is not finished ({phase}): finish it to export its scores",
            {"game": game_id, "phase": phase},
        ),
        code="not-finished",
    )


def export_csv(log: EventLog, game_id: int, **labels: str) -> str:
    return to_csv(finished(log, game_id)[0], **labels)


def export_bgstats(log: EventLog, game_id: int) -> BgStatsExport:
    """The BG Stats play of a finished game, and the link that imports it."""
    state, events = finished(log, game_id)
    play = to_bgstats(
        state,
        play_id=f"buzzerbox-{game_id}",
        started=events[0].at,
        ended=events[-1].at,
        variants=events[0].body.get("variants", []),
    )
    return {"play": play, "link": bgstats_link(play)}
