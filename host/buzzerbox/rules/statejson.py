"""The state object's JSON shape (game-log.md): what `Engine.state()` returns.

The state is JSON where it leaves the process (`buzzerbox replay`, the box's API and
live stream, MQTT), so its parts are typed as TypedDicts, each beside the value it is
made of: a press (press.py `Press.to_json`), a scored round (result.py), a player, a
claim of Twin It!, a foul of Twist. The keys every game has are required; those of
one game (Ligretto's `target`, Twist's `piles`, Twin It!'s `claim`, ...) are
`NotRequired`. Nothing here runs: the shapes are for the type checker and the reader.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict


class PressJson(TypedDict):
    """A press in the race, a false start, a late or a voided press."""

    seat: int
    name: str
    pad: str
    t_us: int
    pile: NotRequired[int]
    error_us: NotRequired[int]
    #: how far behind the first (a race's presses after the first)
    lead_us: NotRequired[int]


class FoulJson(PressJson):
    """Twist's last foul: the press, its kind, whose hand lay on the pile."""

    foul: str
    by: str | None


class RoundJson(TypedDict):
    """A scored round of the history (result.py `RoundResult.to_json`)."""

    round: int
    caller: str | None
    stalled: bool
    points: dict[str, int]
    totals: dict[str, int]
    stacks: NotRequired[dict[str, int]]
    middle: NotRequired[dict[str, int]]
    left: NotRequired[dict[str, int]]
    winners: list[str]


class ClaimJson(TypedDict):
    """Twin It!'s open (or queued) claim: claimant, ranked slaps, too close to call."""

    claimant: str
    slaps: list[PressJson]
    tie: bool


class SettledClaimJson(TypedDict):
    """Twin It!'s last settled claim."""

    number: int
    claimant: str
    result: str
    victim: str | None
    slaps: list[PressJson]


class PlayerJson(TypedDict):
    """A player, in seat order; `total` as each game counts it, and each game's own."""

    name: str
    total: int
    left: NotRequired[int | None]  # Twist, Kids
    stack: NotRequired[int | None]  # Ligretto
    middle: NotRequired[int | None]  # Ligretto
    laid: NotRequired[int]  # Twist
    fouls: NotRequired[int]  # Twist
    round_fouls: NotRequired[int]  # Twist
    holding: NotRequired[list[int]]  # Twist
    hands: NotRequired[list[int]]  # Twist
    takes: NotRequired[list[int]]  # Twin It!


class UndoJson(TypedDict):
    """What an `undo` would take back: its type, its line as the log has it, in words."""

    type: str
    entry: dict[str, object]
    text: str


class RejectedJson(TypedDict):
    line: int
    reason: str


class StateJson(TypedDict):
    """The state object (game-log.md). A game's has every key but the other games' own;
    the box's before any game (box/gameinfo.py `idle_state`) has no game (`game` and
    `title` null) and only the keys that are required here."""

    game: str | None
    title: str | None
    round: int
    phase: str
    players: list[PlayerJson]
    winners: list[str]
    caller: str | None
    history: list[RoundJson]
    # every game's, not the idle state's
    variants: NotRequired[list[str]]
    stalled: NotRequired[bool]
    tie: NotRequired[bool]
    go_t_us: NotRequired[int | None]
    race: NotRequired[list[PressJson]]
    false_starts: NotRequired[list[PressJson]]
    late: NotRequired[list[PressJson]]
    voided: NotRequired[list[PressJson]]
    # each game's own
    rounds: NotRequired[int | None]  # Ligretto (or target), Twist, Kids
    cards: NotRequired[int]  # Kids
    target: NotRequired[int | None]  # Ligretto
    row: NotRequired[int]  # Ligretto
    tie_at_top: NotRequired[bool]  # Ligretto
    piles: NotRequired[int]  # Twist
    dealt: NotRequired[int]  # Twist
    blocked: NotRequired[list[int]]  # Twist
    last_foul: NotRequired[FoulJson | None]  # Twist
    takes_to_win: NotRequired[int]  # Twin It!
    first: NotRequired[int | None]  # Twin It!
    first_name: NotRequired[str | None]  # Twin It!
    claim: NotRequired[ClaimJson | None]  # Twin It!
    queued: NotRequired[list[ClaimJson | None]]  # Twin It!
    last_claim: NotRequired[SettledClaimJson | None]  # Twin It!
    # the engine's (undo), and replay's (the lines it refused)
    undoable: NotRequired[str | None]
    undo: NotRequired[UndoJson | None]
    rejected: NotRequired[list[RejectedJson]]
    rejected_count: NotRequired[int]
