"""What the box did with a pad's edge (`Box.pad_edge`): played it, took it for an
enrolment, or refused it, and why. The edge is also in the pad test (state box.pad_test)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Played:
    """The edge was played: a press or release of `seat`'s `role` pad (pile if a pile's)."""

    seat: int
    role: str
    pile: int | None
    pressed: bool


@dataclass(frozen=True, slots=True)
class Enrolled:
    """An enrolment took the edge: `seat` is the seat the pad now plays (None: the release
    after its enrolment, or a pad it could not enrol); `note` says what it did."""

    seat: int | None
    note: str


@dataclass(frozen=True, slots=True)
class Refused:
    """Neither played nor enrolled: `reason` is the box's or the rules' refusal."""

    reason: str


EdgeOutcome = Played | Enrolled | Refused

__all__ = ["EdgeOutcome", "Enrolled", "Played", "Refused"]
