"""The box: the game in progress. Pads -> rules -> store -> listeners (web, lights).

A `Box` holds the game (a rules `Engine`), the SQLite `EventLog` and its parts: the
pads' seats and enrolment (enrol.py), the phones as pads (phones.py), the countdown
(countdown.py) and the archive of games and exports (archive.py). Every change goes
through it under one lock: an event is applied to the engine (which refuses it and
changes nothing, or accepts it), appended to the log (durable, or said unsaved: serve),
and only then announced to the listeners (`when_changed`) and the pad lights
(`when_lit`). On start it replays the log and resumes the last game where it stood.
Time enters only through the injected `Clock`: see README.md beside this file.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, cast

from buzzerbox.box.archive import GameArchive, lost_game
from buzzerbox.box.boxjson import BoxJson, BoxStateJson
from buzzerbox.box.checks import (
    check_import_size,
    check_mostly_accepted,
    check_table_entry,
    shown_rejected,
)
from buzzerbox.box.countdown import Countdown
from buzzerbox.box.enrol import ENROL_PHASES, PadLayout, PadSeats, lit_pads
from buzzerbox.box.errors import NO_REMATCH, NoGameError
from buzzerbox.box.gameinfo import draw_seat, idle_state, last_t, progress
from buzzerbox.box.outcome import EdgeOutcome, Enrolled, Played, Refused
from buzzerbox.box.phones import PhoneSeats, follow
from buzzerbox.clock import Clock, SystemClock
from buzzerbox.errors import BuzzerboxError, Words
from buzzerbox.pads.pad import Pad
from buzzerbox.pads.timeline.arbiter import BoardJson, Edge
from buzzerbox.pads.virtual import VirtualPads
from buzzerbox.rules.engine import Engine
from buzzerbox.rules.eventjson import event_to_dict
from buzzerbox.rules.events import (
    ClaimSettled,
    Event,
    PadPressed,
    PadReleased,
    StartSignalled,
    event_type,
)
from buzzerbox.rules.gamelog import Rejected
from buzzerbox.rules.phase import Phase
from buzzerbox.store.eventlog import EventLog, StoreError
from buzzerbox.store.restore import load_lines, replay_stored

logger = logging.getLogger(__name__)

COUNTDOWN_US = 3_000_000
GO_RETRY_US = 500_000


class Box:
    """The game in progress, its log (and its games' exports), its countdown, its pads."""

    def __init__(
        self,
        log_: EventLog,
        *,
        clock: Clock | None = None,
        pads: PadLayout | None = None,
        countdown_us: int = COUNTDOWN_US,
        phones: PhoneSeats | None = None,
    ) -> None:
        self.log = log_
        self.clock: Clock = clock or SystemClock()
        self.countdown_us = countdown_us
        #: where the pads come from: a pad map, or the phones' virtual pads (the default)
        self.pad_layout: PadLayout = pads if pads is not None else VirtualPads()
        self._seats = PadSeats(self.pad_layout)
        #: phones as pads: which phone is whose buzzer (phones.py; kept if given a file)
        self.phones = phones if phones is not None else PhoneSeats()
        self.when_changed: list[Callable[[BoxStateJson], None]] = []
        self.when_lit: list[Callable[[list[str]], None]] = []
        #: the pad edges refused (counted, logged, never raised)
        self.pad_refusals = 0
        self.archive = GameArchive(log_, lambda: self._game_id)
        self._lock = threading.RLock()
        self._engine: Engine | None = None
        self._game_line: dict[str, Any] = {}
        self._game_id: int | None = None
        self._rejected: list[Rejected] = []  # the first few (REJECTED_SHOWN)
        self._rejected_count = 0
        self._offset_us = 0
        self._countdown = Countdown(self.clock)
        self._lit: list[str] = []
        self._cache: BoxStateJson | None = None
        self._reports: dict[str, Any] = {}  # what other parts say of themselves, e.g. "mqtt"
        self.seq = log_.last_seq()
        last = log_.last_game_id()
        if last is not None:
            self._load(last)
        players = len(self._engine.game.players) if self._engine else 0
        # the seats phones held before a restart, if they were this very game's
        self.phones.resume(self._game_id, players, self._started())
        if last is not None:
            self._settle()

    # -- time -------------------------------------------------------------------------

    def now_us(self) -> int:
        """Now on the box timeline (host monotonic µs plus the offset)."""
        return self.clock.ticks() + self._offset_us

    def host_to_box_us(self, t_us: int) -> int:
        return t_us + self._offset_us

    # -- reading ------------------------------------------------------------------------

    def state(self) -> BoxStateJson:
        """The state object of the current game, plus what the box adds under "box".

        The dict is shared between callers until the next change: do not mutate it.
        """
        with self._lock:
            if self._cache is None:
                state = self._engine.state() if self._engine else idle_state()
                state["rejected"] = [r.to_json() for r in self._rejected]
                state["rejected_count"] = self._rejected_count
                box: dict[str, object] = {
                    "simulated": self.is_simulated,
                    "pads": self._seats.pads_json(self._engine),
                    "countdown_ends_us": self._countdown.ends_us,
                    "countdown": self._countdown.kind,
                    "seq": self.seq,
                    "game_id": self._game_id,
                    "variants": list(self._game_line.get("variants", [])),
                    "lit": list(self._lit),
                    "enrolling": self._seats.enrolling,
                    "pad_test": self._seats.edges(),
                    "boards": list(self._seats.boards.values()),
                    **self._reports,
                    "phones": self.phones.to_json(),
                    "colours": self.archive.colours(),
                }
                # the same dict, now with `box` (its reports' keys are BoxJson's)
                self._cache = cast(BoxStateJson, state)
                self._cache["box"] = cast(BoxJson, box)
            return self._cache

    @property
    def is_simulated(self) -> bool:
        """Whether the pads are virtual (pressed on the phones), not wired."""
        return self.pad_layout.is_virtual

    def report(self, key: str, value: Any) -> None:
        """Another part's status under state["box"][key] (e.g. the broker link)."""
        with self._lock:
            self._reports[key] = value
            self._changed()

    # -- commands -----------------------------------------------------------------------

    def new_game(self, fields: Mapping[str, Any], *, keep_phones: bool = False) -> BoxStateJson:
        """Start a new game (the old one stays in the log). Raises InvalidEventError."""
        line = {"type": "game", **{k: v for k, v in fields.items() if k != "type"}}
        if line.get("game") == "twinit":  # the box draws who starts unless the table chose
            line.setdefault("first", draw_seat(line.get("players")))
        engine = Engine.from_dict(line)
        body = event_to_dict(engine.created)
        with self._lock:
            before = list(self._engine.game.players) if self._engine else []
            self._game_id = self.log.new_game(body, progress(engine))
            self.seq = self._game_id
            self._engine, self._game_line = engine, body
            self._rejected, self._rejected_count = [], 0
            self._seats.load({})
            # the same players again: each guest's phone finds its player's seat
            moves = follow(before, engine.game.players)
            self.phones.reset(self._game_id, started=self._started(), keep=keep_phones, moves=moves)
            self._settle()
            return self.state()

    def rematch(self) -> BoxStateJson:
        """The same game again: its players in their seats (so colours), target or rounds,
        variants, enrolled pads and the phones' seats. NoGameError if there is none."""
        with self._lock:
            if self._game_id is None:
                raise NoGameError(NO_REMATCH, code="no-game")
            old, line = self._game_id, self._game_line
            keep = ("game", "players", "target", "rounds", "variants")
            fields = {k: line[k] for k in keep if k in line}
            self.new_game(fields, keep_phones=True)
            new = self._game_id
            assert new is not None
            for pad, seat in self.log.enrolments(old).items():
                self.log.enrol(new, pad, seat)
            self._seats.load(self.log.enrolments(new))
            self._changed()
            return self.state()

    def submit(self, entry: Event) -> BoxStateJson:
        """A table entry (round, caller, ..., undo: `table_entry` parses a phone's);
        returns the new state."""
        check_table_entry(event_type(entry))
        with self._lock:
            self._accept(entry)
            return self.state()

    def import_log(self, text: str) -> BoxStateJson:
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
            self.phones.reset(self._game_id, started=self._started())
            self._settle()
            return self.state()

    def _started(self) -> float | None:
        """When the log started the current game (with its id, the game's identity)."""
        summary = self.log.game(self._game_id) if self._game_id is not None else None
        return summary.started if summary is not None else None

    # -- the pads and the phones ---------------------------------------------------------

    def pads(self) -> list[Pad]:
        with self._lock:
            return self._seats.pads(self._engine)

    def play(
        self, edge: PadPressed | PadReleased, *, pad_id: str | None = None, clamp: bool = True
    ) -> BoxStateJson:
        """A seat's pad edge at `edge.t_us` (box timeline): a virtual pad's or a phone's
        (`parse_edge` makes one of a page's request), or a real pad's (`pad_id`, from
        `pad_edge`). A virtual pad's time is clamped so pad events stay in time order
        (two requests may take the lock in either order); a real pad's is not
        (`clamp=False`): the rules refuse an edge out of order."""
        with self._lock:
            last = self._engine.game.last_pad_t if self._engine and clamp else -1
            if edge.t_us < last:
                edge = replace(edge, t_us=last + 1)  # after the last, no made-up tie
            record = self._seats.edge_of(edge, pad_id)  # the pad test's
            try:
                self._accept(edge, pad_id)
            except BuzzerboxError as exc:
                record.noted(Words("refused: {reason}", {"reason": exc.words or str(exc)}))
                self._changed()
                raise
            return self.state()

    def pad_edge(self, edge: Edge) -> EdgeOutcome:
        """An edge from the pads layer (the arbiter's, final, host timeline): mapped
        through the pad map and the game's enrolments; while a seat enrols, a press
        enrols its pad and is not played. Never raises: an edge the box or the rules
        refuse is counted, logged and returned as `Refused` with its reason."""
        pad_id, pressed = edge.pad, edge.is_press
        with self._lock:
            t_us = self.host_to_box_us(edge.t_us)
            try:
                taken = self._seats.enrol_edge(
                    pad_id, pressed, t_us, self._engine, self._game_id, self.log
                )
                if taken is not None:
                    self._changed()
                    return Enrolled(taken[1], taken[0])
                pad = next((p for p in self.pads() if p.id == pad_id), None)
                if pad is None:
                    refusal = self._seats.unmapped(pad_id, pressed, t_us)
                    self._changed()
                    raise refusal
                kind = PadPressed if pressed else PadReleased
                self.play(kind(pad.seat, pad.role, t_us, pad.pile), pad_id=pad_id, clamp=False)
            except BuzzerboxError as exc:
                self.pad_refusals += 1
                logger.info("pad %s %s refused: %s", pad_id, "press" if pressed else "release", exc)
                return Refused(str(exc))
            self._seats.echo(self.state()["phase"])
            return Played(pad.seat, pad.role, pad.pile, pressed)

    def pad_board(self, status: BoardJson) -> None:
        """A pad board's status (`buzzerbox monitor --json`'s board object): the pad test's."""
        with self._lock:
            self._seats.board(status)
            self._changed()

    def enrol(self, seat: object, *, reset: bool = False) -> BoxStateJson:
        """The next press of a pad enrols it for `seat` (see PadSeats.command)."""
        with self._lock:
            self._seats.command(seat, reset, self._engine, self._game_id, self.log)
            self._changed()
            return self.state()

    def change_phones(self, change: Callable[[PhoneSeats, int], object]) -> BoxStateJson:
        """Change which phones are pads: `change(phones, seats)`; announced unless False."""
        with self._lock:
            seats = len(self._engine.game.players) if self._engine else 0
            if change(self.phones, seats) is not False:
                self._changed()
            return self.state()

    def phone_seat(self, token: object) -> int:
        """The seat of the phone holding `token` (PhoneSeatError if it has none)."""
        with self._lock:
            return self.phones.seat_of(token)

    # -- the archive (box.archive: the log's games and their exports) --------------------

    @property
    def game_id(self) -> int | None:
        return self._game_id

    # -- inside the lock ------------------------------------------------------------------

    def _accept(self, event: Event, pad_id: str | None = None) -> Event:
        """Apply `event` (typed: parsed where it entered the box) and log it, the log's
        JSON made here, where it leaves for the store (`pad_id`: a real pad's, kept)."""
        if self._engine is None or self._game_id is None:
            raise NoGameError(Words("no game has started: start a new game first"), code="no-game")
        self._engine.apply(event)
        body = event_to_dict(event)
        if pad_id is not None:
            body["pad_id"] = pad_id
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
            raise StoreError(lost_game(self.log.path, game_id), code="game-lost")
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
                    self._accept(StartSignalled(self.now_us()))
                    return
            except BuzzerboxError as exc:
                logger.error("the start signal was refused: %s", exc)
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
