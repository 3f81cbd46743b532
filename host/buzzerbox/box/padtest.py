"""An edge of the pad test: which pad, what it plays, when, and why it was not played.

The box keeps the last few (enrol.py, `PAD_TEST_EDGES`) and every state carries them
under box.pad_test (`to_json`), so a phone shows each press as it comes. An edge is
kept when it comes in; its note is set once the box knows its fate (enrolled, refused,
not in the pad map), in English and in the box's other languages (the state is every
phone's: each picks its own).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NotRequired, TypedDict

from buzzerbox.errors import Words
from buzzerbox.i18n import said_elsewhere


class PadTestEdgeJson(TypedDict):
    n: int
    pad: str
    role: str | None
    seat: int | None
    pile: int | None
    edge: str
    t_us: int
    note: str | None
    note_said: NotRequired[dict[str, str]]


@dataclass(slots=True)
class PadTestEdge:
    """One edge of a pad, real or virtual (`role`, `seat`, `pile`: None for a pad that
    plays no seat). Changed once: its note."""

    #: its place among the box's edges since the start (1, 2, ...)
    n: int
    pad: str
    role: str | None
    seat: int | None
    pile: int | None
    is_press: bool
    #: box time (µs)
    t_us: int
    note: str | None = None
    note_said: dict[str, str] | None = None

    def noted(self, words: Words) -> str:
        """Say why the edge was not played (or what the enrolment made of it); the note
        in English."""
        self.note = note = words.english()
        self.note_said = said_elsewhere(words)
        return note

    def to_json(self) -> PadTestEdgeJson:
        out: PadTestEdgeJson = {
            "n": self.n,
            "pad": self.pad,
            "role": self.role,
            "seat": self.seat,
            "pile": self.pile,
            "edge": "press" if self.is_press else "release",
            "t_us": self.t_us,
            "note": self.note,
        }
        if self.note_said is not None:
            out["note_said"] = self.note_said
        return out
