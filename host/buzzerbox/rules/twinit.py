"""Twin It!: rulebook 003.

A slap opens a claim: the earliest slap since the last settled claim is the
claimant (the lower hand: the earlier press), and every slap within 1 s of it
is ranked; two slaps at the same µs, or closer than their timing errors allow, are a
tie the table settles (`split` is the
rulebook's answer). The table settles the claim: pair (a take of 2), steal (a
take of 2 moves from its owner to the claimant with the third card: a take of 3;
the owner who is first keeps it and it grows to 3), error (the claimant loses
its most recent take), split (nobody scores). The first player with 5 takes wins.

An undo while a claim is open takes back the last settled claim, which is open
again, and keeps the open claim queued behind it (v1.1): it opens when the other
is settled. `void` takes a stray slap out of its claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from buzzerbox.errors import Words
from buzzerbox.rules.base import Game
from buzzerbox.rules.errors import IllegalEventError, InvalidEventError
from buzzerbox.rules.events import ClaimSettled, GameCreated, PadPressed, RoundStarted
from buzzerbox.rules.phase import Phase
from buzzerbox.rules.press import Press, Race
from buzzerbox.rules.statejson import ClaimJson, PlayerJson, SettledClaimJson, StateJson
from buzzerbox.rules.timing import too_close

WINDOW_US = 1_000_000
TAKES_TO_WIN = 5
#: a claim's slaps, ranked: the claimant's first (one list, changed in place while open)
Claim = Race


@dataclass(frozen=True, slots=True)
class SettledClaim:
    """The last claim the table settled: its `number`, claimant, result (pair, steal,
    error, split), the victim of a steal and the slaps."""

    number: int
    claimant: str
    result: str
    victim: str | None
    slaps: Claim

    def to_json(self) -> SettledClaimJson:
        return {
            "number": self.number,
            "claimant": self.claimant,
            "result": self.result,
            "victim": self.victim,
            "slaps": [s.to_json() for s in self.slaps],
        }


class TwinIt(Game):
    kind = "twinit"
    min_players = 2
    max_players = 6
    pads = ("slap",)
    in_place = ("claim", "queued_ids")
    in_place_deep = ("takes", "queued")

    def __init__(self, created: GameCreated) -> None:
        super().__init__(created)
        if created.target is not None or created.rounds is not None:
            raise InvalidEventError(
                Words(
                    "Twin It! is won by the first to {takes} takes: "
                    "it takes no target and no rounds",
                    {"takes": TAKES_TO_WIN},
                ),
                subject="target" if created.target is not None else "rounds",
                code="no-target",
            )
        self.first = created.first
        self.takes: list[list[int]] = [[] for _ in self.players]
        self.claim: Claim | None = None
        #: claims kept behind the open one by an undo, oldest first
        self.queued: list[Claim] = []
        #: the slaps of the claims an undo queued: (seat, t_us) -> the claim's first slap,
        #: so that a fold again (void) queues them too; replaced, never changed in place
        self.requeue: dict[tuple[int, int], tuple[int, int]] = {}
        #: the first slap of each queued claim when it was queued (`requeue`'s values)
        self.queued_ids: list[tuple[int, int]] = []
        self.last_claim: SettledClaim | None = None
        self.settled = 0

    def start_round(self, event: RoundStarted) -> None:
        if self.phase is not Phase.LOBBY:
            raise self.refuse(
                Words("no new round"),
                Words("Twin It! is one round, from the start signal to 5 takes"),
            )
        super().start_round(event)

    def scoring_help(self) -> Words:
        return Words("Twin It! is scored by settling each claim: pair, steal, error or split")

    def name_caller(self, event: Any) -> None:
        raise self.unsupported(
            Words("{title} has no caller"), Words("a slap opens a claim and the table settles it")
        )

    def on_press(self, event: PadPressed) -> None:
        if self.claim is None:
            self.claim = [self.press_of(event, 0)]
            self.race = self.claim
            return
        if self.requeue and (event.seat, event.t_us) in self.requeue:
            group = self.requeue[event.seat, event.t_us]
            if self.queued and self.queued_ids[-1] == group:
                lead = event.t_us - self.queued[-1][0].t_us
                self.queued[-1].append(self.press_of(event, lead))
            else:
                self.queued.append([self.press_of(event, 0)])
                self.queued_ids.append(group)
            return
        latest = self.queued[-1] if self.queued else self.claim
        lead = event.t_us - latest[0].t_us
        if lead <= WINDOW_US and all(s.seat != event.seat for s in latest):
            latest.append(self.press_of(event, lead))
            self.race = self.claim  # one list: an undo's copy must not split them
        else:
            self.ignored += 1

    def requeue_open_claim(self, later: TwinIt) -> None:
        """Undo while a claim is open: this game is the copy from before the last settled
        claim; the claims open or queued in `later` wait behind the one reopened."""
        assert later.claim is not None
        waiting = [later.claim, *later.queued]  # the claims queued here, grown since, or new
        self.queued = waiting
        self.queued_ids = [c[0].key for c in waiting]
        slaps = {
            s.key: head for claim, head in zip(waiting, self.queued_ids, strict=True) for s in claim
        }
        self.requeue = {**self.requeue, **slaps}
        self.last_pad_t = later.last_pad_t
        self.ignored = later.ignored

    def snapshot(self) -> Game:
        twin = super().snapshot()
        assert isinstance(twin, TwinIt)
        if self.race is self.claim:  # one list: the copy's race is the copy's claim
            twin.race = twin.claim or []
        return twin

    def keep_notes(self, later: Game, presses: tuple[Press, ...]) -> None:
        super().keep_notes(later, presses)
        assert isinstance(later, TwinIt)
        self.requeue = later.requeue

    def settle_claim(self, event: ClaimSettled) -> None:
        if self.phase is not Phase.PLAYING or self.claim is None:
            if self.phase is Phase.PLAYING:
                raise IllegalEventError(
                    Words(
                        "no claim is open: a claim opens with a slap; nobody has slapped since "
                        "the last claim was settled"
                    ),
                    code="no-claim-open",
                )
            raise self.refuse(
                Words("no claim now"), Words("claims are settled while the game is playing")
            )
        claimant = self.claim[0].seat
        takes = self.takes[claimant]
        if event.result == "pair":
            takes.append(2)
        elif event.result == "steal":
            self._steal(claimant, event.victim)
        elif event.result == "error" and takes:
            takes.pop()
        self.settled += 1
        self.last_claim = SettledClaim(
            self.settled, self.name(claimant), event.result, event.victim, self.claim
        )
        self.claim = None
        if self.queued:
            self.claim = self.race = self.queued.pop(0)
            self.queued_ids.pop(0)
        self.totals = [len(t) for t in self.takes]
        if len(takes) >= TAKES_TO_WIN:
            self.end_game([self.name(claimant)])

    def _steal(self, claimant: int, victim_name: str | None) -> None:
        if victim_name not in self.players:
            said = {"name": victim_name, "players": ", ".join(self.players)}
            raise InvalidEventError(
                Words("{name} does not play in this game: the victim is one of {players}", said),
                subject="victim",
                code="not-a-player",
            )
        victim = self.players.index(victim_name)
        owned = self.takes[victim]
        pairs = [i for i, size in enumerate(owned) if size == 2]
        if not pairs:
            raise IllegalEventError(
                Words(
                    "{name} has no take of 2 cards to steal from: a steal takes a pair "
                    "won before and its third card",
                    {"name": victim_name},
                ),
                subject=victim_name,
                code="nothing-to-steal",
            )
        if victim == claimant:
            owned[pairs[-1]] = 3
        else:
            del owned[pairs[-1]]
            self.takes[claimant].append(3)

    def dropped_round(self) -> None:
        self.claim = None
        self.queued, self.queued_ids = [], []

    def player_json(self, seat: int) -> PlayerJson:
        out = super().player_json(seat)
        out["takes"] = list(self.takes[seat])
        return out

    def to_json(self) -> StateJson:
        out = super().to_json()
        out["takes_to_win"] = TAKES_TO_WIN
        out["first"] = self.first
        out["first_name"] = None if self.first is None else self.name(self.first)
        out["claim"] = claim_json(self.claim)
        out["queued"] = [claim_json(c) for c in self.queued]
        out["last_claim"] = None if self.last_claim is None else self.last_claim.to_json()
        return out


def claim_json(claim: Claim | None) -> ClaimJson | None:
    """An open claim as the state shows it: claimant, ranked slaps, and whether the
    first two are too close to call (a tie: the same µs, or closer than their timing
    errors allow; the rulebook's answer is a split, turned over on 3)."""
    if claim is None:
        return None
    return {
        "claimant": claim[0].name,
        "slaps": [s.to_json() for s in claim],
        "tie": len(claim) > 1 and too_close(claim[0], claim[1]),
    }
