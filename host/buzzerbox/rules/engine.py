"""The engine: a game plus undo and void. Events in, state out; no I/O, no clock.

    engine = Engine.from_dict({"type": "game", "game": "kids", "players": ["Ann", "Ben"]})
    engine.apply_dict({"type": "round"})        # raises BuzzerboxError if refused
    engine.state()                               # the state object of game-log.md

A refused event raises and changes nothing. `undo` takes back the last table entry
of the current round (or a `finish`) by restoring the copy of the game taken just
before it. `void` takes back one press: the current round is folded again from its
start without that press, so the state is what it would be had it never happened.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from buzzerbox.errors import BuzzerboxError, Words
from buzzerbox.rules.base import Game
from buzzerbox.rules.errors import IllegalEventError, InvalidEventError
from buzzerbox.rules.eventjson import event_to_dict, parse_event
from buzzerbox.rules.events import (
    TABLE_ENTRY_TYPES,
    EntryUndone,
    Event,
    GameCreated,
    PadPressed,
    PadReleased,
    PressVoided,
    RoundStarted,
    event_type,
)
from buzzerbox.rules.kids import Kids
from buzzerbox.rules.ligretto import Ligretto
from buzzerbox.rules.phase import PLAYING
from buzzerbox.rules.statejson import StateJson
from buzzerbox.rules.twinit import TwinIt
from buzzerbox.rules.twist import Twist
from buzzerbox.rules.undo import describe

GAME_CLASSES: dict[str, type[Game]] = {
    "ligretto": Ligretto,
    "twist": Twist,
    "kids": Kids,
    "twinit": TwinIt,
}


@dataclass(slots=True)
class Entry:
    """A table entry undo can take back: the game just before it, and where it stands
    in the round's events. A `void` also keeps the undo stack and events before it."""

    kind: str
    event: Event
    before: Game
    at: int
    undo: list[Entry] | None = None
    events: list[Event] | None = None
    marks: list[Mark] | None = None


#: a copy of the game just before the event at that index of the round's events
Mark = tuple[int, Game]


