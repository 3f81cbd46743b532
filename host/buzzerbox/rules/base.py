"""What every game shares: phases, rounds, the start signal, pad timing, ranking.

A `Game` is the state of one game, changed in place by `apply`. Every handler
checks everything before it changes anything, so a refused event (an
`InvalidEventError` or `IllegalEventError`) leaves the game as it was. The
engine (`engine.py`) adds undo on top by keeping copies.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, ClassVar

from buzzerbox.rules.errors import IllegalEventError, InvalidEventError
from buzzerbox.rules.events import (
    CallerNamed,
    CardsLeftEntered,
    ClaimSettled,
    Event,
    GameCreated,
    GameFinished,
    MiddleEntered,
    PadPressed,
    PadReleased,
    RoundStalled,
    RoundStarted,
    StacksEntered,
    StartSignalled,
)

#: presses kept per round for the photo finish and the false-start list; more are counted
KEEP_PRESSES = 64

TITLES = {
    "ligretto": "Ligretto",
    "twist": "Ligretto Twist",
    "kids": "Ligretto Kids",
    "twinit": "Twin It!",
}


class Game:
    """One game in progress. Subclasses add the rules of their game."""

    kind: ClassVar[str] = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 12
    pads: ClassVar[tuple[str, ...]] = ("stop",)
    piles: int = 0
    #: True where the highest total wins; Ligretto Kids counts cards left, fewest wins
    high_wins: ClassVar[bool] = True
    #: True where a round may end with nobody able to play (`stall`)
    can_stall: ClassVar[bool] = False

    def __init__(self, created: GameCreated) -> None:
        title = TITLES[self.kind]
        n = len(created.players)
        if not self.min_players <= n <= self.max_players:
            raise InvalidEventError(
                f"{title} is for {self.min_players} to {self.max_players} players: "
                f"{n} {'was' if n == 1 else 'were'} named",
                subject="players",
            )
        self.title = title
        self.players = created.players
        self.phase = "lobby"
        self.round = 0
        self.totals = [0] * n
        #: scored rounds, oldest first; a tuple, so undo copies share it
        self.history: tuple[dict[str, Any], ...] = ()
        self.winners: list[str] = []
        self.last_pad_t = -1
        self.go_t: int | None = None
        self.caller: int | None = None
        self.stalled = False
        self.race: list[dict[str, Any]] = []
        self.false_starts: list[dict[str, Any]] = []
        self.late: list[dict[str, Any]] = []
        self.ignored = 0

    def snapshot(self) -> Game:
        """A copy that later events cannot change, for undo.

        Lists and dicts are copied two levels deep; the records inside them (press
        records, history entries) are never changed once made, so they are shared.
        """
        twin = copy.copy(self)
        for key, value in vars(self).items():
            if isinstance(value, list):
                setattr(twin, key, [list(v) if isinstance(v, list) else v for v in value])
            elif isinstance(value, dict):
                setattr(twin, key, dict(value))
        return twin

    # -- helpers -------------------------------------------------------------------

    def name(self, seat: int) -> str:
        return self.players[seat]

    def check_seat(self, seat: int) -> None:
        if seat >= len(self.players):
            raise InvalidEventError(
                f"seat {seat} does not exist: this game has seats 0-{len(self.players) - 1}",
                subject="seat",
            )

    def where(self) -> str:
        """Where the game stands, for refusals: 'round 2 is being scored'."""
        return {
            "lobby": "no round has started yet",
            "countdown": f"round {self.round} is counting down",
            "playing": f"round {self.round} is playing",
            "scoring": f"round {self.round} is over and being scored",
            "scored": f"round {self.round} is scored and the next has not started",
            "finished": "the game is finished",
        }[self.phase]

    def refuse(self, what: str, allowed: str) -> IllegalEventError:
        return IllegalEventError(f"{what}: {self.where()}; {allowed}")

    def counts_by_seat(self, counts: Mapping[str, int], what: str) -> list[int]:
        """The counts of a table entry in seat order; every player, nobody else."""
        unknown = [name for name in counts if name not in self.players]
        if unknown:
            raise InvalidEventError(
                f"{unknown[0]} does not play in this game: the players are "
                f"{', '.join(self.players)}",
                subject=unknown[0],
            )
        missing = [name for name in self.players if name not in counts]
        if missing:
            raise InvalidEventError(
                f"{what} for {', '.join(missing)} missing: give a count for every player",
                subject=missing[0],
            )
        return [counts[name] for name in self.players]

    def cards_left(self, event: CardsLeftEntered, dealt: int) -> list[int]:
        """Check a `left` entry: 0 only for the caller, 1 up to `dealt` for the others."""
        if self.phase != "scoring":
            raise self.refuse("no cards left now", "they are counted when a round is over")
        counts = self.counts_by_seat(event.counts, "the cards left")
        for seat, n in enumerate(counts):
            name = self.name(seat)
            if not 0 <= n <= dealt:
                raise IllegalEventError(
                    f"{name}: {n} cards left is impossible: a player has 0 to {dealt}",
                    subject=name,
                )
            if seat == self.caller and n != 0:
                raise IllegalEventError(
                    f"{name} called stop with no cards left: enter 0 for {name}",
                    subject=name,
                )
            if n == 0 and seat != self.caller:
                if self.caller is None:
                    raise IllegalEventError(
                        f"{name}: 0 cards is only possible for a caller, and nobody called "
                        f"in round {self.round}: enter 1 to {dealt}",
                        subject=name,
                    )
                raise IllegalEventError(
                    f"{name}: 0 cards is only possible for the caller, "
                    f"{self.name(self.caller)}: enter 1 to {dealt} for {name}",
                    subject=name,
                )
        return counts

    def unsupported(self, what: str, allowed: str) -> IllegalEventError:
        return IllegalEventError(f"{self.title} has no {what}: {allowed}")

    # -- dispatch -------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Apply one event (not `game`, not `undo`: the engine handles those)."""
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise IllegalEventError(f"{type(event).__name__} cannot be applied to a game")
        getattr(self, handler)(event)

    # -- rounds ---------------------------------------------------------------------

    def start_round(self, event: RoundStarted) -> None:
        if self.phase not in ("lobby", "scored"):
            allowed = {
                "countdown": "wait for the start signal",
                "playing": "the round ends with a stop call first",
                "scoring": "enter the scores first, or finish the game",
                "finished": "start a new game",
            }[self.phase]
            raise self.refuse("no new round", allowed)
        self.round += 1
        self.phase = "countdown"
        self.go_t = None
        self.caller = None
        self.stalled = False
        self.race = []
        self.false_starts = []
        self.late = []
        self.new_round()

    def new_round(self) -> None:
        """Reset what a game keeps per round."""

    def signal_go(self, event: StartSignalled) -> None:
        if self.phase != "countdown":
            raise self.refuse("no start signal now", "the start signal follows a new round")
        self.go_t = event.t_us
        self.phase = "playing"

    def end_round(self, caller: int | None) -> None:
        self.caller = caller
        self.stalled = caller is None
        self.phase = "scoring"

    def score_round(self, points: list[int], extra: dict[str, Any] | None = None) -> None:
        """Add a round's points to the totals and see whether the game is over."""
        for seat, p in enumerate(points):
            self.totals[seat] += p
        entry: dict[str, Any] = {
            "round": self.round,
            "caller": None if self.caller is None else self.name(self.caller),
            "points": dict(zip(self.players, points, strict=True)),
            "totals": dict(zip(self.players, self.totals, strict=True)),
        }
        entry.update(extra or {})
        self.history = (*self.history, entry)
        self.phase = "scored"
        self.check_end()

    def check_end(self) -> None:
        """After a scored round: end the game if its rules say so."""

    def rank(self) -> list[str]:
        best = max(self.totals) if self.high_wins else min(self.totals)
        return [n for n, t in zip(self.players, self.totals, strict=True) if t == best]

    def end_game(self, winners: list[str]) -> None:
        self.phase = "finished"
        self.winners = winners

    def finish(self, event: GameFinished) -> None:
        if self.phase == "finished":
            raise self.refuse("the game cannot be finished again", "start a new game")
        if self.phase in ("countdown", "playing", "scoring"):
            self.dropped_round()
        self.end_game(self.rank())

    def dropped_round(self) -> None:
        """A round not yet scored is dropped when the game is finished early."""
        self.new_round()

    # -- pads -------------------------------------------------------------------------

    def check_pad(self, event: PadPressed | PadReleased) -> None:
        self.check_seat(event.seat)
        if event.pad not in self.pads:
            raise InvalidEventError(
                f"{self.title} has no {event.pad} pads: its pads are {' and '.join(self.pads)}",
                subject="pad",
            )
        if event.pile is not None and event.pile >= self.piles:
            raise InvalidEventError(
                f"pile {event.pile} does not exist: this game has piles 0-{self.piles - 1}",
                subject="pile",
            )
        if event.t_us < self.last_pad_t:
            raise InvalidEventError(
                f"{event.pad} pad of {self.name(event.seat)} at {event.t_us} µs is out of order: "
                f"the last pad event was at {self.last_pad_t} µs; pad events come in time order",
                subject=self.name(event.seat),
            )

    def press_record(self, event: PadPressed) -> dict[str, Any]:
        record: dict[str, Any] = {
            "seat": event.seat,
            "name": self.name(event.seat),
            "pad": event.pad,
            "t_us": event.t_us,
        }
        if event.pile is not None:
            record["pile"] = event.pile
        return record

    def keep(self, into: list[dict[str, Any]], event: PadPressed) -> None:
        if len(into) < KEEP_PRESSES:
            into.append(self.press_record(event))
        else:
            self.ignored += 1

    def press(self, event: PadPressed) -> None:
        self.check_pad(event)
        self.last_pad_t = event.t_us
        if self.phase == "playing" and self.go_t is not None and event.t_us >= self.go_t:
            self.on_press(event)
        elif self.phase in ("lobby", "countdown", "playing"):
            self.keep(self.false_starts, event)
        elif event.pad == "stop":
            self.add_late(event)
        else:
            self.ignored += 1

    def release(self, event: PadReleased) -> None:
        self.check_pad(event)
        self.last_pad_t = event.t_us
        if self.phase == "playing":
            self.on_release(event)

    def on_press(self, event: PadPressed) -> None:
        """A press during play, at or after the start signal."""
        if event.pad == "stop":
            self.race = [{**self.press_record(event), "lead_us": 0}]
            self.end_round(event.seat)

    def on_release(self, event: PadReleased) -> None:
        """A release during play."""

    def add_late(self, event: PadPressed) -> None:
        record = self.press_record(event)
        if self.race:
            record["lead_us"] = event.t_us - self.race[0]["t_us"]
        if len(self.late) < KEEP_PRESSES:
            self.late.append(record)
        else:
            self.ignored += 1

    # -- table entries (refused unless a game has them) -------------------------------

    def name_caller(self, event: CallerNamed) -> None:
        if self.phase != "playing":
            raise self.refuse(
                "no caller can be named now", "the table names the caller while a round plays"
            )
        self.check_seat(event.seat)
        self.end_round(event.seat)

    def stall(self, event: RoundStalled) -> None:
        if not self.can_stall:
            raise self.unsupported("stall", "only Ligretto and Ligretto Kids rounds can stall")
        if self.phase != "playing":
            raise self.refuse("no stall now", "a round stalls while it is playing")
        self.end_round(None)

    def enter_stacks(self, event: StacksEntered) -> None:
        raise self.unsupported("Ligretto stacks", self.scoring_help())

    def enter_middle(self, event: MiddleEntered) -> None:
        raise self.unsupported("middle count", self.scoring_help())

    def enter_left(self, event: CardsLeftEntered) -> None:
        raise self.unsupported("count of cards left", self.scoring_help())

    def settle_claim(self, event: ClaimSettled) -> None:
        raise self.unsupported("claims", self.scoring_help())

    def scoring_help(self) -> str:
        return "see how it is scored"

    # -- the state object -----------------------------------------------------------------

    def player_json(self, seat: int) -> dict[str, Any]:
        return {"name": self.players[seat], "total": self.totals[seat]}

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.kind,
            "title": self.title,
            "round": self.round,
            "phase": self.phase,
            "players": [self.player_json(seat) for seat in range(len(self.players))],
            "winners": list(self.winners),
            "caller": None if self.caller is None else self.name(self.caller),
            "stalled": self.stalled,
            "go_t_us": self.go_t,
            "race": [dict(r) for r in self.race],
            "false_starts": [dict(r) for r in self.false_starts],
            "late": [dict(r) for r in self.late],
            "history": [dict(h) for h in self.history],
        }


_HANDLERS: dict[type, str] = {
    RoundStarted: "start_round",
    StartSignalled: "signal_go",
    PadPressed: "press",
    PadReleased: "release",
    CallerNamed: "name_caller",
    RoundStalled: "stall",
    StacksEntered: "enter_stacks",
    MiddleEntered: "enter_middle",
    CardsLeftEntered: "enter_left",
    ClaimSettled: "settle_claim",
    GameFinished: "finish",
}
