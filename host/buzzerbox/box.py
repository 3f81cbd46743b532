"""The box: the game in progress. Pads -> rules -> store -> listeners (web, lights).

A `Box` holds the game (a rules `Engine`) and the SQLite `EventLog`. Every change goes
through it under one lock: an event is applied to the engine (which refuses it and
changes nothing, or accepts it), appended to the log (durable when `append` returns),
and only then announced to the listeners (`when_changed`) and the pad lights
(`when_lit`). On start it replays the log and resumes the last game where it stood.
Which pad is whose is enrol.py's; the pads come from a pad source (pads/); what the box
does with their edges (and the phones') is padinputs.py's. serve.py builds it and wires
it to the rest.

Time enters only through the injected `Clock` (host monotonic µs, the pads' clock):
the `go` when a countdown ends, a virtual pad's press. The box timeline is the host
clock plus an offset, so that it never runs behind the times already in the log.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from buzzerbox.clock import Clock, SystemClock
from buzzerbox.countdown import Countdown
from buzzerbox.enrol import ENROL_PHASES, PadSeats, PadSource, lit_pads
from buzzerbox.entries import (
    check_import_size,
    check_mostly_accepted,
    check_table_entry,
    draw_seat,
    idle_state,
    last_t,
    progress,
    shown_rejected,
)
from buzzerbox.errors import BuzzerboxError
from buzzerbox.padinputs import PadInputs
from buzzerbox.pads.pad import Pad
from buzzerbox.pads.virtual import VirtualPads
from buzzerbox.phones import PhoneSeats
from buzzerbox.rules.engine import Engine
from buzzerbox.rules.events import ClaimSettled, Event, event_to_dict
from buzzerbox.rules.phase import Phase
from buzzerbox.store.games import GameArchive, GameNotFoundError, NoGameError, NotFinishedError
from buzzerbox.store.log import EventLog, StoreError
from buzzerbox.store.replay import load_lines, replay_stored

log = logging.getLogger(__name__)
__all__ = ["Box", "GameNotFoundError", "NoGameError", "NotFinishedError", "Pad"]

COUNTDOWN_US = 3_000_000
GO_RETRY_US = 500_000


class Box(PadInputs, GameArchive):
    """The game in progress, its log (and its games' exports), its countdown, its pads."""

    def __init__(
        self,
        log_: EventLog,
        *,
        clock: Clock | None = None,
        pads: PadSource | None = None,
        countdown_us: int = COUNTDOWN_US,
        phones: PhoneSeats | None = None,
    ) -> None:
        self.log = log_
        self.clock: Clock = clock or SystemClock()
        self.countdown_us = countdown_us
        #: where the pads come from: a pad map, or the phones' virtual pads (the default)
        self.pad_source: PadSource = pads if pads is not None else VirtualPads()
        self._seats = PadSeats(self.pad_source)
        #: phones as pads: which phone is whose buzzer (phones.py; kept if given a file)
        self.phones = phones if phones is not None else PhoneSeats()
        self.when_changed: list[Callable[[dict[str, Any]], None]] = []
        self.when_lit: list[Callable[[list[str]], None]] = []
        self.pad_refusals = 0
        self._lock = threading.RLock()
        self._engine: Engine | None = None
        self._game_line: dict[str, Any] = {}
        self._game_id: int | None = None
        self._rejected: list[dict[str, Any]] = []  # the first few (REJECTED_SHOWN)
        self._rejected_count = 0
        self._offset_us = 0
        self._countdown = Countdown(self.clock)
        self._lit: list[str] = []
        self._boards: dict[str, dict[str, Any]] = {}
        self._cache: dict[str, Any] | None = None
        self._pads_made: tuple[list[Pad] | None, list[dict[str, Any]]] = (None, [])
        self._reports: dict[str, Any] = {}  # what other parts say of themselves, e.g. "mqtt"
        self.seq = log_.last_seq()
        last = log_.last_game_id()
        if last is not None:
            self._load(last)
        players = len(self._engine.game.players) if self._engine else 0
        self.phones.resume(self._game_id, players)  # the seats phones held before a restart
        if last is not None:
            self._settle()

    # -- time -------------------------------------------------------------------------

    def now_us(self) -> int:
        """Now on the box timeline (host monotonic µs plus the offset)."""
        return self.clock.ticks() + self._offset_us

    def host_to_box_us(self, t_us: int) -> int:
        return t_us + self._offset_us

    # -- reading ------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The state object of the current game, plus what the box adds under "box".

        The dict is shared between callers until the next change: do not mutate it.
        """
        with self._lock:
            if self._cache is None:
                state = self._engine.state() if self._engine else idle_state()
                state["rejected"] = list(self._rejected)
                state["rejected_count"] = self._rejected_count
                state["box"] = {
                    "simulated": self.is_simulated,
                    "pads": self._pads_json(),
                    "countdown_ends_us": self._countdown.ends_us,
                    "countdown": self._countdown.kind,
                    "seq": self.seq,
                    "game_id": self._game_id,
                    "variants": list(self._game_line.get("variants", [])),
                    "lit": list(self._lit),
                    "enrolling": self._seats.enrolling,
                    "pad_test": self._seats.edges(),
                    "boards": list(self._boards.values()),
                    **self._reports,
                    "phones": self.phones.to_json(),
                }
                self._cache = state
            return self._cache

    @property
    def is_simulated(self) -> bool:
        """Whether the pads are virtual (pressed on the phones), not wired."""
        return self.pad_source.is_virtual

    def report(self, key: str, value: Any) -> None:
        """Another part's status under state["box"][key] (e.g. the broker link)."""
        with self._lock:
            self._reports[key] = value
            self._changed()

    # -- commands -----------------------------------------------------------------------

    def new_game(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        """Start a new game (the old one stays in the log). Raises InvalidEventError."""
        line = {"type": "game", **{k: v for k, v in fields.items() if k != "type"}}
        if line.get("game") == "twinit":  # the box draws who starts unless the table chose
            line.setdefault("first", draw_seat(line.get("players")))
        engine = Engine.from_dict(line)
        body = event_to_dict(engine.created)
        with self._lock:
            self._game_id = self.log.new_game(body, progress(engine))
            self.seq = self._game_id
            self._engine, self._game_line = engine, body
            self._rejected, self._rejected_count = [], 0
            self._seats.load({})
            self.phones.reset(self._game_id)
            self._settle()
            return self.state()

    def rematch(self) -> dict[str, Any]:
        """The same game again: its players in their seats (so their colours), its target
        or rounds and variants, its enrolled pads. NoGameError if there is none."""
        with self._lock:
            if self._game_id is None:
                raise NoGameError("no game has been played: a rematch repeats one")
            old, line = self._game_id, self._game_line
            keep = ("game", "players", "target", "rounds", "variants")
            fields = {k: line[k] for k in keep if k in line}
            self.new_game(fields)
            new = self._game_id
            assert new is not None
            for pad, seat in self.log.enrolments(old).items():
                self.log.enrol(new, pad, seat)
            self._seats.load(self.log.enrolments(new))
            self._changed()
            return self.state()

    def submit(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """A table entry from a phone (round, caller, ..., undo); returns the new state."""
        check_table_entry(obj)
        with self._lock:
            self._accept(dict(obj))
            return self.state()

    def import_log(self, text: str) -> dict[str, Any]:
        """A game log (v1) as a new game; returns its state with the lines rejected (the
        first few, and their count). A file too big or mostly refused changes nothing."""
        check_import_size(text)
        lines = load_lines(text)
        engine, accepted, rejected = replay_stored(lines)
        check_mostly_accepted(len(accepted), rejected)
        body = dict(lines[0][1])
        with self._lock:
            self._game_id, self.seq = self.log.new_game_with(body, accepted, progress(engine))
            self._engine, self._game_line = engine, body
            self._rejected, self._rejected_count = shown_rejected(rejected), len(rejected)
            self._offset_us = max(self._offset_us, last_t(engine) + 1 - self.clock.ticks())
            self._seats.load({})
            self.phones.reset(self._game_id)
            self._settle()
            return self.state()

    # -- inside the lock ------------------------------------------------------------------

    def _accept(self, obj: dict[str, Any]) -> Event:
        if self._engine is None or self._game_id is None:
            raise NoGameError("no game has started: start a new game first")
        event = self._engine.apply_dict(obj)
        body = event_to_dict(event)
        if "pad_id" in obj:
            body["pad_id"] = obj["pad_id"]
        try:
            self.seq = self.log.append(self._game_id, body, progress(self._engine))
        except StoreError:
            self._load(self._game_id)  # the engine goes back to what the log holds
            raise
        if isinstance(event, ClaimSettled) and event.result == "split":
            self._start_countdown("split")
        self._settle()
        return event

    def _load(self, game_id: int) -> None:
        events = self.log.events(game_id)
        if not events:
            raise StoreError(
                f"the log {self.log.path} lists game {game_id} but holds none of its events: "
                "run `buzzerbox doctor --log` on its folder"
            )
        engine, _, rejected = replay_stored([(e.seq, e.body) for e in events])
        self._engine, self._game_id = engine, game_id
        self._rejected, self._rejected_count = shown_rejected(rejected), len(rejected)
        self._game_line = dict(events[0].body)
        self._seats.load(self.log.enrolments(game_id))
        self._offset_us = max(self._offset_us, last_t(engine) + 1 - self.clock.ticks())

    def _settle(self) -> None:
        """After a change: a countdown runs exactly while the game counts down; announce."""
        phase = self._engine.game.phase if self._engine else Phase.IDLE
        if phase not in ENROL_PHASES:
            self._seats.enrolling = None
        kind = self._countdown.kind
        if phase == Phase.COUNTDOWN and kind != "go":
            self._start_countdown("go")
        elif phase != Phase.COUNTDOWN and kind == "go":
            self._countdown.stop()
        self._changed()

    def _start_countdown(self, kind: str, delay_us: int | None = None) -> None:
        delay = self.countdown_us if delay_us is None else delay_us
        self._countdown.start(kind, self.now_us(), delay, self._countdown_ended)

    def _countdown_ended(self, token: int) -> None:
        with self._lock:
            if not self._countdown.is_current(token):
                return
            kind = self._countdown.kind
            self._countdown.stop()
            try:
                if kind == "go" and self._engine and self._engine.game.phase == Phase.COUNTDOWN:
                    self._accept({"type": "go", "t_us": self.now_us()})
                    return
            except BuzzerboxError as exc:
                log.error("the start signal was refused: %s", exc)
                if kind == "go":  # the log cannot be written now: try again soon
                    self._start_countdown("go", GO_RETRY_US)
            self._changed()

    def _changed(self) -> None:
        self._cache = None
        state = self.state()
        lit = state["box"]["lit"] = lit_pads(state, self.pads())
        for listener in list(self.when_changed):
            listener(state)
        if lit != self._lit:
            self._lit = lit
            for light in list(self.when_lit):
                light(lit)

    def close(self) -> None:
        with self._lock:
            self._countdown.stop()
        self.log.close()
