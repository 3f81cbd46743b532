"""Ligretto Kids: rulebook 001.

2 to 5 players, 30 cards each. The first stop press ends the round and wins it;
or the round stalls and the fewest cards left win it. The cards left are
written down (0 too for a player who did not call: v1.2 reading, see
counts.check_left); after 3 rounds the fewest in total win, a tie shares.
"""

from __future__ import annotations

from dataclasses import replace

from buzzerbox.errors import Words
from buzzerbox.rules.base import Game
from buzzerbox.rules.counts import by_seat, caller_or_fewest_left, check_left
from buzzerbox.rules.errors import InvalidEventError
from buzzerbox.rules.events import CardsLeftEntered, GameCreated, RoundAmended
from buzzerbox.rules.phase import Phase
from buzzerbox.rules.result import RoundResult
from buzzerbox.rules.statejson import PlayerJson, StateJson

CARDS = 30


class Kids(Game):
    kind = "kids"
    min_players = 2
    max_players = 5
    pads = ("stop",)
    can_stall = True
    high_wins = False
    amends = ("left",)

    def __init__(self, created: GameCreated) -> None:
        super().__init__(created)
        if created.target is not None:
            raise InvalidEventError(
                Words(
                    "Ligretto Kids is played for a number of rounds (3 unless agreed), "
                    "not to a target"
                ),
                subject="target",
                code="no-target",
            )
        self.rounds = created.rounds or 3
        self.left: list[int] | None = None

    def new_round(self) -> None:
        self.left = None

    def scoring_help(self) -> Words:
        return Words("Ligretto Kids is scored with the cards left")

    def enter_left(self, event: CardsLeftEntered) -> None:
        if self.phase is not Phase.SCORING:
            raise self.refuse(
                Words("no cards left now"), Words("they are counted when a round is over")
            )
        counts = by_seat(self.players, event.counts, Words("the cards left"))
        check_left(self.players, counts, CARDS, self.caller, self.round, tied=self.tie)
        self.left = counts
        self.score_round(counts, left=self.by_name(counts))

    def amended(self, entry: RoundResult, caller: int | None, event: RoundAmended) -> RoundResult:
        assert event.left is not None
        counts = by_seat(self.players, event.left, Words("the cards left"))
        check_left(self.players, counts, CARDS, caller, event.round, tied=entry.was_tied)
        left = self.by_name(counts)
        return replace(entry, points=left, left=left)

    def round_winners(self, entry: RoundResult) -> tuple[str, ...]:
        """The caller, or after a stall the fewest cards left (001)."""
        return caller_or_fewest_left(self.players, entry)

    def check_end(self) -> None:
        if len(self.history) >= self.rounds:
            self.end_game(self.rank())

    def player_json(self, seat: int) -> PlayerJson:
        out = super().player_json(seat)
        out["left"] = None if self.left is None else self.left[seat]
        return out

    def to_json(self) -> StateJson:
        out = super().to_json()
        out["rounds"] = self.rounds
        out["cards"] = CARDS
        return out
