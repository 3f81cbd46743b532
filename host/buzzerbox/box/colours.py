"""Each player's colour, by name: derived from the log's games, never stored.

The pages draw a player in one of 12 colours (box.css `.p0` ... `.p11`). A colour
follows its name, not its seat: folded over the log's games, oldest first, each game
gives its players

1. the colour they had the last time they played, unless another player of this game
   who played more recently had it too (that one keeps it);
2. otherwise (a newcomer, or a player whose colour is now another's) the free colour
   nobody has held for the longest, the lowest first: a newcomer never takes the
   colour of a regular who sits out one game.

No two players at one table share a colour (12 colours, 12 players at most). The
first game of a log gets the seats' colours, seat 0 the first. The same players in
other seats (a rematch in a new order) keep their colours.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

#: how many colours the pages have (box.css .p0 ... .p11)
COLOURS = 12


class ColourBook:
    """What the fold keeps: each name's colour and when it was last at a table."""

    def __init__(self) -> None:
        self.colour_of: dict[str, int] = {}
        self.seen: dict[str, int] = {}  # name -> the game (fold index) it last played
        self.held: dict[int, int] = {}  # colour -> the game it was last held in
        self.games = 0

    def table(self, players: Sequence[str]) -> list[int]:
        """The colours of one game's players, seat by seat (the book is not changed)."""
        colours = [-1] * len(players)
        taken: set[int] = set()
        recent = sorted(range(len(players)), key=lambda i: (-self.seen.get(players[i], -1), i))
        for seat in recent:
            mine = self.colour_of.get(players[seat], -1)
            if mine >= 0 and mine not in taken:
                colours[seat] = mine
                taken.add(mine)
        for seat in range(len(players)):
            if colours[seat] < 0:
                free = [c for c in range(COLOURS) if c not in taken] or list(range(COLOURS))
                colours[seat] = min(free, key=lambda c: (self.held.get(c, -1), c))
                taken.add(colours[seat])
        return colours

    def play(self, players: Sequence[str]) -> list[int]:
        """One game more: its players' colours, remembered for the games after it."""
        colours = self.table(players)
        for name, colour in zip(players, colours, strict=True):
            self.colour_of[name] = colour
            self.seen[name] = self.games
            self.held[colour] = self.games
        self.games += 1
        return colours


def colours_of(games: Iterable[Sequence[str]], players: Sequence[str]) -> list[int]:
    """The colours of `players` (a game's, seat by seat) after the games `games`
    (their players, oldest first), which the game itself is not one of."""
    book = ColourBook()
    for names in games:
        book.play([str(n) for n in names])
    return book.table([str(n) for n in players])