class Engine:
    """A game in progress, with the copies that undo and void need."""

    def __init__(self, created: GameCreated) -> None:
        self.created = created
        self.game: Game = GAME_CLASSES[created.game](created)
        self._undo: list[Entry] = []
        #: the game as the current round began, and the round's events folded since
        self._start: Game = self.game.snapshot()
        self._events: list[Event] = []
        #: copies taken before the stop presses of the round, for void
        self._marks: list[Mark] = []
        #: the last pad time before each round began (index 0: round 1), for refusals
        self._bounds: list[int] = []

    @classmethod
    def from_dict(cls, obj: object) -> Engine:
        """A new game from the first line of a log; InvalidEventError if it is no `game`."""
        if not isinstance(obj, dict) or obj.get("type") != "game":
            raise InvalidEventError(
                Words("a game log starts with a 'game' line"), code="no-game-line"
            )
        event = parse_event(obj)
        assert isinstance(event, GameCreated)
        return cls(event)

    def apply_dict(self, obj: object) -> Event:
        """Parse and apply one log line's object; returns the event applied."""
        event = parse_event(obj)
        self.apply(event)
        return event

    def apply(self, event: Event) -> None:
        """Apply one event. A refused one raises BuzzerboxError and changes nothing."""
        kind = type(event)
        if kind is PadPressed:  # most events are pad edges: straight to the game
            game = self.game
            if game.phase is PLAYING and event.pad == "stop":  # type: ignore[union-attr]
                self._marks.append((len(self._events), game.snapshot()))  # void may start here
            game.press(event)  # type: ignore[arg-type]
            self._events.append(event)
        elif kind is PadReleased:
            self.game.release(event)  # type: ignore[arg-type]
            self._events.append(event)
        elif kind is GameCreated:
            raise IllegalEventError(
                Words(
                    "a {title} game is already under way: a new game starts a new log",
                    {"title": self.game.title},
                ),
                code="game-under-way",
            )
        elif kind is EntryUndone:
            self.undo()
        elif kind is PressVoided:
            self._void(event)  # type: ignore[arg-type]
        else:
            self._step(event)

    def _step(self, event: Event) -> None:
        game = self.game
        kind = type(event)
        if kind in TABLE_ENTRY_TYPES:
            before = game.snapshot()
            try:
                game.apply(event)
            except Exception:
                self.game = before
                raise
            self._undo.append(Entry(event_type(event), event, before, len(self._events)))
        elif kind is RoundStarted:
            start = game.snapshot()
            game.apply(event)
            self._bounds.append(start.last_pad_t)  # pad times up to it: earlier rounds
            self._start, self._events, self._marks = start, [], []
            self._undo.clear()
        elif kind is PadPressed:
            self.apply(event)
            return
        else:
            game.apply(event)
        self._events.append(event)

    def _void(self, event: PressVoided) -> None:
        game = self.game
        game.check_seat(event.seat)
        key = (event.seat, event.t_us)
        name, t_us = game.name(event.seat), event.t_us
        if key in game.voided_keys:
            raise IllegalEventError(
                Words(
                    "{name}'s press at {t_us} µs is voided already: undo takes a void back",
                    {"name": name, "t_us": t_us},
                ),
                subject=name,
                code="voided-already",
            )
        found = self._find(key)
        if not found:
            raise self._no_press(name, key)
        presses = tuple(game.press_of(self._events[i]) for i in found)  # type: ignore[arg-type]
        voided = game.voided_keys | {key}
        saved = (self.game, self._undo, self._events, self._marks)
        # fold again from the last copy taken before the press: the round's start, a table
        # entry (Twin It! is one long round) or the stop press that ended the round
        at, start, keep, first = 0, self._start, 0, found[0]
        for n in range(len(saved[1]) - 1, -1, -1):  # the latest entry before the press:
            entry = saved[1][n]  # the fold starts just before it, the entries under it stay
            if entry.undo is None and entry.at < first:
                at, start, keep = entry.at, entry.before, n
                break
        for mark, copy in reversed(saved[3]):  # or a stop press after it, up to the press
            if mark <= first:
                if mark > at:  # the entry found, if any, lies before the mark: it stays too
                    keep = keep + 1 if start is not self._start else 0
                    at, start = mark, copy
                break
        self.game = start.snapshot()
        self.game.keep_notes(game, presses)
        self._undo = saved[1][:keep]
        self._events, self._marks = saved[2][:at], [m for m in saved[3] if m[0] < at]
        try:
            for e in saved[2][at:]:
                if not isinstance(e, PadPressed) or e.key not in voided:
                    self._step(e)
        except BuzzerboxError as exc:
            self.game, self._undo, self._events, self._marks = saved
            said = {"name": name, "t_us": t_us, "round": game.round, "why": exc.words or str(exc)}
            raise IllegalEventError(
                Words(
                    "{name}'s press at {t_us} µs cannot be voided: without it, a later entry "
                    "of round {round} is refused ({why}); undo that entry first",
                    said,
                ),
                subject=name,
                code="void-breaks-entry",
            ) from None
        self._undo.append(Entry("void", event, saved[0], -1, saved[1], saved[2], saved[3]))

    def _find(self, key: tuple[int, int]) -> list[int]:
        """Where the presses of (seat, t_us) are in the round's events, first first. Pad
        events come in time order, so the search from the end stops at an earlier time."""
        found = []
        events = self._events
        for i in range(len(events) - 1, -1, -1):
            e = events[i]
            kind = type(e)
            if kind is PadPressed or kind is PadReleased:
                if e.t_us < key[1]:  # type: ignore[union-attr]
                    break
                if kind is PadPressed and e.key == key:  # type: ignore[union-attr]
                    found.append(i)
        return found[::-1]

    def _no_press(self, name: str, key: tuple[int, int]) -> IllegalEventError:
        t_us = key[1]
        if self._bounds and t_us <= self._bounds[-1]:
            number = bisect.bisect_left(self._bounds, t_us)  # the round that time was in
            when = (
                Words("round {round}, which is over", {"round": number})
                if number
                else Words("before the first round")
            )
            return IllegalEventError(
                Words(
                    "{name}'s press at {t_us} µs is from {when}: void takes back a press of "
                    "the current round; correct an earlier round with amend",
                    {"name": name, "t_us": t_us, "when": when},
                ),
                subject=name,
                code="press-of-another-round",
            )
        return IllegalEventError(
            Words(
                "{name} pressed no pad at {t_us} µs in this round, or that press was taken "
                "back with an undo: void names a press of the current round by its seat and t_us",
                {"name": name, "t_us": t_us},
            ),
            subject=name,
            code="no-such-press",
        )

    def undo(self) -> None:
        if not self._undo:
            game = self.game
            if game.round == 0:
                words = Words("nothing to undo: no table entry has been made yet")
                raise IllegalEventError(words, code="nothing-to-undo")
            raise IllegalEventError(
                Words(
                    "nothing to undo in round {round}: only the table entries of the "
                    "current round and a finish can be taken back",
                    {"round": game.round},
                ),
                code="nothing-to-undo",
            )
        entry = self._undo.pop()
        later = self.game
        if entry.undo is not None and entry.events is not None:  # a void: all as it was
            self.game, self._undo, self._events = entry.before, entry.undo, entry.events
            self._marks = entry.marks or []
            return
        self.game = entry.before
        self._marks = [m for m in self._marks if m[0] < entry.at]
        if isinstance(later, TwinIt) and later.claim is not None and entry.kind == "claim":
            assert isinstance(entry.before, TwinIt)
            entry.before.requeue_open_claim(later)
            del self._events[entry.at]  # the slaps since stay: their claim waits
            return
        del self._events[entry.at :]

    @property
    def undoable(self) -> str | None:
        """The type of the entry `undo` would take back, if any."""
        return self._undo[-1].kind if self._undo else None

    def state(self) -> StateJson:
        """The state object of game-log.md (without `rejected`, which replay adds)."""
        state = self.game.to_json()
        state["undoable"] = self.undoable
        if self._undo:
            entry = self._undo[-1]
            state["undo"] = {
                "type": entry.kind,
                "entry": event_to_dict(entry.event),
                "text": describe(entry.kind, entry.event, entry.before, self.game),
            }
        else:
            state["undo"] = None
        return state
