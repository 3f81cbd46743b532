"""What an undo will take back, in words the table reads before it presses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from buzzerbox.rules.events import (
    CallerNamed,
    ClaimSettled,
    Event,
    PressVoided,
    RoundAmended,
)

if TYPE_CHECKING:
    from buzzerbox.rules.base import Game


def describe(kind: str, event: Event, before: Game, now: Game) -> str:
    """The last table entry, e.g. 'the middle of round 3 (its scores)'."""
    r = before.round
    if isinstance(event, CallerNamed):
        return f"{now.name(event.seat)} named as the caller of round {r}"
    if isinstance(event, PressVoided):
        return f"the void of {now.name(event.seat)}'s press at {event.t_us} µs"
    if isinstance(event, RoundAmended):
        return f"the correction of round {event.round}"
    if isinstance(event, ClaimSettled):
        claim = getattr(before, "claim", None)
        whose = claim[0].name if claim else "?"
        number = getattr(before, "settled", 0) + 1
        victim = f" of {event.victim}'s take" if event.victim else ""
        return f"claim {number}: {whose}'s {event.result}{victim}"
    return {
        "stacks": f"the stacks of round {r}",
        "middle": f"the middle of round {r} (its scores)",
        "left": f"the cards left of round {r} (its scores)",
        "stall": f"the stall of round {r}",
        "finish": "the finish of the game",
    }.get(kind, kind)
