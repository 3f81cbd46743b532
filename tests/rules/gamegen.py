"""Random valid game logs for all four games, for property tests and benchmarks.

    generate("twist", 5, seed=7)   # a whole Ligretto Twist game of 5 rounds

Every log it returns replays without a rejected line and ends with the game
finished. The games are played out with many pad events (false starts, late
stop presses, pile presses with their fouls, slap races) and with table
entries that are taken back and entered again. With `v1=False` (the default)
they also use what version 1.1 of the log adds: stop ties, `void` (of late
presses, of the stop press that ended a round, of stray slaps), `amend` of an
earlier round, `caller` while scoring, `variants`, Twin It!'s `first`, and undo
while a Twin It! claim is open; with `v1=True` they are version 1 logs. The generator keeps its own
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

    def __init__(self, rng: random.Random, players: int, v1: bool) -> None:
        self.rng = rng
        self.v1 = v1
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
        """End a round: a stop press with late ones, a named caller, or a stall.

        Version 1.1: a later stop press at the very µs of the first is a tie (no
        caller); the table may then name one, or void the first press (the next
        stop press, if any, is then the call), or replace the caller.
        """
        rng = self.rng
        roll = rng.random()
        if can_stall and roll < 0.15:
            self.add(type="stall")
            caller = None
        elif roll < 0.3:
            caller = rng.randrange(len(self.names))
            self.add(type="caller", seat=caller)
        else:
            caller = rng.randrange(len(self.names))
            self.press(caller, "stop")
            presses = [(caller, self.t)]
            others = [s for s in range(len(self.names)) if s != caller]
            for seat in rng.sample(others, rng.randint(0, len(others))):
                # v1 logs keep clear of a tie at the top, which v1.1 reads differently
                same = rng.random() < 0.1 and not (self.v1 and len(presses) == 1)
                self.press(seat, "stop", same_t=same)
                presses.append((seat, self.t))
            caller = _call(presses)
            if not self.v1 and rng.random() < 0.2:
                self.add(type="void", seat=presses[0][0], t_us=presses[0][1])
                if rng.random() < 0.3:
                    self.add(type="undo")
                else:
                    rest = [p for p in presses if p[:2] != presses[0][:2]]
                    if not rest:
                        return self.stop(can_stall)
                    caller = _call(rest)
            elif not self.v1 and len(presses) > 1 and rng.random() < 0.2:
                late = rng.choice(presses[1:])
                if late[1] != presses[0][1]:
                    self.add(type="void", seat=late[0], t_us=late[1])  # a bumped pad, shown
        if not self.v1 and (caller is None or rng.random() < 0.1) and rng.random() < 0.6:
            caller = rng.randrange(len(self.names))
            self.add(type="caller", seat=caller)
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


def _call(presses: list[tuple[int, int]]) -> int | None:
    """The caller of a round its stop presses ended: the first, unless two tie."""
    first = presses[0][1]
    tied = [seat for seat, t in presses if t == first]
    return tied[0] if len(tied) == 1 else None


def _head(table: _Table, game: str, **fields: Any) -> None:
    head: dict[str, Any] = {"type": "game", "game": game, "players": table.names, **fields}
    if not table.v1 and table.rng.random() < 0.3:
        head["variants"] = ["row as storage"]
    table.log.insert(0, head)


def _amend(table: _Table, books: list[dict[str, Any]], counts: Any) -> None:
    """Now and then (v1.1) the table corrects one of the last three rounds: `counts(book)`
    gives the book's new counts, which replace the old ones."""
    if table.v1 or not books or table.rng.random() > 0.15:
        return
    number = table.rng.randrange(max(len(books) - 3, 0), len(books))  # a recent round
    new = counts(books[number])
    books[number].update(new)
    names = table.names
    table.add(
        type="amend",
        round=number + 1,
        **{key: dict(zip(names, value, strict=True)) for key, value in new.items()},
    )


