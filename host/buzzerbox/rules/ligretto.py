"""Ligretto (classic): rulebooks 002 (Danish) and 004 (German, with the scoreboard).

A round ends at the first stop press, by stall, or by the table naming the
caller. Scoring is entered in two steps: the Ligretto stacks, then the middle;
round points = middle − 2 × stack. The game is played to a target (50, 99 or
150; the highest total wins once someone has reached it, a tie at the top plays
on) or for a fixed number of rounds (the highest total wins, a tie shares).
"""

from __future__ import annotations

from typing import Any

from buzzerbox.rules.base import Game
from buzzerbox.rules.errors import IllegalEventError, InvalidEventError
from buzzerbox.rules.events import GameCreated, MiddleEntered, StacksEntered

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

    def __init__(self, created: GameCreated) -> None:
        super().__init__(created)
        if created.target is not None and created.rounds is not None:
            raise InvalidEventError(
                "ligretto plays either to a target or for a number of rounds, not both",
                subject="target",
            )
        if created.target is not None and created.target not in TARGETS:
            raise InvalidEventError(
                f"target {created.target} is not offered: ligretto plays to 50, 99 or 150",
                subject="target",
            )
        self.rounds = created.rounds
        self.target = None if created.rounds is not None else (created.target or 99)
        self.row = row_size(len(self.players))
        self.stacks: list[int] | None = None
        self.middle: list[int] | None = None

    def new_round(self) -> None:
        self.stacks = None
        self.middle = None

    def scoring_help(self) -> str:
        return "Ligretto is scored with the stacks, then the middle"

    def _check_scoring(self, step: str) -> None:
        if self.phase == "scoring":
            return
        allowed = {
            "lobby": "start a round first",
            "countdown": "the round has not even started",
            "playing": "it ends with a stop call, a named caller or a stall first",
            "scored": "its scores are entered; take them back with undo",
            "finished": "start a new game",
        }[self.phase]
        raise self.refuse(f"no {step} now", allowed)

    def enter_stacks(self, event: StacksEntered) -> None:
        self._check_scoring("stacks")
        if self.stacks is not None:
            raise IllegalEventError(
                f"the stacks of round {self.round} are entered: enter the middle, "
                "or undo to correct them"
            )
        counts = self.counts_by_seat(event.counts, "the Ligretto stack")
        caller = self.caller
        for seat, n in enumerate(counts):
            name = self.name(seat)
            if not 0 <= n <= STACK:
                raise IllegalEventError(
                    f"{name}: {n} cards in the Ligretto stack is impossible: it holds 0 to {STACK}",
                    subject=name,
                )
            if seat == caller and n != 0:
                raise IllegalEventError(
                    f"{name} called Ligretto Stop, so {name}'s stack is empty: enter 0 for {name}",
                    subject=name,
                )
            if n == 0 and seat != caller:
                if caller is None:
                    raise IllegalEventError(
                        f"{name}: 0 cards is only possible for the caller, and nobody called "
                        f"in round {self.round}: enter 1 to {STACK}, or undo and name the caller",
                        subject=name,
                    )
                raise IllegalEventError(
                    f"two empty Ligretto stacks: 0 cards is only possible for the caller, "
                    f"{self.name(caller)}; {name} has 1 to {STACK} cards left",
                    subject=name,
                )
        self.stacks = counts

    def enter_middle(self, event: MiddleEntered) -> None:
        self._check_scoring("middle")
        if self.stacks is None:
            raise IllegalEventError(
                f"the stacks of round {self.round} come first: enter the Ligretto stacks, "
                "then the middle"
            )
        counts = self.counts_by_seat(event.counts, "the middle")
        for seat, n in enumerate(counts):
            name = self.name(seat)
            if not 0 <= n <= SET:
                raise IllegalEventError(
                    f"{name}: {n} cards in the middle is impossible: a player has 0 to {SET}",
                    subject=name,
                )
            stack = self.stacks[seat]
            if n + stack > SET:
                raise IllegalEventError(
                    f"{name}: {n} in the middle and {stack} in the stack make {n + stack} cards: "
                    f"a set has {SET}, so at most {SET - stack} in the middle",
                    subject=name,
                )
        self.middle = counts
        stacks = self.stacks
        points = [m - 2 * s for m, s in zip(counts, stacks, strict=True)]
        self.score_round(
            points,
            {
                "stacks": dict(zip(self.players, stacks, strict=True)),
                "middle": dict(zip(self.players, counts, strict=True)),
            },
        )

    def check_end(self) -> None:
        if self.rounds is not None:
            if self.round >= self.rounds:
                self.end_game(self.rank())
            return
        assert self.target is not None
        leaders = self.rank()
        if max(self.totals) >= self.target and len(leaders) == 1:
            self.end_game(leaders)

    def player_json(self, seat: int) -> dict[str, Any]:
        out = super().player_json(seat)
        out["stack"] = None if self.stacks is None else self.stacks[seat]
        out["middle"] = None if self.middle is None else self.middle[seat]
        return out

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["target"] = self.target
        out["rounds"] = self.rounds
        out["row"] = self.row
        reached = self.target is not None and max(self.totals) >= self.target
        out["tie_at_top"] = self.phase != "finished" and reached and len(self.rank()) > 1
        return out
