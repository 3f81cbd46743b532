"""A pad: one type from the pad map (padmap.py) and the virtual pads (virtual.py) to
the box, its enrolments and the pages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from buzzerbox.pads.timeline.arbiter import GPIO


class PadJson(TypedDict):
    """A pad as the pages get it (`Pad.to_json`)."""

    id: str
    role: str
    seat: int
    pile: int | None
    label: str
    enrolled: bool


@dataclass(frozen=True, slots=True)
class Pad:
    """One pad, from the pad map to the pages: its input (`board`, `ch`; board
    ``"gpio"`` means pin `ch`; ``""``: none, a virtual pad or one known by id only),
    what it is in the game (`role`, `seat`, `pile`), its light, if any, how the pages
    name it (`label`) and whether the table enrolled it for this game."""

    id: str
    role: str
    seat: int
    board: str = ""
    ch: int = 0
    pile: int | None = None
    light_gpio: int | None = None
    light_ch: int | None = None
    line: int | None = None
    label: str = ""
    is_enrolled: bool = False

    @property
    def is_gpio(self) -> bool:
        return self.board == GPIO

    @property
    def source(self) -> str:
        return f"gpio {self.ch}" if self.is_gpio else f"{self.board} ch {self.ch}"

    @property
    def light(self) -> str:
        if self.light_gpio is not None:
            return f"gpio {self.light_gpio}"
        if self.light_ch is not None:
            return f"{self.board} led {self.light_ch}"
        return "-"

    def describe(self) -> str:
        what = f"pile {self.pile}" if self.pile is not None else self.role
        return f"{what} of seat {self.seat}"

    def to_json(self) -> PadJson:
        """The pad as the pages get it (under box.pads in the state)."""
        return {
            "id": self.id,
            "role": self.role,
            "seat": self.seat,
            "pile": self.pile,
            "label": self.label or pad_label(self.id, self.role, self.pile),
            "enrolled": self.is_enrolled,
        }


def pad_label(pad_id: str, role: str, pile: int | None) -> str:
    """How the table view names a real pad under its seat: "stop · pad north"."""
    return f"{f'pile {pile + 1}' if pile is not None else role} · pad {pad_id}"
