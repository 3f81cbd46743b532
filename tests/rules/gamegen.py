"""Random valid game logs for all four games, for property tests and benchmarks.

    generate("twist", 5, seed=7)   # a whole Ligretto Twist game of 5 rounds

Every log it returns replays without a rejected line and ends with the game
finished. The games are played out with many pad events (false starts, late
stop presses, pile presses with their fouls, slap races) and with table
entries that are taken back and entered again. The generator keeps its own
books (takes, who pressed what) and never asks the rules engine, so a log is
evidence about the engine, not a copy of it.
"""

from __future__ import annotations

import random
from typing import Any

Log = list[dict[str, Any]]

NAMES = ("Ann", "Ben", "Cid", "Dora", "Eli", "Fay", "Gus", "Hal", "Ida", "Jo", "Kim", "Lou")
PLAYERS = {"ligretto": (2, 12), "twist": (2, 4), "kids": (2, 5), "twinit": (2, 6)}
GAMES = tuple(PLAYERS)
WINDOW_US = 1_000_000


class _Table:
    """The log being written and the host clock it is written on."""

    def __init__(self, rng: random.Random, players: int) -> None:
        self.rng = rng
        self.names = list(NAMES[:players])
        self.log: Log = []
        self.t = rng.randrange(0, 1_000_000_000)
        self.down: set[tuple[int, str, int | None]] = set()

    def add(self, **event: Any) -> None:
        self.log.append(event)

    def tick(self, low: int = 1, high: int = 200_000) -> int:
        self.t += self.rng.randint(low, high)
        return self.t

    def press(self, seat: int, pad: str, pile: int | None = None, *, same_t: bool = False) -> None:
        t = self.t if same_t else self.tick()
        event: dict[str, Any] = {"type": "press", "seat": seat, "pad": pad, "t_us": t}
        if pile is not None:
            event["pile"] = pile
        self.log.append(event)
        self.down.add((seat, pad, pile))

    def release(self, seat: int, pad: str, pile: int | None = None) -> None:
        event: dict[str, Any] = {"type": "release", "seat": seat, "pad": pad, "t_us": self.tick()}
        if pile is not None:
            event["pile"] = pile
        self.log.append(event)
        self.down.discard((seat, pad, pile))

    def release_all(self) -> None:
        for seat, pad, pile in sorted(self.down, key=lambda d: (d[0], d[1], d[2] or 0)):
            self.release(seat, pad, pile)

    def start(self, pad: str) -> None:
        """`round`, maybe a false start or two, then `go`."""
        self.add(type="round")
        for _ in range(self.rng.choice((0, 0, 1, 2))):
            seat = self.rng.randrange(len(self.names))
            self.press(seat, pad, 0 if pad == "pile" else None)
            self.release(seat, pad, 0 if pad == "pile" else None)
        self.add(type="go", t_us=self.tick())

    def stop(self, can_stall: bool) -> int | None:
        """End a round: a stop press with late ones, a named caller, or a stall."""
        roll = self.rng.random()
        if can_stall and roll < 0.15:
            self.add(type="stall")
            caller = None
        elif roll < 0.3:
            caller = self.rng.randrange(len(self.names))
            self.add(type="caller", seat=caller)
        else:
            caller = self.rng.randrange(len(self.names))
            self.press(caller, "stop")
            others = [s for s in range(len(self.names)) if s != caller]
            for seat in self.rng.sample(others, self.rng.randint(0, len(others))):
                self.press(seat, "stop", same_t=self.rng.random() < 0.1)
        self.release_all()
        return caller

    def entry(self, kind: str, counts: list[int], wrong: list[int] | None) -> None:
        """A counts entry; if `wrong` is given, first a wrong one that is taken back."""
        if wrong is not None:
            self.add(type=kind, counts=dict(zip(self.names, wrong, strict=True)))
            self.add(type="undo")
        self.add(type=kind, counts=dict(zip(self.names, counts, strict=True)))

    def left(self, caller: int | None, most: int) -> list[int]:
        return [0 if s == caller else self.rng.randint(1, most) for s in range(len(self.names))]


def _ligretto(table: _Table, rounds: int, target: int | None) -> None:
    rng = table.rng
    head: dict[str, Any] = {"type": "game", "game": "ligretto", "players": table.names}
    head.update({"target": target} if target is not None else {"rounds": rounds})
    table.log.insert(0, head)
    totals = [0] * len(table.names)
    for _ in range(rounds):
        table.start("stop")
        caller = table.stop(can_stall=True)
        stacks = table.left(caller, 10)
        middle = [rng.randint(0, 40 - s) for s in stacks]
        table.entry("stacks", stacks, table.left(caller, 10) if rng.random() < 0.2 else None)
        wrong = [rng.randint(0, 40 - s) for s in stacks] if rng.random() < 0.1 else None
        table.entry("middle", middle, wrong)
        totals = [t + m - 2 * s for t, m, s in zip(totals, middle, stacks, strict=True)]
        best = max(totals)
        if target is not None and best >= target and totals.count(best) == 1:
            return
    if target is not None:
        table.add(type="finish")


