"""What every game shares: phases, rounds, the start signal, scoring, ranking.

A `Game` is the state of one game, changed in place by `apply`. Every handler
checks everything before it changes anything, so a refused event (an
`InvalidEventError` or `IllegalEventError`) leaves the game as it was. The
engine (`engine.py`) adds undo and void on top by keeping copies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, ClassVar

from buzzerbox.errors import Words
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
    RoundAmended,
    RoundStalled,
    RoundStarted,
    StacksEntered,
    StartSignalled,
)
from buzzerbox.rules.phase import Phase
from buzzerbox.rules.press import Press, Race
from buzzerbox.rules.result import RoundResult
from buzzerbox.rules.statejson import PlayerJson, StateJson
from buzzerbox.rules.timing import Timing
from buzzerbox.rules.words import (
    WHERE,
    amendable,
    no_seat,
    not_amendable,
    player_count,
    refused,
)

TITLES = {
    "ligretto": "Ligretto",
    "twist": "Ligretto Twist",
    "kids": "Ligretto Kids",
    "twinit": "Twin It!",
}


class Game(Timing):
    """One game in progress. Subclasses add the rules of their game."""

    kind: ClassVar[str] = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 12
    #: True where the highest total wins; Ligretto Kids counts cards left, fewest wins
    high_wins: ClassVar[bool] = True
    #: True where a round may end with nobody able to play (`stall`)
    can_stall: ClassVar[bool] = False
    #: the count fields `amend` takes for this game
    amends: ClassVar[tuple[str, ...]] = ()
    #: the attributes (lists, dicts) this game changes in place: a snapshot copies them
    in_place: ClassVar[tuple[str, ...]] = ()
    #: lists of lists changed in place, copied two levels deep
    in_place_deep: ClassVar[tuple[str, ...]] = ()
    #: event class -> the method that applies it, this class's own (set per subclass)
    _dispatch: ClassVar[dict[type, Callable[[Any, Any], None]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._dispatch = {kind: getattr(cls, name) for kind, name in _HANDLERS.items()}

    def __init__(self, created: GameCreated) -> None:
        title = TITLES[self.kind]
        n = len(created.players)
        if not self.min_players <= n <= self.max_players:
            said = player_count(title, self.min_players, self.max_players, n)
            raise InvalidEventError(said, subject="players", code="players-out-of-range")
        self.title = title
        self.players = created.players
        self.variants = created.variants
        self.phase = Phase.LOBBY
        self.round = 0
        self.totals = [0] * n
        #: scored rounds, oldest first; a tuple, so undo copies share it
        self.history: tuple[RoundResult, ...] = ()
        self.winners: list[str] = []
        self.last_pad_t = -1
        self.go_t: int | None = None
        self.caller: int | None = None
        self.stalled = False
        self.tie = False
        self.race: Race = []
        self.false_starts: list[Press] = []
        self.late: list[Press] = []
        self.ignored = 0
        #: presses the table took back (v1.1), oldest first; a tuple, shared by copies
        self.voided: tuple[Press, ...] = ()
        self.voided_keys: frozenset[tuple[int, int]] = frozenset()

    def snapshot(self) -> Game:
        """A copy that later events cannot change, for undo and void.

        Only the lists and dicts a game changes in place are copied (`in_place`; lists
        of lists two levels deep, `in_place_deep`); everything else is replaced when it
        changes (the history, the voided presses: tuples) or never changes once made
        (presses, scored rounds), so the copy shares it. tests/rules checks
        the copies against deep ones.
        """
        twin = object.__new__(type(self))
        state = self.__dict__.copy()
        for key in self.in_place:
            value = state[key]
            if value is not None:
                state[key] = value.copy()
        for key in self.in_place_deep:
            state[key] = [inner.copy() for inner in state[key]]
        twin.__dict__ = state
        return twin

    def keep_notes(self, later: Game, presses: tuple[Press, ...]) -> None:
        """A fold again (void) keeps what the table decided about pad events: the presses
        voided (`later`'s and the `presses` voided now), and (Twin It!) the claims an
        undo queued."""
        self.voided = (*later.voided, *presses)
        self.voided_keys = later.voided_keys | {p.key for p in presses}

    # -- helpers -------------------------------------------------------------------

    def name(self, seat: int) -> str:
        return self.players[seat]

    def check_seat(self, seat: int) -> None:
        if seat >= len(self.players):
            raise InvalidEventError(
                no_seat(seat, len(self.players)), subject="seat", code="no-seat"
            )

    def where_words(self) -> Words:
        """Where the game stands, for refusals: 'round 2 is being scored'."""
        return Words(WHERE[self.phase].msgid, {"round": self.round})

    def where(self) -> str:
        return self.where_words().english()

    def refuse(self, what: Words, allowed: Words, subject: str | None = None) -> IllegalEventError:
        """`what` is refused now: where the game stands, and what is `allowed`."""
        said = refused(what, self.where_words(), allowed)
        return IllegalEventError(said, subject=subject, code="not-now")

    def unsupported(self, what: Words, allowed: Words) -> IllegalEventError:
        """`what` ("{title} has no stall") is not in this game: what is `allowed`."""
        said = {"what": Words(what.msgid, {"title": self.title}), "allowed": allowed}
        return IllegalEventError(Words("{what}: {allowed}", said), code="not-in-this-game")

    # -- dispatch -------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Apply one event (not `game`, `undo` or `void`: the engine handles those)."""
        handler = self._dispatch.get(type(event))
        if handler is None:
            raise IllegalEventError(
                Words("{kind} cannot be applied to a game", {"kind": type(event).__name__}),
                code="not-a-game-event",
            )
        handler(self, event)

    # -- rounds ---------------------------------------------------------------------

    def start_round(self, event: RoundStarted) -> None:
        if self.phase is not Phase.LOBBY and self.phase is not Phase.SCORED:
            allowed = {
                Phase.COUNTDOWN: Words("wait for the start signal"),
                Phase.PLAYING: Words("the round ends with a stop call first"),
                Phase.SCORING: Words("enter the scores first, or finish the game"),
                Phase.FINISHED: Words("start a new game"),
            }[self.phase]
            raise self.refuse(Words("no new round"), allowed)
        self.round += 1
        self.phase = Phase.COUNTDOWN
        self.go_t = None
        self.caller = None
        self.stalled = False
        self.tie = False
        self.race = []
        self.false_starts = []
        self.late = []
        self.new_round()

    def new_round(self) -> None:
        """Reset what a game keeps per round."""

    def signal_go(self, event: StartSignalled) -> None:
        if self.phase is not Phase.COUNTDOWN:
            raise self.refuse(
                Words("no start signal now"), Words("the start signal follows a new round")
            )
        self.go_t = event.t_us
        self.phase = Phase.PLAYING

    def end_round(self, caller: int | None, *, stalled: bool = False) -> None:
        self.caller = caller
        self.stalled = stalled
        self.phase = Phase.SCORING

    def score_round(
        self,
        points: list[int],
        *,
        stacks: Mapping[str, int] | None = None,
        middle: Mapping[str, int] | None = None,
        left: Mapping[str, int] | None = None,
    ) -> None:
        """Add a round's points to the totals and see whether the game is over; the
        counts entered go with them, by name."""
        self.totals = totals = [t + p for t, p in zip(self.totals, points, strict=True)]
        caller = None if self.caller is None else self.name(self.caller)
        named = self.by_name(points), self.by_name(totals)
        entry = RoundResult(self.round, caller, self.stalled, *named, (), stacks, middle, left)
        self.history = (*self.history, replace(entry, winners=self.round_winners(entry)))
        self.phase = Phase.SCORED
        self.check_end()

    def round_winners(self, entry: RoundResult) -> tuple[str, ...]:
        """Who won a scored round: the caller, else (a stall, a tie) the leaders in
        points at that time (002)."""
        if entry.caller is not None:
            return (entry.caller,)
        totals = entry.totals
        best = max(totals.values()) if self.high_wins else min(totals.values())
        return tuple(name for name, total in totals.items() if total == best)

    def check_end(self) -> None:
        """After a scored round: end the game if its rules say so."""

    def rank(self) -> list[str]:
        best = max(self.totals) if self.high_wins else min(self.totals)
        return [n for n, t in zip(self.players, self.totals, strict=True) if t == best]

    def is_finished(self) -> bool:
        return self.phase is Phase.FINISHED

    def end_game(self, winners: list[str]) -> None:
        self.phase = Phase.FINISHED
        self.winners = winners

    def finish(self, event: GameFinished) -> None:
        if self.phase is Phase.FINISHED:
            raise self.refuse(Words("the game cannot be finished again"), Words("start a new game"))
        if self.phase in (Phase.COUNTDOWN, Phase.PLAYING, Phase.SCORING):
            self.dropped_round()
        self.end_game(self.rank())

    def dropped_round(self) -> None:
        """A round not yet scored is dropped when the game is finished early."""
        self.new_round()

    # -- table entries (refused unless a game has them) -------------------------------

    def name_caller(self, event: CallerNamed) -> None:
        if self.phase is Phase.SCORING and not self.has_counts():
            # v1.1: the table replaces whichever caller the pads, a `caller` or a stall left
            self.check_seat(event.seat)
            self.caller = event.seat
            self.stalled = False
            return
        if self.phase is not Phase.PLAYING:
            allowed = Words("the table names the caller while a round plays, or before its counts")
            if self.phase is Phase.SCORING:
                allowed = Words("the caller is named before the counts: undo them to name another")
            raise self.refuse(Words("no caller can be named now"), allowed)
        self.check_seat(event.seat)
        self.end_round(event.seat)

    def stall(self, event: RoundStalled) -> None:
        if not self.can_stall:
            raise self.unsupported(
                Words("{title} has no stall"),
                Words("only Ligretto and Ligretto Kids rounds can stall"),
            )
        if self.phase is not Phase.PLAYING:
            raise self.refuse(Words("no stall now"), Words("a round stalls while it is playing"))
        self.end_round(None, stalled=True)

    def enter_stacks(self, event: StacksEntered) -> None:
        raise self.unsupported(Words("{title} has no Ligretto stacks"), self.scoring_help())

    def enter_middle(self, event: MiddleEntered) -> None:
        raise self.unsupported(Words("{title} has no middle count"), self.scoring_help())

    def enter_left(self, event: CardsLeftEntered) -> None:
        raise self.unsupported(Words("{title} has no count of cards left"), self.scoring_help())

    def settle_claim(self, event: ClaimSettled) -> None:
        raise self.unsupported(Words("{title} has no claims"), self.scoring_help())

    def scoring_help(self) -> Words:
        return Words("see how it is scored")

    # -- amend (v1.1) -----------------------------------------------------------------

    def amend(self, event: RoundAmended) -> None:
        """Correct the counts of a scored round: judged as when first entered; the totals
        and round winners are recomputed and the end of the game judged again."""
        if not self.amends:
            raise self.unsupported(Words("{title} has no rounds to amend"), self.scoring_help())
        given = {k: getattr(event, k) for k in ("stacks", "middle", "left")}
        wrong = [k for k, v in given.items() if v is not None and k not in self.amends]
        if wrong:
            said = not_amendable(self.title, wrong[0], self.amends)
            raise InvalidEventError(said, subject=wrong[0], code="not-amendable")
        what = Words("round {round} cannot be amended", {"round": event.round})
        if self.phase is Phase.FINISHED:
            raise self.refuse(what, Words("amend corrects a game still going"))
        scored = len(self.history)
        if not 1 <= event.round <= scored:
            being_scored = event.round == self.round and self.phase is Phase.SCORING
            raise self.refuse(what, amendable(being_scored, scored), subject="round")
        entry = self.history[event.round - 1]
        caller = None if entry.caller is None else self.players.index(entry.caller)
        history = list(self.history)
        history[event.round - 1] = self.amended(entry, caller, event)
        under_way = self.phase in (Phase.COUNTDOWN, Phase.PLAYING, Phase.SCORING)
        self.rescore(history, event.round - 1)
        self.check_end()
        if under_way and self.is_finished():
            self.dropped_round()  # as a finish would: the round under way is not scored

    def amended(self, entry: RoundResult, caller: int | None, event: RoundAmended) -> RoundResult:
        """The round `entry` with its new counts and points, judged as when first entered
        (its totals and winners are the rescore's)."""
        raise NotImplementedError

    def by_name(self, values: list[int]) -> dict[str, int]:
        return dict(zip(self.players, values, strict=True))

    def rescore(self, history: list[RoundResult], start: int) -> None:
        """Totals and round winners again from the rounds' points, from round `start`
        (0-based) on; the rounds before it are as they were."""
        players = self.players
        totals = [history[start - 1].totals[name] for name in players] if start else []
        totals = totals or [0] * len(players)
        for i in range(start, len(history)):
            entry = history[i]
            points = entry.points
            totals = [t + points[name] for t, name in zip(totals, players, strict=True)]
            new = replace(entry, totals=self.by_name(totals))
            history[i] = replace(new, winners=self.round_winners(new))
        self.history = tuple(history)
        self.totals = totals

    # -- the state object -----------------------------------------------------------------

    def player_json(self, seat: int) -> PlayerJson:
        return {"name": self.players[seat], "total": self.totals[seat]}

    def to_json(self) -> StateJson:
        return {
            "game": self.kind,
            "title": self.title,
            "variants": list(self.variants),
            "round": self.round,
            "phase": self.phase.value,
            "players": [self.player_json(seat) for seat in range(len(self.players))],
            "winners": list(self.winners),
            "caller": None if self.caller is None else self.name(self.caller),
            "stalled": self.stalled,
            "tie": self.tie,
            "go_t_us": self.go_t,
            "race": [p.to_json() for p in self.race],
            "false_starts": [p.to_json() for p in self.false_starts],
            "late": [p.to_json() for p in self.late],
            "voided": [p.to_json() for p in self.voided],
            "history": [h.to_json() for h in self.history],
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
    RoundAmended: "amend",
    GameFinished: "finish",
}
