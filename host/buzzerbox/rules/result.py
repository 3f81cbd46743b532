"""A scored round: what the table entered and what it made of the totals.

A `RoundResult` is made once, when a round is scored, and never changed: an amend or
a rescore makes a new one (`dataclasses.replace`), so undo's copies share the old. It
leaves the process only as JSON (`to_json`: the state's `history`, game-log.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from buzzerbox.rules.statejson import RoundJson

#: the count fields a round may carry, in the order the state object lists them
COUNTS = ("stacks", "middle", "left")


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One scored round. `points` and `totals` are by player name, as are the counts
    entered: Ligretto's `stacks` and `middle`, the cards `left` of Kids and Twist."""

    round: int
    #: the caller's name; None after a stall or a stop tie nobody was named for
    caller: str | None
    stalled: bool
    points: Mapping[str, int]
    totals: Mapping[str, int]
    #: who won the round: the caller, else (a stall, a tie) as the game's rules say
    winners: tuple[str, ...] = ()
    stacks: Mapping[str, int] | None = None
    middle: Mapping[str, int] | None = None
    left: Mapping[str, int] | None = None

    @property
    def was_tied(self) -> bool:
        """Whether the round ended in a stop tie nobody was named for: no caller, and
        no stall."""
        return self.caller is None and not self.stalled

    def to_json(self) -> RoundJson:
        out: dict[str, object] = {
            "round": self.round,
            "caller": self.caller,
            "stalled": self.stalled,
            "points": dict(self.points),
            "totals": dict(self.totals),
        }
        for key in COUNTS:
            counts = getattr(self, key)
            if counts is not None:
                out[key] = dict(counts)
        out["winners"] = list(self.winners)  # last, after the counts (the history's order)
        return cast(RoundJson, out)
