"""The box's archive: a game read back from the log, its state and its exports (log,
CSV, BG Stats). The store (store/) keeps the events; this is what the box makes of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from buzzerbox.box.errors import GameNotFoundError, NoGameError, NotFinishedError
from buzzerbox.errors import Words
from buzzerbox.rules.phase import Phase
from buzzerbox.store.eventlog import EventLog, StoredEvent
from buzzerbox.store.export import bgstats_link, to_bgstats, to_csv, to_jsonl
from buzzerbox.store.restore import replay_events


class GameArchive:
    """The log's games and their exports (log, CSV, BG Stats). The box holds one and
    asks it of `game_id`, else of its current game (`current()`)."""

    def __init__(self, log: EventLog, current: Callable[[], int | None]) -> None:
        self.log = log
        self.current = current

    def games(self) -> list[dict[str, Any]]:
        return [g.to_json() for g in self.log.games()]

    def export_log(self, game_id: int | None = None) -> str:
        return export_log(self.log, self._game(game_id))

    def export_csv(self, game_id: int | None = None, **labels: str) -> str:
        """The score sheet; `labels` say its headers in the reader's language."""
        return export_csv(self.log, self._game(game_id), **labels)

    def export_bgstats(self, game_id: int | None = None) -> dict[str, Any]:
        return export_bgstats(self.log, self._game(game_id))

    def _game(self, game_id: int | None) -> int:
        return check_game(self.log, self.current() if game_id is None else game_id)


def check_game(log: EventLog, game_id: int | None) -> int:
    """`game_id` if the log has it; NoGameError / GameNotFoundError otherwise."""
    if game_id is None:
        raise NoGameError(Words("no game has been played on this box yet"), code="no-game")
    if log.game(game_id) is None:
        words = Words("game {game} is not in the log: see the list of games", {"game": game_id})
        raise GameNotFoundError(words, code="game-not-found")
    return game_id


def export_log(log: EventLog, game_id: int) -> str:
    return to_jsonl(e.body for e in log.events(game_id))


def finished(log: EventLog, game_id: int) -> tuple[dict[str, Any], list[StoredEvent]]:
    """The state of a finished game and its events; NotFinishedError if it is not."""
    events = log.events(game_id)
    state = replay_events(events)[0].state()
    if state["phase"] != Phase.FINISHED:
        raise NotFinishedError(
            Words(
                "game {game} is not finished ({phase}): finish it to export its scores",
                {"game": game_id, "phase": state["phase"]},
            ),
            code="not-finished",
        )
    return state, events


def export_csv(log: EventLog, game_id: int, **labels: str) -> str:
    return to_csv(finished(log, game_id)[0], **labels)


def export_bgstats(log: EventLog, game_id: int) -> dict[str, Any]:
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
