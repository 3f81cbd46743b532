"""Phones as pads: which phone is which seat's buzzer, while the host allows it.

The host switches "phones as pads" on at the table view; a guest's phone then takes a
free seat once (it holds a random token, kept on the phone) and presses as that seat
only. The host can free a seat. Kept in memory for the current game (a new game starts
with every seat free): the box's own bookkeeping, never in the event log.

Not thread-safe on its own: the box calls it under its lock.
"""

from __future__ import annotations

from typing import Any

from buzzerbox.errors import InputError
from buzzerbox.rules.errors import IllegalEventError, InvalidEventError

TOKEN_CHARS = range(16, 129)
OFF = "phones are no pads now: the host switches them on at the table view"


class PhoneSeats:
    """The seats phones have taken: token -> seat, and whether phones may press."""

    def __init__(self) -> None:
        self.is_on = False
        self._seats: dict[str, int] = {}

    def reset(self) -> None:
        """A new game: every seat is free again (phones as pads stays as the host set it)."""
        self._seats.clear()

    def switch(self, on: object) -> None:
        if type(on) is not bool:
            raise InvalidEventError(f"phones as pads is on or off: true or false, not {on!r}")
        self.is_on = on
        if not on:
            self._seats.clear()

    def take(self, token: object, seat: object, players: int) -> None:
        """The phone holding `token` becomes `seat`'s buzzer (its former seat is freed)."""
        token = check_token(token)
        if not self.is_on:
            raise IllegalEventError(OFF)
        if type(seat) is not int or not 0 <= seat < players:
            raise InvalidEventError(
                f"seat {seat!r} does not exist: this game has seats 0-{players - 1}", subject="seat"
            )
        holder = next((t for t, s in self._seats.items() if s == seat), None)
        if holder is not None and holder != token:
            raise IllegalEventError(
                f"seat {seat + 1} is taken by another phone: the host can free it at the table view"
            )
        self._seats[token] = seat

    def free(self, seat: object) -> None:
        """The host frees `seat`: the phone holding it presses no more."""
        self._seats = {t: s for t, s in self._seats.items() if s != seat}

    def seat_of(self, token: object) -> int:
        """The seat of the phone holding `token`; refused if phones are off or it has none."""
        token = check_token(token)
        if not self.is_on:
            raise IllegalEventError(OFF)
        seat = self._seats.get(token)
        if seat is None:
            raise IllegalEventError(
                "this phone has no seat: pick yours first (or the host freed it)"
            )
        return seat

    def to_json(self) -> dict[str, Any]:
        return {"on": self.is_on, "taken": sorted(self._seats.values())}


def check_token(token: object) -> str:
    if not isinstance(token, str) or len(token) not in TOKEN_CHARS or not token.isascii():
        raise PhoneTokenError(
            f"a phone's token is {TOKEN_CHARS.start}-{TOKEN_CHARS.stop - 1} ASCII characters"
        )
    return token


class PhoneTokenError(InputError):
    """A phone sent no usable token: answered with 400."""
