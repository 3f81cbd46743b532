"""The virtual pad source: the pads of a simulated box, pressed on the phones.

Beside GPIO and pad boards (a pad map, padmap.py) this is the third way presses come
in: no wiring, one set of pads per seat for the game being played (its stop or slap
pad and its piles), pressed on the pads page (POST /api/pads/press). A box is given
one pad source: a `PadMap` or `VirtualPads()`; both say which pads a game has
(`for_game`) and whether they are virtual. Virtual pads need no enrolment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from buzzerbox.pads.pad import Pad


class GameShape(Protocol):
    """What a pad source needs of a game: its players, pad roles and piles."""

    @property
    def players(self) -> Sequence[str]: ...

    @property
    def pads(self) -> Sequence[str]: ...

    @property
    def piles(self) -> int: ...


class VirtualPads:
    """The simulated box's pads: per seat its stop/slap pad and its piles."""

    @property
    def is_virtual(self) -> bool:
        return True

    def for_game(self, game: GameShape | None) -> list[Pad]:
        if game is None:
            return []
        pads: list[Pad] = []
        for seat, name in enumerate(game.players):
            for role in game.pads:
                if role == "pile":
                    pads.extend(
                        Pad(
                            virtual_id(seat, role, p),
                            role,
                            seat,
                            pile=p,
                            label=f"{name} pile {p + 1}",
                        )
                        for p in range(game.piles)
                    )
                else:
                    pads.append(
                        Pad(virtual_id(seat, role, None), role, seat, label=f"{name} {role}")
                    )
        return pads


def virtual_id(seat: int, role: str, pile: int | None) -> str:
    """The id of a virtual pad: "s0-stop", "s1-pile2"."""
    return f"s{seat}-pile{pile}" if pile is not None else f"s{seat}-{role}"
