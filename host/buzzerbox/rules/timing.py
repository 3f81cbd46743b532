"""Pad timing, shared by every game: false starts, the race, late presses, ties.

"First" is the smallest `t_us`, never the order of arrival; pad events come in time
order (one out of order is refused). Two stop presses of different seats at the same
µs are a tie (v1.1), and so are two closer than their timing errors allow (`too_close`,
issue 41): the round ends with no caller registered and the table may name one. A
press before the start signal is a false start and a stop press after the round ended
is late: recorded and shown, never counted.
"""

from __future__ import annotations

from typing import ClassVar

from buzzerbox.errors import Words
from buzzerbox.rules.errors import InvalidEventError
from buzzerbox.rules.events import PadPressed, PadReleased
from buzzerbox.rules.phase import COUNTDOWN, LOBBY, PLAYING, SCORING, Phase
from buzzerbox.rules.press import Press, Race
from buzzerbox.rules.words import no_seat

#: presses kept per round for the photo finish and the false-start list; more are counted
KEEP_PRESSES = 64


class Timing:
    """The pad side of a game: what a press and a release do, by phase."""

    pads: ClassVar[tuple[str, ...]] = ("stop",)
    piles: int = 0
    title: str
    players: tuple[str, ...]
    phase: Phase
    go_t: int | None
    last_pad_t: int
    caller: int | None
    stalled: bool
    tie: bool
    #: the race, false starts and late presses are replaced, never changed in place
    #: (undo's copies share them); Twin It!'s open claim is the exception
    race: Race
    false_starts: list[Press]
    late: list[Press]
    ignored: int

    def end_round(self, caller: int | None, *, stalled: bool = False) -> None:
        raise NotImplementedError

    def has_counts(self) -> bool:
        """Whether a count of the current round has been entered."""
        return False

    def check_pad(self, event: PadPressed | PadReleased) -> None:
        """Refuse a pad event this game cannot have, or one out of time order."""
        n = len(self.players)
        pile = event.pile
        if (
            event.seat < n
            and event.t_us >= self.last_pad_t
            and event.pad in self.pads
            and (pile is None or pile < self.piles)
        ):
            return
        if event.seat >= n:
            raise InvalidEventError(no_seat(event.seat, n), subject="seat", code="no-seat")
        if event.pad not in self.pads:
            said: dict[str, object] = {"title": self.title, "pad": event.pad, "pads": self.pads}
            raise InvalidEventError(
                Words("{title} has no {pad} pads: its pads are {pads}", said),
                subject="pad",
                code="no-such-pad",
            )
        if event.pile is not None and event.pile >= self.piles:
            said = {"pile": event.pile, "last": self.piles - 1}
            raise InvalidEventError(
                Words("pile {pile} does not exist: this game has piles 0-{last}", said),
                subject="pile",
                code="no-pile",
            )
        if event.t_us < self.last_pad_t:
            name = self.players[event.seat]
            said = {"pad": event.pad, "name": name, "t_us": event.t_us, "last": self.last_pad_t}
            raise InvalidEventError(
                Words(
                    "{pad} pad of {name} at {t_us} µs is out of order: the last pad event "
                    "was at {last} µs; pad events come in time order",
                    said,
                ),
                subject=name,
                code="out-of-order",
            )

    def press_of(self, event: PadPressed, lead_us: int | None = None) -> Press:
        """`event` as the game keeps it, with its `lead_us` in a race."""
        seat = event.seat
        return Press(
            seat, self.players[seat], event.pad, event.t_us, event.pile, lead_us, event.error_us
        )

    def press(self, event: PadPressed) -> None:
        self.check_pad(event)
        t_us = self.last_pad_t = event.t_us
        phase = self.phase
        if phase is PLAYING and t_us >= (self.go_t or 0):
            self.on_press(event)
        elif phase is PLAYING or phase is COUNTDOWN or phase is LOBBY:
            if len(self.false_starts) < KEEP_PRESSES:  # a new list: copies share the old
                self.false_starts = [*self.false_starts, self.press_of(event)]
            else:
                self.ignored += 1
        elif event.pad == "stop":
            if self.is_tie(event):
                self.race = [*self.race, self.press_of(event, event.t_us - self.race[0].t_us)]
                self.caller = None
                self.tie = True
            else:
                self.add_late(event)
        else:
            self.ignored += 1

    def is_tie(self, event: PadPressed) -> bool:
        """A stop press too close to the one that ended the round to tell which came
        first (`too_close`), by another seat, before the table has named a caller or
        entered a count."""
        race = self.race
        return (
            self.phase is SCORING
            and bool(race)
            and too_close(race[0], self.press_of(event))
            and race[0].pad == "stop"
            and (self.tie or self.caller == race[0].seat)
            and all(r.seat != event.seat for r in race)
            and not self.has_counts()
        )

    def release(self, event: PadReleased) -> None:
        self.check_pad(event)
        self.last_pad_t = event.t_us
        if self.phase is PLAYING:
            self.on_release(event)

    def on_press(self, event: PadPressed) -> None:
        """A press during play, at or after the start signal."""
        if event.pad == "stop":
            self.race = [self.press_of(event, 0)]
            self.end_round(event.seat)

    def on_release(self, event: PadReleased) -> None:
        """A release during play."""

    def add_late(self, event: PadPressed) -> None:
        press = self.press_of(event, event.t_us - self.race[0].t_us if self.race else None)
        if len(self.late) < KEEP_PRESSES:
            self.late = [*self.late, press]
        else:
            self.ignored += 1


def too_close(first: Press, other: Press) -> bool:
    """Whether two presses are too close to call: closer than their timing errors allow
    (`error_us`, each ±; none: good to the µs), so which came first cannot be measured.
    Two at the same µs always are (v1.1's tie); a 0.2 ms gap between two phones timed
    to ±0.9 ms is too (issue 41); two wired pads keep their µs."""
    error = (first.error_us or 0) + (other.error_us or 0)
    gap = abs(other.t_us - first.t_us)
    return gap <= error
