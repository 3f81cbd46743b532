"""A press as a game keeps it: in the race, a false start, a late press, a voided one.

A `Press` is made once, from the `PadPressed` event and the seat's name, and never
changed; the game's lists of presses are replaced, not changed in place (undo's copies
share them; Twin It!'s open claim is the exception, timing.py). It leaves the process
only as JSON (`to_json`: the state's `race`, `false_starts`, `late`, `voided`).
"""

from __future__ import annotations

from typing import NamedTuple

from buzzerbox.rules.statejson import PressJson


class Press(NamedTuple):
    """A seat's press of a pad at `t_us` (box µs); `pile` for a pile pad.

    A NamedTuple: immutable and typed, and made as fast as a tuple (a press is most of
    a log's events; as a frozen dataclass the replay bench ran slower)."""

    seat: int
    name: str
    pad: str
    t_us: int
    pile: int | None = None
    #: µs after the first press of the race (0 for the first itself); None where the
    #: press is not measured against one (a false start, a voided press, a late press
    #: with no race)
    lead_us: int | None = None
    #: its timing error, ± µs (issue 41): a phone's or a virtual pad's clock map; None
    #: for a wired pad, good to the µs of `t_us`
    error_us: int | None = None

    @property
    def key(self) -> tuple[int, int]:
        """(seat, t_us): the press, as `void` names it."""
        return self.seat, self.t_us

    def to_json(self) -> PressJson:
        out: PressJson = {"seat": self.seat, "name": self.name, "pad": self.pad, "t_us": self.t_us}
        if self.pile is not None:
            out["pile"] = self.pile
        if self.error_us:
            out["error_us"] = self.error_us
        if self.lead_us is not None:
            out["lead_us"] = self.lead_us
        return out


#: the presses of a race, first first (Twin It!: a claim's slaps, ranked)
Race = list[Press]
