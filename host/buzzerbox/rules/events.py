"""The events of the game log (version 1.1, game-log.md), as frozen dataclasses, and
the `type` the log gives each. A line of the log becomes one in eventjson.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

GAMES: Final = ("ligretto", "twist", "kids", "twinit")
PADS: Final = ("stop", "slap", "pile")
CLAIM_RESULTS: Final = ("pair", "steal", "error", "split")
TABLE_ENTRIES: Final = (
    "stacks",
    "middle",
    "left",
    "claim",
    "caller",
    "stall",
    "void",
    "amend",
    "finish",
)


@dataclass(frozen=True, slots=True)
class GameCreated:
    """`game`: the first line of a log."""

    game: str
    players: tuple[str, ...]
    target: int | None = None
    rounds: int | None = None
    #: options the table plays with, shown and kept (v1.1)
    variants: tuple[str, ...] = ()
    #: Twin It!: the seat that starts, drawn by the box (v1.1)
    first: int | None = None


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """`round`: a new round; the countdown begins."""


@dataclass(frozen=True, slots=True)
class StartSignalled:
    """`go`: the start signal, at `t_us` on the host timeline."""

    t_us: int


@dataclass(frozen=True, slots=True)
class PadPressed:
    """`press`: a seat's pad made contact at `t_us`, give or take `error_us` (v1.2
    reading, issue 41: a phone's or a virtual pad's measured timing error; None: good to
    the µs of `t_us`, as a pad on a board or the Pi's GPIO)."""

    seat: int
    pad: str
    t_us: int
    pile: int | None = None
    error_us: int | None = None

    @property
    def key(self) -> tuple[int, int]:
        """What `void` names a press by: its seat and time."""
        return (self.seat, self.t_us)


@dataclass(frozen=True, slots=True)
class PadReleased:
    """`release`: a seat's pad lost contact at `t_us` (give or take `error_us`)."""

    seat: int
    pad: str
    t_us: int
    pile: int | None = None
    error_us: int | None = None


@dataclass(frozen=True, slots=True)
class CallerNamed:
    """`caller`: the table names who called stop when no pad registered it."""

    seat: int


@dataclass(frozen=True, slots=True)
class RoundStalled:
    """`stall`: the round ended with nobody able to play."""


@dataclass(frozen=True, slots=True)
class StacksEntered:
    """`stacks`: Ligretto scoring step 1, cards left in each Ligretto stack."""

    counts: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class MiddleEntered:
    """`middle`: Ligretto scoring step 2, each player's own cards in the middle."""

    counts: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CardsLeftEntered:
    """`left`: Twist and Kids, the cards each player has left."""

    counts: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ClaimSettled:
    """`claim`: Twin It!, the table settles the open claim."""

    result: str
    victim: str | None = None


@dataclass(frozen=True, slots=True)
class PressVoided:
    """`void`: the table takes back the press of `seat` at `t_us` (v1.1)."""

    seat: int
    t_us: int


@dataclass(frozen=True, slots=True)
class RoundAmended:
    """`amend`: the table corrects the counts of an earlier, scored round (v1.1)."""

    round: int
    stacks: Mapping[str, int] | None = None
    middle: Mapping[str, int] | None = None
    left: Mapping[str, int] | None = None


@dataclass(frozen=True, slots=True)
class GameFinished:
    """`finish`: end the game now and score it."""


@dataclass(frozen=True, slots=True)
class EntryUndone:
    """`undo`: take back the last table entry."""


Event = (
    GameCreated
    | RoundStarted
    | StartSignalled
    | PadPressed
    | PadReleased
    | CallerNamed
    | RoundStalled
    | StacksEntered
    | MiddleEntered
    | CardsLeftEntered
    | ClaimSettled
    | PressVoided
    | RoundAmended
    | GameFinished
    | EntryUndone
)


_TYPES: Final[dict[type, str]] = {
    GameCreated: "game",
    RoundStarted: "round",
    StartSignalled: "go",
    PadPressed: "press",
    PadReleased: "release",
    CallerNamed: "caller",
    RoundStalled: "stall",
    StacksEntered: "stacks",
    MiddleEntered: "middle",
    CardsLeftEntered: "left",
    ClaimSettled: "claim",
    PressVoided: "void",
    RoundAmended: "amend",
    GameFinished: "finish",
    EntryUndone: "undo",
}


#: the event classes of the table entries (`undo` takes them back, last first)
TABLE_ENTRY_TYPES: Final = frozenset(cls for cls, kind in _TYPES.items() if kind in TABLE_ENTRIES)


def event_type(event: Event) -> str:
    """The `type` the game log gives this event."""
    return _TYPES[type(event)]
