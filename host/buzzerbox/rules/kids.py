"""Ligretto Kids: rulebook 001.

2 to 5 players, 30 cards each. The first stop press ends the round and wins it;
or the round stalls and the fewest cards left win it. The cards left are
written down; after 3 rounds the fewest in total win, a tie shares.
"""

from __future__ import annotations

from typing import Any

from buzzerbox.rules.base import Game
from buzzerbox.rules.errors import InvalidEventError
from buzzerbox.rules.events import CardsLeftEntered, GameCreated

CARDS = 30


class Kids(Game):
    kind = "kids"
    min_players = 2
    max_players = 5
    pads = ("stop",)
    can_stall = True
    high_wins = False

    def __init__(self, created: GameCreated) -> None:
        super().__init__(created)
        if created.target is not None:
            raise InvalidEventError(
                "Ligretto Kids is played for a number of rounds (3 unless agreed), not to a target",
                subject="target",
            )
        self.rounds = created.rounds or 3
        self.left: list[int] | None = None

    def new_round(self) -> None:
        self.left = None

    def scoring_help(self) -> str:
        return "Ligretto Kids is scored with the cards left"

    def enter_left(self, event: CardsLeftEntered) -> None:
        counts = self.cards_left(event, CARDS)
        self.left = counts
        fewest = min(counts)
        round_winners = (
            [self.name(self.caller)]
            if self.caller is not None
            else [n for n, c in zip(self.players, counts, strict=True) if c == fewest]
        )
        self.score_round(
            counts,
            {"left": dict(zip(self.players, counts, strict=True)), "winners": round_winners},
        )

    def check_end(self) -> None:
        if self.round >= self.rounds:
            self.end_game(self.rank())

    def player_json(self, seat: int) -> dict[str, Any]:
        out = super().player_json(seat)
        out["left"] = None if self.left is None else self.left[seat]
        return out

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["rounds"] = self.rounds
        out["cards"] = CARDS
        return out
