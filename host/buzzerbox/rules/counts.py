"""Checking the counts the table enters: every player's, within what the rules allow.

Functions of the players and the round, not of a game's whole state, so that a
count is judged the same way when it is first entered and when an earlier round
is amended (v1.1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from buzzerbox.errors import Words
from buzzerbox.rules.errors import IllegalEventError, InvalidEventError
from buzzerbox.rules.result import RoundResult


def by_seat(players: Sequence[str], counts: Mapping[str, int], what: Words) -> list[int]:
    """The counts of a table entry in seat order; every player, nobody else."""
    if len(counts) == len(players):  # then the names given are the players', or one is not
        try:
            return [counts[name] for name in players]
        except KeyError:
            pass
    for name in counts:
        if name not in players:
            said = {"name": name, "players": ", ".join(players)}
            raise InvalidEventError(
                Words("{name} does not play in this game: the players are {players}", said),
                subject=name,
                code="not-a-player",
            )
    missing = [name for name in players if name not in counts]
    if missing:
        words = Words(
            "{what} for {names} missing: give a count for every player",
            {"what": what, "names": ", ".join(missing)},
        )
        raise InvalidEventError(
            words,
            subject=missing[0],
            code="count-missing",
        )
    return [counts[name] for name in players]


def check_left(
    players: Sequence[str],
    counts: Sequence[int],
    dealt: int,
    caller: int | None,
    round_: int,
    *,
    tied: bool = False,
) -> None:
    """Cards left (Twist, Kids): 0 to `dealt`; 0 for the caller (`tied`: the round's
    stop presses tied and no caller is named).

    v1.2 reading: the others "count the cards they have left over" (000, 001), and 0
    is a count: a player who emptied their hand moments after the caller has 0 left
    (Twist's pile pads count it so). Only without a caller is 0 refused: whoever has
    no cards left called, and the table names them first.
    """
    for seat, n in enumerate(counts):
        if 0 < n <= dealt and seat != caller:
            continue  # the common count: nothing to say
        name = players[seat]
        if not 0 <= n <= dealt:
            said = {"name": name, "n": n, "dealt": dealt}
            raise IllegalEventError(
                Words("{name}: {n} cards left is impossible: a player has 0 to {dealt}", said),
                subject=name,
                code="count-out-of-range",
            )
        if seat == caller and n != 0:
            raise IllegalEventError(
                Words("{name} called stop with no cards left: enter 0 for {name}", {"name": name}),
                subject=name,
                code="caller-not-zero",
            )
        if n == 0 and caller is None:
            said = {"name": name, "round": round_, "dealt": dealt}
            words = (
                Words(
                    "{name}: 0 cards is only possible for a caller, and the stop presses "
                    "of round {round} tied with no caller named: enter 1 to {dealt}, or "
                    "name the caller first",
                    said,
                )
                if tied
                else Words(
                    "{name}: 0 cards is only possible for a caller, and nobody called "
                    "in round {round}: enter 1 to {dealt}, or name the caller first",
                    said,
                )
            )
            raise IllegalEventError(words, subject=name, code="zero-without-caller")


def fewest(players: Sequence[str], counts: Sequence[int]) -> list[str]:
    """The players with the fewest cards left."""
    low = min(counts)
    return [name for name, n in zip(players, counts, strict=True) if n == low]


def caller_or_fewest_left(players: Sequence[str], entry: RoundResult) -> tuple[str, ...]:
    """A scored round's winners where the cards left decide: its caller, else (a stall,
    a tie nobody was named for) the players with the fewest cards left."""
    if entry.caller is not None:
        return (entry.caller,)
    left = entry.left
    assert left is not None
    return tuple(fewest(players, [left[name] for name in players]))