def _ligretto(table: _Table, rounds: int, target: int | None) -> None:
    rng = table.rng
    _head(table, "ligretto", **({"target": target} if target is not None else {"rounds": rounds}))
    books: list[dict[str, Any]] = []

    def counts(book: dict[str, Any]) -> dict[str, list[int]]:
        stacks = table.left(book["caller"], 10)
        return {"stacks": stacks, "middle": [rng.randint(0, 40 - s) for s in stacks]}

    def over() -> bool:
        totals = [0] * len(table.names)
        for book in books:
            totals = [
                t + m - 2 * s
                for t, m, s in zip(totals, book["middle"], book["stacks"], strict=True)
            ]
        best = max(totals)
        return target is not None and best >= target and totals.count(best) == 1

    for _ in range(rounds):
        table.start("stop")
        caller = table.stop(can_stall=True)
        stacks = table.left(caller, 10)
        middle = [rng.randint(0, 40 - s) for s in stacks]
        table.entry("stacks", stacks, table.left(caller, 10) if rng.random() < 0.2 else None)
        wrong = [rng.randint(0, 40 - s) for s in stacks] if rng.random() < 0.1 else None
        table.entry("middle", middle, wrong)
        books.append({"caller": caller, "stacks": stacks, "middle": middle})
        if over():
            return
        if len(books) < rounds:
            _amend(table, books, counts)
            if over():
                return
    if target is not None:
        table.add(type="finish")


def _twist(table: _Table, rounds: int) -> None:
    rng = table.rng
    n = len(table.names)
    piles = 4 if n == 2 else 8
    dealt = 40 if n <= 3 else 38
    _head(table, "twist", rounds=rounds)
    books: list[dict[str, Any]] = []
    for number in range(rounds):
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
        books.append({"caller": caller})
        if number < rounds - 1:
            _amend(table, books, lambda book: {"left": table.left(book["caller"], dealt)})


def _kids(table: _Table, rounds: int) -> None:
    rng = table.rng
    _head(table, "kids", rounds=rounds)
    books: list[dict[str, Any]] = []
    for number in range(rounds):
        table.start("stop")
        caller = table.stop(can_stall=True)
        wrong = table.left(caller, 30) if rng.random() < 0.2 else None
        table.entry("left", table.left(caller, 30), wrong)
        books.append({"caller": caller})
        if number < rounds - 1:
            _amend(table, books, lambda book: {"left": table.left(book["caller"], 30)})


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


def _slaps(table: _Table, n: int) -> int:
    """A claim's slaps: the first and a race of later ones within the window."""
    rng = table.rng
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
    return seats[0]


def _twinit(table: _Table, claims: int) -> None:
    rng = table.rng
    n = len(table.names)
    _head(table, "twinit", **({} if table.v1 else {"first": rng.randrange(n)}))
    table.start("slap")
    takes: list[list[int]] = [[] for _ in range(n)]
    i = 0
    while i < claims:
        if not table.v1 and rng.random() < 0.1:  # a stray slap the table voids
            table.tick(200_000, 3_000_000)
            seat = rng.randrange(n)
            table.press(seat, "slap", same_t=True)
            table.add(type="void", seat=seat, t_us=table.t)
            table.release(seat, "slap")
        claimant = _slaps(table, n)
        before = [list(t) for t in takes]
        _claim(table, takes, claimant, last=i == claims - 1)
        if max(len(t) for t in takes) >= 5:
            return
        if not table.v1 and i + 1 < claims and rng.random() < 0.1:
            following = _slaps(table, n)  # the next claim opens, then the table takes
            table.add(type="undo")  # back the last one: it is open again, the next waits
            takes[:] = before
            _claim(table, takes, claimant, last=False)
            i += 1
            _claim(table, takes, following, last=i == claims - 1)
            if max(len(t) for t in takes) >= 5:
                return
        i += 1
    table.add(type="finish")


def generate(
    game: str, rounds_or_claims: int, seed: int, *, target: int | None = None, v1: bool = False
) -> Log:
    """A valid whole game log: `rounds_or_claims` rounds (Twin It!: claims).

    Ligretto plays that many fixed rounds, or with `target` (50, 99, 150) until
    the target ends it, at most that many rounds, then `finish`. Twin It! ends
    when someone takes a fifth take in the last claim, or with `finish`. With
    `v1`, only what version 1 of the log says (and no stop tie at the top).
    """
    if game not in PLAYERS:
        raise ValueError(f"game {game!r} is unknown: generate one of {', '.join(GAMES)}")
    if rounds_or_claims < 1:
        raise ValueError(f"{rounds_or_claims} rounds or claims: give 1 or more")
    rng = random.Random(f"{game}:{rounds_or_claims}:{seed}:{target}")
    low, high = PLAYERS[game]
    table = _Table(rng, rng.randint(low, high), v1)
    if game == "ligretto":
        _ligretto(table, rounds_or_claims, target)
    elif game == "twist":
        _twist(table, rounds_or_claims)
    elif game == "kids":
        _kids(table, rounds_or_claims)
    else:
        _twinit(table, rounds_or_claims)
    return table.log
