"""Ligretto Twist: rulebook 000.

Pile spaces: 4 with two players, 8 with three or four. A hand resting on a pile
blocks it: a press on a pile another seat holds is a *blocked* foul; of two
presses reaching a free pile the earlier holds it (the later is the blocked
foul). A seat may swap its own hands on a pile it holds. A seat has two hands:
a third pile at once is a foul. Each valid pile press is one card laid. The
first stop press wins the round; every other seat's cards left are negative
points. After 5 rounds the fewest negative points win; a tie shares.
"""

from __future__ import annotations

from typing import Any

from buzzerbox.rules.base import Game
from buzzerbox.rules.errors import InvalidEventError
from buzzerbox.rules.events import CardsLeftEntered, GameCreated, PadPressed, PadReleased

HANDS = 2


class Twist(Game):
    kind = "twist"
    min_players = 2
    max_players = 4
    pads = ("stop", "pile")

    def __init__(self, created: GameCreated) -> None:
        super().__init__(created)
        if created.target is not None:
            raise InvalidEventError(
                "Ligretto Twist is played for a number of rounds (5 unless agreed), "
                "not to a target",
                subject="target",
            )
        n = len(self.players)
        self.rounds = created.rounds or 5
        self.piles = 4 if n == 2 else 8
        self.dealt = 40 if n <= 3 else 38
        self.fouls = [0] * n
        self.new_round()

    def new_round(self) -> None:
        n = len(self.players)
        self.holder: dict[int, int] = {}  # pile -> seat whose hand rests on it
        self.laid = [0] * n
        self.round_fouls = [0] * n
        self.left: list[int] | None = None
        self.last_foul: dict[str, Any] | None = None

    def scoring_help(self) -> str:
        return "Ligretto Twist is scored with the cards left"

    def held(self, seat: int) -> list[int]:
        return sorted(p for p, s in self.holder.items() if s == seat)

    def foul(self, event: PadPressed, kind: str, by: int | None) -> None:
        self.fouls[event.seat] += 1
        self.round_fouls[event.seat] += 1
        self.last_foul = {
            **self.press_record(event),
            "foul": kind,
            "by": None if by is None else self.name(by),
        }

    def on_press(self, event: PadPressed) -> None:
        if event.pad == "stop":
            super().on_press(event)
            self.holder.clear()
            return
        assert event.pile is not None
        seat, pile = event.seat, event.pile
        holder = self.holder.get(pile)
        if holder is not None and holder != seat:
            self.foul(event, "blocked", holder)
        elif holder is None and len(self.held(seat)) >= HANDS:
            self.foul(event, "third hand", None)
        else:
            # a free pile, or the seat's own pile (a swap of its hands): a card laid
            self.holder[pile] = seat
            self.laid[seat] += 1

    def on_release(self, event: PadReleased) -> None:
        if event.pad == "pile" and self.holder.get(event.pile or 0) == event.seat:
            del self.holder[event.pile or 0]

    def end_round(self, caller: int | None) -> None:
        super().end_round(caller)
        self.holder.clear()

    def live_left(self, seat: int) -> int:
        if self.left is not None:
            return self.left[seat]
        return max(self.dealt - self.laid[seat], 0)

    def enter_left(self, event: CardsLeftEntered) -> None:
        counts = self.cards_left(event, self.dealt)
        self.left = counts
        self.score_round(
            [-n for n in counts], {"left": dict(zip(self.players, counts, strict=True))}
        )

    def check_end(self) -> None:
        if self.round >= self.rounds:
            self.end_game(self.rank())

    def player_json(self, seat: int) -> dict[str, Any]:
        out = super().player_json(seat)
        out["left"] = self.live_left(seat)
        out["laid"] = self.laid[seat]
        out["fouls"] = self.fouls[seat]
        out["round_fouls"] = self.round_fouls[seat]
        out["holding"] = self.held(seat)
        return out

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["rounds"] = self.rounds
        out["piles"] = self.piles
        out["dealt"] = self.dealt
        out["blocked"] = sorted(self.holder)
        out["last_foul"] = self.last_foul
        return out
