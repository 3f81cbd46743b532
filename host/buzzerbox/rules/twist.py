"""Ligretto Twist: rulebook 000.

Pile spaces: 4 with two players, 8 with three or four. A hand resting on a pile
blocks it for every other seat, whether or not that hand's own press counted (a
fouled hand left lying still blocks): a press there is a *blocked* foul. Of two
presses reaching a free pile the earlier holds it (the later is the blocked foul);
two at the same µs are a tie and neither counts, and so are two too close to call
(timing.too_close: no further apart than their timing errors, issue 41). A seat may
swap its own hands on a pile it holds (release and press again, or a new press while
its other hand is free); with both hands already down there is no free hand, so such
a press is no card (and no foul). A third pile at once is a foul. Each valid pile press is one
card laid. The first stop press wins the round; every other seat's cards left are
negative points (0 too, for a hand emptied just after the call: v1.2 reading, see
counts.check_left). After 5 rounds the fewest negative points win; a tie shares.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from buzzerbox.errors import Words
from buzzerbox.rules.base import Game
from buzzerbox.rules.counts import by_seat, caller_or_fewest_left, check_left
from buzzerbox.rules.errors import InvalidEventError
from buzzerbox.rules.events import (
    CardsLeftEntered,
    GameCreated,
    PadPressed,
    PadReleased,
    RoundAmended,
)
from buzzerbox.rules.phase import Phase
from buzzerbox.rules.press import Press
from buzzerbox.rules.result import RoundResult
from buzzerbox.rules.statejson import FoulJson, PlayerJson, StateJson
from buzzerbox.rules.timing import too_close

HANDS = 2


@dataclass(frozen=True, slots=True)
class Foul:
    """A foul press on a pile: its `kind` ("blocked", "third hand") and, for a blocked
    pile, the player whose hand lay there (`by`)."""

    press: Press
    kind: str
    by: str | None

    def to_json(self) -> FoulJson:
        return {**self.press.to_json(), "foul": self.kind, "by": self.by}


class Twist(Game):
    kind = "twist"
    min_players = 2
    max_players = 4
    pads = ("stop", "pile")
    amends = ("left",)
    in_place = ("fouls", "holder", "down", "hands", "taken_at", "tied", "laid", "round_fouls")

    def __init__(self, created: GameCreated) -> None:
        super().__init__(created)
        if created.target is not None:
            raise InvalidEventError(
                Words(
                    "Ligretto Twist is played for a number of rounds (5 unless agreed), "
                    "not to a target"
                ),
                subject="target",
                code="no-target",
            )
        n = len(self.players)
        self.rounds = created.rounds or 5
        self.piles = 4 if n == 2 else 8
        self.dealt = 40 if n <= 3 else 38
        self.fouls = [0] * n
        self.new_round()

    def new_round(self) -> None:
        n = len(self.players)
        self.holder: dict[int, int] = {}  # pile -> the seat whose counted press holds it
        self.down: dict[tuple[int, int], int] = {}  # (pile, seat) -> t_us: a hand lies there
        self.hands = [0] * n  # hands each seat has down on piles
        self.taken_at: dict[int, Press] = {}  # pile -> its holder's press on it while free
        self.tied: dict[int, Press] = {}  # pile -> a press of a tie on it: neither counts
        self.laid = [0] * n
        self.round_fouls = [0] * n
        self.left: list[int] | None = None
        self.last_foul: Foul | None = None

    def scoring_help(self) -> Words:
        return Words("Ligretto Twist is scored with the cards left")

    def held(self, seat: int) -> list[int]:
        return sorted(p for p, s in self.holder.items() if s == seat)

    def foul(self, press: Press, kind: str, by: int | None) -> None:
        self.fouls[press.seat] += 1
        self.round_fouls[press.seat] += 1
        self.last_foul = Foul(press, kind, None if by is None else self.name(by))

    def on_press(self, event: PadPressed) -> None:
        if event.pad == "stop":
            super().on_press(event)
            return
        seat, pile, t_us = event.seat, event.pile or 0, event.t_us
        press = self.press_of(event)
        holder = self.holder.get(pile)
        down, hands = self.down, self.hands
        if (pile, seat) in down:
            # a second press where the seat's hand already lies: a swap needs a free hand
            if hands[seat] >= HANDS:
                self.ignored += 1
            elif holder == seat:
                self.laid[seat] += 1
            else:
                self._take(press, pile, holder)
            return
        down[pile, seat] = t_us
        hands[seat] += 1
        if hands[seat] > HANDS:
            self.foul(press, "third hand", None)
        elif holder is not None and too_close(self.taken_at[pile], press):
            # two hands reach a free pile at the same µs, or too close to call: neither
            # card counts
            self.laid[holder] -= 1
            del self.holder[pile]
            self.tied[pile] = self.taken_at[pile]
        elif pile not in self.tied or not too_close(self.tied[pile], press):
            self._take(press, pile, holder)

    def _take(self, press: Press, pile: int, holder: int | None) -> None:
        """A card laid on a free pile, or a foul if another seat's hand is on it."""
        seat = press.seat
        if holder is None:
            for p, s in self.down:  # a hand of another seat lying there: the pile is blocked
                if p == pile and s != seat:
                    holder = s
                    break
        if holder is not None and holder != seat:
            self.foul(press, "blocked", holder)
            return
        self.holder[pile] = seat
        self.taken_at[pile] = press
        self.laid[seat] += 1

    def on_release(self, event: PadReleased) -> None:
        if event.pad != "pile":
            return
        key = (event.pile or 0, event.seat)
        if key in self.down:
            del self.down[key]
            self.hands[event.seat] -= 1
        if self.holder.get(key[0]) == event.seat:
            del self.holder[key[0]]

    def end_round(self, caller: int | None, *, stalled: bool = False) -> None:
        super().end_round(caller, stalled=stalled)
        self.holder, self.down, self.hands = {}, {}, [0] * len(self.players)

    def live_left(self, seat: int) -> int:
        if self.left is not None:
            return self.left[seat]
        return max(self.dealt - self.laid[seat], 0)

    def enter_left(self, event: CardsLeftEntered) -> None:
        if self.phase is not Phase.SCORING:
            raise self.refuse(
                Words("no cards left now"), Words("they are counted when a round is over")
            )
        counts = by_seat(self.players, event.counts, Words("the cards left"))
        check_left(self.players, counts, self.dealt, self.caller, self.round, tied=self.tie)
        self.left = counts
        self.score_round([-n for n in counts], left=self.by_name(counts))

    def amended(self, entry: RoundResult, caller: int | None, event: RoundAmended) -> RoundResult:
        assert event.left is not None
        counts = by_seat(self.players, event.left, Words("the cards left"))
        check_left(self.players, counts, self.dealt, caller, event.round, tied=entry.was_tied)
        return replace(entry, points=self.by_name([-n for n in counts]), left=self.by_name(counts))

    def round_winners(self, entry: RoundResult) -> tuple[str, ...]:
        """The caller; with no caller (a tie nobody was named for), the fewest cards left."""
        return caller_or_fewest_left(self.players, entry)

    def check_end(self) -> None:
        if len(self.history) >= self.rounds:
            self.end_game(self.rank())

    def player_json(self, seat: int) -> PlayerJson:
        out = super().player_json(seat)
        out["left"] = self.live_left(seat)
        out["laid"] = self.laid[seat]
        out["fouls"] = self.fouls[seat]
        out["round_fouls"] = self.round_fouls[seat]
        out["holding"] = self.held(seat)
        out["hands"] = sorted(p for p, s in self.down if s == seat)
        return out

    def to_json(self) -> StateJson:
        out = super().to_json()
        out["rounds"] = self.rounds
        out["piles"] = self.piles
        out["dealt"] = self.dealt
        out["blocked"] = sorted({p for p, _ in self.down})
        out["last_foul"] = None if self.last_foul is None else self.last_foul.to_json()
        return out
