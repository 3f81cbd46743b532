"""Ligretto (classic): rulebooks 002 (Danish) and 004 (German, with the scoreboard).

A round ends at the first stop press, by stall, or by the table naming the
caller. Scoring is entered in two steps: the Ligretto stacks, then the middle;
round points = middle − 2 × stack. The game is played to a target (50, 99 or
150; the highest total wins once someone has reached it, a tie at the top plays
on) or for a fixed number of rounds (the highest total wins, a tie shares).
"""

from __future__ import annotations

from dataclasses import replace

from buzzerbox.errors import Words
from buzzerbox.rules.base import Game
from buzzerbox.rules.counts import by_seat
from buzzerbox.rules.errors import IllegalEventError, InvalidEventError
from buzzerbox.rules.events import GameCreated, MiddleEntered, RoundAmended, StacksEntered
from buzzerbox.rules.phase import Phase
from buzzerbox.rules.result import RoundResult
from buzzerbox.rules.statejson import PlayerJson, StateJson

TARGETS = (50, 99, 150)
STACK = 10
SET = 40


def row_size(players: int) -> int:
    """Cards in each player's row: 5 with two players, 4 with three, 3 with more."""
    return {2: 5, 3: 4}.get(players, 3)


class Ligretto(Game):
    kind = "ligretto"
    min_players = 2
    max_players = 12
    pads = ("stop",)
    can_stall = True
    amends = ("stacks", "middle")

    def __init__(self, created: GameCreated) -> None:
        super().__init__(created)
        if created.target is not None and created.rounds is not None:
            raise InvalidEventError(
                Words("ligretto plays either to a target or for a number of rounds, not both"),
                subject="rounds",
                code="target-and-rounds",
            )
        if created.target is not None and created.target not in TARGETS:
            raise InvalidEventError(
                Words(
                    "target {target} is not offered: ligretto plays to 50, 99 or 150",
                    {"target": created.target},
                ),
                subject="target",
                code="target-not-offered",
            )
        self.rounds = created.rounds
        self.target = None if created.rounds is not None else (created.target or 99)
        self.row = row_size(len(self.players))
        self.stacks: list[int] | None = None
        self.middle: list[int] | None = None

    def new_round(self) -> None:
        self.stacks = None
        self.middle = None

    def scoring_help(self) -> Words:
        return Words("Ligretto is scored with the stacks, then the middle")

    def has_counts(self) -> bool:
        return self.stacks is not None

    def _check_scoring(self, step: Words) -> None:
        if self.phase is Phase.SCORING:
            return
        allowed = {
            Phase.LOBBY: Words("start a round first"),
            Phase.COUNTDOWN: Words("the round has not even started"),
            Phase.PLAYING: Words("it ends with a stop call, a named caller or a stall first"),
            Phase.SCORED: Words("its scores are entered; take them back with undo, or amend them"),
            Phase.FINISHED: Words("start a new game"),
        }[self.phase]
        raise self.refuse(step, allowed)

    def check_stacks(
        self, counts: list[int], caller: int | None, round_: int, *, tied: bool = False
    ) -> None:
        for seat, n in enumerate(counts):
            if 0 < n <= STACK and seat != caller:
                continue  # the common count: nothing to say
            name = self.name(seat)
            if not 0 <= n <= STACK:
                said = {"name": name, "n": n, "most": STACK}
                raise IllegalEventError(
                    Words(
                        "{name}: {n} cards in the Ligretto stack is impossible: "
                        "it holds 0 to {most}",
                        said,
                    ),
                    subject=name,
                    code="count-out-of-range",
                )
            if seat == caller and n != 0:
                raise IllegalEventError(
                    Words(
                        "{name} called Ligretto Stop, so {name}'s stack is empty: "
                        "enter 0 for {name}",
                        {"name": name},
                    ),
                    subject=name,
                    code="caller-not-zero",
                )
            if n == 0 and seat != caller:
                if caller is None:
                    said = {"name": name, "round": round_, "most": STACK}
                    words = (
                        Words(
                            "{name}: 0 cards is only possible for the caller, and the stop "
                            "presses of round {round} tied with no caller named: enter 1 to "
                            "{most}, or name the caller first",
                            said,
                        )
                        if tied
                        else Words(
                            "{name}: 0 cards is only possible for the caller, and nobody called "
                            "in round {round}: enter 1 to {most}, or name the caller first",
                            said,
                        )
                    )
                    raise IllegalEventError(words, subject=name, code="zero-without-caller")
                said = {"name": name, "caller": self.name(caller), "most": STACK}
                raise IllegalEventError(
                    Words(
                        "two empty Ligretto stacks: 0 cards is only possible for the caller, "
                        "{caller}; {name} has 1 to {most} cards left",
                        said,
                    ),
                    subject=name,
                    code="zero-not-caller",
                )

    def check_middle(self, counts: list[int], stacks: list[int]) -> None:
        for seat, n in enumerate(counts):
            stack = stacks[seat]
            if n >= 0 and n + stack <= SET:
                continue  # the common count: nothing to say
            name = self.name(seat)
            if not 0 <= n <= SET:
                said = {"name": name, "n": n, "most": SET}
                raise IllegalEventError(
                    Words(
                        "{name}: {n} cards in the middle is impossible: a player has 0 to {most}",
                        said,
                    ),
                    subject=name,
                    code="count-out-of-range",
                )
            if n + stack > SET:
                said = {"name": name, "n": n, "stack": stack, "sum": n + stack}
                said |= {"set": SET, "most": SET - stack}
                raise IllegalEventError(
                    Words(
                        "{name}: {n} in the middle and {stack} in the stack make {sum} cards: "
                        "a set has {set}, so at most {most} in the middle",
                        said,
                    ),
                    subject=name,
                    code="more-than-a-set",
                )

    def enter_stacks(self, event: StacksEntered) -> None:
        self._check_scoring(Words("no stacks now"))
        if self.stacks is not None:
            raise IllegalEventError(
                Words(
                    "the stacks of round {round} are entered: enter the middle, "
                    "or undo to correct them",
                    {"round": self.round},
                ),
                code="stacks-entered",
            )
        counts = by_seat(self.players, event.counts, Words("the Ligretto stack"))
        self.check_stacks(counts, self.caller, self.round, tied=self.tie)
        self.stacks = counts

    def enter_middle(self, event: MiddleEntered) -> None:
        self._check_scoring(Words("no middle now"))
        if self.stacks is None:
            raise IllegalEventError(
                Words(
                    "the stacks of round {round} come first: enter the Ligretto stacks, "
                    "then the middle",
                    {"round": self.round},
                ),
                code="stacks-first",
            )
        counts = by_seat(self.players, event.counts, Words("the middle"))
        stacks = self.stacks
        self.check_middle(counts, stacks)
        self.middle = counts
        points = [m - 2 * s for m, s in zip(counts, stacks, strict=True)]
        self.score_round(points, stacks=self.by_name(stacks), middle=self.by_name(counts))

    def amended(self, entry: RoundResult, caller: int | None, event: RoundAmended) -> RoundResult:
        assert entry.stacks is not None and entry.middle is not None
        stacks = [entry.stacks[name] for name in self.players]
        middle = [entry.middle[name] for name in self.players]
        if event.stacks is not None:
            stacks = by_seat(self.players, event.stacks, Words("the Ligretto stack"))
            self.check_stacks(stacks, caller, event.round, tied=entry.was_tied)
        if event.middle is not None:
            middle = by_seat(self.players, event.middle, Words("the middle"))
        self.check_middle(middle, stacks)
        points = [m - 2 * s for m, s in zip(middle, stacks, strict=True)]
        return replace(
            entry,
            points=self.by_name(points),
            stacks=self.by_name(stacks),
            middle=self.by_name(middle),
        )

    def check_end(self) -> None:
        if self.rounds is not None:
            if len(self.history) >= self.rounds:
                self.end_game(self.rank())
            return
        assert self.target is not None
        leaders = self.rank()
        if max(self.totals) >= self.target and len(leaders) == 1:
            self.end_game(leaders)

    def player_json(self, seat: int) -> PlayerJson:
        out = super().player_json(seat)
        out["stack"] = None if self.stacks is None else self.stacks[seat]
        out["middle"] = None if self.middle is None else self.middle[seat]
        return out

    def to_json(self) -> StateJson:
        out = super().to_json()
        out["target"] = self.target
        out["rounds"] = self.rounds
        out["row"] = self.row
        reached = self.target is not None and max(self.totals) >= self.target
        out["tie_at_top"] = self.phase is not Phase.FINISHED and reached and len(self.rank()) > 1
        return out
