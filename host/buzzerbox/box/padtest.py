"""An edge of the pad test: which pad, what it plays, when, and why it was not played.

The box keeps the last few (enrol.py, `PAD_TEST_EDGES`) and every state carries them
under box.pad_test (`to_json`), so a phone shows each press as it comes. An edge is
kept when it comes in; its note is set once the box knows its fate (enrolled, refused,
not in the pad map), in English and in the box's other languages (the state is every
phone's: each picks its own).
"""

from __future__ import annotations

from dataclasses import dataclass, field
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
    #: its JSON once made (every state carries it, unchanged until its note is set)
    _json: PadTestEdgeJson | None = field(default=None, repr=False, compare=False)

    def noted(self, words: Words) -> str:
        """Say why the edge was not played (or what the enrolment made of it); the note
        in English."""
        self.note = note = words.english()
        self.note_said = said_elsewhere(words)
        self._json = None
        return note

    def to_json(self) -> PadTestEdgeJson:
        """Its JSON: the same dict in every state until its note is set (the states'
        readers do not change it), so that the live stream's delta finds it unchanged
        at once (live/delta.py `same`: `is`) and no state makes it again."""
        if self._json is not None:
            return self._json
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
        self._json = out
        return out