def _twist(table: _Table, rounds: int) -> None:
    rng = table.rng
    n = len(table.names)
    piles = 4 if n == 2 else 8
    dealt = 40 if n <= 3 else 38
    table.log.insert(0, {"type": "game", "game": "twist", "players": table.names, "rounds": rounds})
    for _ in range(rounds):
        table.start("pile")
        for _ in range(rng.randint(10, 80)):
            seat = rng.randrange(n)
            mine = sorted(p for s, pad, p in table.down if s == seat and p is not None)
            # both hands down: lift one, or now and then reach with a third (a foul)
            if mine and ((len(mine) >= 2 and rng.random() < 0.9) or rng.random() < 0.4):
                table.release(seat, "pile", rng.choice(mine))
            else:
                pile = rng.randrange(piles)
                if (seat, "pile", pile) in table.down:
                    table.release(seat, "pile", pile)  # a swap of the seat's own hands
                table.press(seat, "pile", pile)
        caller = table.stop(can_stall=False)
        wrong = table.left(caller, dealt) if rng.random() < 0.2 else None
        table.entry("left", table.left(caller, dealt), wrong)


def _kids(table: _Table, rounds: int) -> None:
    rng = table.rng
    table.log.insert(0, {"type": "game", "game": "kids", "players": table.names, "rounds": rounds})
    for _ in range(rounds):
        table.start("stop")
        caller = table.stop(can_stall=True)
        wrong = table.left(caller, 30) if rng.random() < 0.2 else None
        table.entry("left", table.left(caller, 30), wrong)


def _claim(table: _Table, takes: list[list[int]], claimant: int, last: bool) -> None:
    """Settle the open claim with a result the rules accept, and book its takes."""
    rng = table.rng
    mine = takes[claimant]
    may_win = last or len(mine) < 4
    victims = [s for s, owned in enumerate(takes) if 2 in owned]
    choices = ["error", "split"] + (["pair", "pair", "pair"] if may_win else [])
    if victims and (may_win or claimant in victims):
        choices.append("steal")
    result = rng.choice(choices)
    if result == "steal":
        allowed = victims if may_win else [claimant]
        victim = rng.choice(allowed)
        owned = takes[victim]
        where = len(owned) - 1 - owned[::-1].index(2)
        if victim == claimant:
            owned[where] = 3
        else:
            del owned[where]
            mine.append(3)
        table.add(type="claim", result="steal", victim=table.names[victim])
        return
    if rng.random() < 0.1:  # a hasty entry the table takes back
        table.add(type="claim", result=rng.choice(("split", "error")))
        table.add(type="undo")
    if result == "pair":
        mine.append(2)
    elif result == "error" and mine:
        mine.pop()
    table.add(type="claim", result=result)


def _twinit(table: _Table, claims: int) -> None:
    rng = table.rng
    n = len(table.names)
    table.log.insert(0, {"type": "game", "game": "twinit", "players": table.names})
    table.start("slap")
    takes: list[list[int]] = [[] for _ in range(n)]
    for i in range(claims):
        table.tick(200_000, 3_000_000)
        seats = rng.sample(range(n), rng.randint(1, n))
        table.press(seats[0], "slap", same_t=True)
        for seat in seats[1:]:  # a race: every later slap within the window
            if rng.random() < 0.05:
                table.press(seat, "slap", same_t=True)
            else:
                table.t += rng.randint(1, (WINDOW_US - 1) // 5)
                table.press(seat, "slap", same_t=True)
        table.release_all()
        _claim(table, takes, seats[0], last=i == claims - 1)
        if max(len(t) for t in takes) >= 5:
            return
    table.add(type="finish")


def generate(game: str, rounds_or_claims: int, seed: int, *, target: int | None = None) -> Log:
    """A valid whole game log: `rounds_or_claims` rounds (Twin It!: claims).

    Ligretto plays that many fixed rounds, or with `target` (50, 99, 150) until
    the target ends it, at most that many rounds, then `finish`. Twin It! ends
    when someone takes a fifth take in the last claim, or with `finish`.
    """
    if game not in PLAYERS:
        raise ValueError(f"game {game!r} is unknown: generate one of {', '.join(GAMES)}")
    if rounds_or_claims < 1:
        raise ValueError(f"{rounds_or_claims} rounds or claims: give 1 or more")
    rng = random.Random(f"{game}:{rounds_or_claims}:{seed}:{target}")
    low, high = PLAYERS[game]
    table = _Table(rng, rng.randint(low, high))
    if game == "ligretto":
        _ligretto(table, rounds_or_claims, target)
    elif game == "twist":
        _twist(table, rounds_or_claims)
    elif game == "kids":
        _kids(table, rounds_or_claims)
    else:
        _twinit(table, rounds_or_claims)
    return table.log
