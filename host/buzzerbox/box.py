"""The box: the one wiring point. Pads -> rules -> store -> listeners (web, lights).

A `Box` holds the game in progress (a rules `Engine`) and the SQLite `EventLog`.
Every change goes through it under one lock: an event is applied to the engine
(which refuses it and changes nothing, or accepts it), appended to the log (durable
when `append` returns), and only then announced to the listeners (`when_changed`:
the live stream) and the pad lights (`when_lit`). On start the box replays the log
and resumes the last game where it stood. Which pad is whose (the pad map, enrolment)
and the pad test's last edges are enrol.py's.

Time enters only here, through an injected `Clock` (host monotonic µs, the clock the
pads use): the start signal `go` when a countdown ends, and the press time of a
virtual pad. The box timeline is the host clock plus an offset chosen when a game is
loaded, so that it never runs behind the times already in the log (after a reboot the
host clock starts again near 0).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from buzzerbox.enrol import ENROL_PHASES, Pad, PadSeats, lit_pads, virtual_pads
from buzzerbox.rules.engine import Engine
from buzzerbox.rules.errors import BuzzerboxError, IllegalEventError, InvalidEventError
from buzzerbox.rules.events import TABLE_ENTRIES, ClaimSettled, Event, event_to_dict
from buzzerbox.rules.phase import Phase
from buzzerbox.store import games
from buzzerbox.store.games import GameNotFoundError, NoGameError, NotFinishedError
from buzzerbox.store.log import EventLog, Progress, StoreError
from buzzerbox.store.replay import load_lines, replay_stored

log = logging.getLogger(__name__)
__all__ = ["Box", "Clock", "GameNotFoundError", "NoGameError", "NotFinishedError", "Pad"]

COUNTDOWN_US = 3_000_000
GO_RETRY_US = 500_000
#: table entries a phone may post; `go`, `press` and `release` come from the box and pads
TABLE_EVENTS = frozenset(
    {"round", *TABLE_ENTRIES, "undo"}  # caller, stall, counts, claim, void, amend, finish
)


class Cancellable(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """Host monotonic time in µs, and callbacks after a delay."""

    def ticks(self) -> int: ...

    def call_later(self, delay_us: int, fn: Callable[[], None]) -> Cancellable: ...


class SystemClock:
    """The host clock: time.monotonic_ns() // 1000, the clock the pads stamp edges with."""

    def ticks(self) -> int:
        return time.monotonic_ns() // 1000

    def call_later(self, delay_us: int, fn: Callable[[], None]) -> Cancellable:
        timer = threading.Timer(max(delay_us, 0) / 1e6, fn)
        timer.daemon = True
        timer.start()
        return timer


def idle_state() -> dict[str, Any]:
    """The state object before the box has seen any game."""
    return {
        "game": None,
        "title": None,
        "round": 0,
        "phase": Phase.IDLE,
        "players": [],
        "winners": [],
        "caller": None,
        "history": [],
        "undoable": None,
        "undo": None,
    }


class Box:
    """The game in progress, its log, its countdown and its pads."""

    def __init__(
        self,
        log_: EventLog,
        *,
        clock: Clock | None = None,
        simulated: bool = True,
        countdown_us: int = COUNTDOWN_US,
        pad_map: Iterable[Pad] = (),
    ) -> None:
        self.log = log_
        self.clock: Clock = clock or SystemClock()
        self.is_simulated = simulated
        self.countdown_us = countdown_us
        self.pad_map = list(pad_map)
        self._seats = PadSeats(self.pad_map)
        self.when_changed: list[Callable[[dict[str, Any]], None]] = []
        self.when_lit: list[Callable[[list[str]], None]] = []
        self.pad_refusals = 0
        self._lock = threading.RLock()
        self._engine: Engine | None = None
        self._game_line: dict[str, Any] = {}
        self._game_id: int | None = None
        self._rejected: list[dict[str, Any]] = []
        self._offset_us = 0
        self._countdown: tuple[int, str] | None = None
        self._timer: Cancellable | None = None
        self._token = 0
        self._lit: list[str] = []
        self._cache: dict[str, Any] | None = None
        self.seq = log_.last_seq()
        last = log_.last_game_id()
        if last is not None:
            self._load(last)
            self._settle()

    # -- time -------------------------------------------------------------------------

    def now_us(self) -> int:
        """Now on the box timeline (host monotonic µs plus the offset)."""
        return self.clock.ticks() + self._offset_us

    def host_to_box_us(self, t_us: int) -> int:
        return t_us + self._offset_us

    # -- reading ------------------------------------------------------------------------

    @property
    def game_id(self) -> int | None:
        return self._game_id

    def state(self) -> dict[str, Any]:
        """The state object of the current game, plus what the box adds under "box".

        The dict is shared between callers until the next change: do not mutate it.
        """
        with self._lock:
            if self._cache is None:
                state = self._engine.state() if self._engine else idle_state()
                state["rejected"] = list(self._rejected)
                ends, kind = self._countdown or (None, None)
                state["box"] = {
                    "simulated": self.is_simulated,
                    "pads": [p.to_json() for p in self.pads()],
                    "countdown_ends_us": ends,
                    "countdown": kind,
                    "seq": self.seq,
                    "game_id": self._game_id,
                    "variants": list(self._game_line.get("variants", [])),
                    "lit": list(self._lit),
                    "enrolling": self._seats.enrolling,
                    "pad_test": self._seats.edges(),
                }
                self._cache = state
            return self._cache

    def pads(self) -> list[Pad]:
        with self._lock:
            return (
                virtual_pads(self._engine) if self.is_simulated else self._seats.pads(self._engine)
            )

    def games(self) -> list[dict[str, Any]]:
        return [g.to_json() for g in self.log.games()]

    # -- commands -----------------------------------------------------------------------

    def new_game(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        """Start a new game (the old one stays in the log). Raises InvalidEventError."""
        line = {"type": "game", **{k: v for k, v in fields.items() if k != "type"}}
        if line.get("game") == "twinit":  # the box draws who starts unless the table chose
            line.setdefault("first", _draw_seat(line.get("players")))
        engine = Engine.from_dict(line)
        body = event_to_dict(engine.created)
        with self._lock:
            self._game_id = self.log.new_game(body, self._progress(engine))
            self.seq = self._game_id
            self._engine, self._game_line, self._rejected = engine, body, []
            self._seats.load({})
            self._settle()
            return self.state()

    def submit(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """A table entry from a phone (round, caller, ..., undo); returns the new state."""
        kind = obj.get("type")
        if not isinstance(kind, str) or kind not in TABLE_EVENTS:
            raise InvalidEventError(
                f"event type {kind!r} cannot be posted: the table posts "
                f"{', '.join(sorted(TABLE_EVENTS))}; go, press and release come from the box"
            )
        with self._lock:
            self._accept(dict(obj))
            return self.state()

    def press(
        self,
        seat: int,
        pad: str,
        pile: int | None,
        t_us: int,
        *,
        released: bool = False,
        pad_id: str | None = None,
        clamp: bool = True,
    ) -> dict[str, Any]:
        """A pad edge at `t_us` (box timeline). A virtual pad's time is clamped so pad
        events stay in time order (two requests may take the lock in either order);
        a real pad's is not (`clamp=False`): the rules refuse an edge out of order."""
        obj: dict[str, Any] = {"type": "release" if released else "press", "seat": seat, "pad": pad}
        if pile is not None:
            obj["pile"] = pile
        with self._lock:
            last = self._engine.game.last_pad_t if self._engine and clamp else -1
            obj["t_us"] = max(t_us, 0) if t_us >= last else last + 1  # no made-up tie
            if pad_id is not None:
                obj["pad_id"] = pad_id
            edge = self._seats.edge_of(obj, pad_id)  # a malformed edge is refused, not shown
            try:
                self._accept(obj)
            except BuzzerboxError as exc:
                edge["note"] = f"refused: {exc}"
                self._changed()
                raise
            return self.state()

    def pad_edge(self, pad_id: str, pressed: bool, host_t_us: int) -> None:
        """An edge from the pads layer (host timeline): mapped through the pad map and the
        game's enrolments; while a seat enrols, a press enrols its pad and is not played.
        Never raises: an edge the box or the rules refuse is counted and logged."""
        with self._lock:
            t_us = self.host_to_box_us(host_t_us)
            try:
                if self._enrol_by(pad_id, pressed, t_us):
                    return
                pad = next((p for p in self.pads() if p.id == pad_id), None)
                if pad is None:
                    self._seats.edge(pad_id, None, pressed, t_us)["note"] = "not in the pad map"
                    self._changed()
                    raise InvalidEventError(f"pad {pad_id} is not in the pad map")
                where = (pad.seat, pad.role, pad.pile, t_us)
                self.press(*where, released=not pressed, pad_id=pad_id, clamp=False)
            except BuzzerboxError as exc:
                self.pad_refusals += 1
                log.info("pad %s %s refused: %s", pad_id, "press" if pressed else "release", exc)
            else:
                self._seats.echo(self.state()["phase"])

    def enrol(self, seat: object, *, reset: bool = False) -> dict[str, Any]:
        """The next press of a pad enrols it for `seat` (None: stop waiting; `reset`: the
        game's pads are the pad map's again). Real pads only, between rounds. Raises
        InvalidEventError, IllegalEventError, NoGameError, StoreError."""
        with self._lock:
            if self.is_simulated:
                raise IllegalEventError(
                    "a simulated box has a virtual pad per seat: enrolment is for real pads"
                )
            if self._engine is None or self._game_id is None:
                raise NoGameError("no game has started: pads are enrolled for a game")
            if reset:
                self.log.clear_enrolments(self._game_id)
                self._seats.load({})
            elif seat is None:
                self._seats.enrolling = None
            else:
                self._seats.begin(seat, self._engine)
            self._changed()
            return self.state()

    def _enrol_by(self, pad_id: str, pressed: bool, t_us: int) -> bool:
        """Whether the enrolment takes this edge (the press that enrols, its release)."""
        taken = self._seats.take(pad_id, pressed, self._engine)
        if taken is None:
            return False
        note, seat = taken
        if seat is not None and self._game_id is not None:
            self.log.enrol(self._game_id, pad_id, seat)  # on disk before it counts
            self._seats.commit(pad_id, seat)
            log.info("pad %s %s", pad_id, note)
        pad = next((p for p in self.pads() if p.id == pad_id), None)
        self._seats.edge(pad_id, pad, pressed, t_us)["note"] = note
        self._changed()
        return True

    def import_log(self, text: str) -> dict[str, Any]:
        """A game log (v1) as a new game; returns its state with the lines rejected."""
        lines = load_lines(text)
        engine, accepted, rejected = replay_stored(lines)
        body = dict(lines[0][1])
        with self._lock:
            self._game_id, self.seq = self.log.new_game_with(body, accepted, self._progress(engine))
            self._engine, self._game_line, self._rejected = engine, body, rejected
            self._offset_us = max(self._offset_us, _last_t(engine) + 1 - self.clock.ticks())
            self._seats.load({})
            self._settle()
            return self.state()

    # -- exports (of the current game, or of `game_id` from the log) --------------------

    def export_log(self, game_id: int | None = None) -> str:
        return games.export_log(self.log, self._game(game_id))

    def export_csv(self, game_id: int | None = None) -> str:
        return games.export_csv(self.log, self._game(game_id))

    def export_bgstats(self, game_id: int | None = None) -> dict[str, Any]:
        return games.export_bgstats(self.log, self._game(game_id))

    def _game(self, game_id: int | None) -> int:
        return games.check_game(self.log, self._game_id if game_id is None else game_id)

    # -- inside the lock ------------------------------------------------------------------

    def _accept(self, obj: dict[str, Any]) -> Event:
        if self._engine is None or self._game_id is None:
            raise NoGameError("no game has started: start a new game first")
        event = self._engine.apply_dict(obj)
        body = event_to_dict(event)
        if "pad_id" in obj:
            body["pad_id"] = obj["pad_id"]
        try:
            self.seq = self.log.append(self._game_id, body, self._progress(self._engine))
        except StoreError:
            self._load(self._game_id)  # the engine goes back to what the log holds
            raise
        if isinstance(event, ClaimSettled) and event.result == "split":
            self._start_countdown("split")
        self._settle()
        return event

    def _progress(self, engine: Engine) -> Progress:
        return Progress(engine.game.phase, tuple(engine.game.winners))

    def _load(self, game_id: int) -> None:
        events = self.log.events(game_id)
        engine, _, rejected = replay_stored([(e.seq, e.body) for e in events])
        self._engine, self._game_id, self._rejected = engine, game_id, rejected
        self._game_line = dict(events[0].body)
        self._seats.load(self.log.enrolments(game_id))
        self._offset_us = max(self._offset_us, _last_t(engine) + 1 - self.clock.ticks())

    def _settle(self) -> None:
        """After a change: a countdown runs exactly while the game counts down; announce."""
        phase = self._engine.game.phase if self._engine else Phase.IDLE
        if phase not in ENROL_PHASES:
            self._seats.enrolling = None
        kind = self._countdown[1] if self._countdown else None
        if phase == Phase.COUNTDOWN and kind != "go":
            self._start_countdown("go")
        elif phase != Phase.COUNTDOWN and kind == "go":
            self._stop_countdown()
        self._changed()

    def _start_countdown(self, kind: str) -> None:
        self._stop_countdown()
        self._token += 1
        token = self._token
        self._countdown = (self.now_us() + self.countdown_us, kind)
        self._timer = self.clock.call_later(self.countdown_us, lambda: self._countdown_ended(token))

    def _stop_countdown(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._countdown = None, None
        self._token += 1

    def _countdown_ended(self, token: int) -> None:
        with self._lock:
            if token != self._token or self._countdown is None:
                return
            kind = self._countdown[1]
            self._timer, self._countdown = None, None
            try:
                if kind == "go" and self._engine and self._engine.game.phase == Phase.COUNTDOWN:
                    self._accept({"type": "go", "t_us": self.now_us()})
                    return
            except BuzzerboxError as exc:
                log.error("the start signal was refused: %s", exc)
                if kind == "go":  # the log cannot be written now: try again soon
                    self._countdown = (self.now_us() + GO_RETRY_US, kind)
                    self._timer = self.clock.call_later(
                        GO_RETRY_US, lambda: self._countdown_ended(token)
                    )
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
            self._stop_countdown()
        self.log.close()


def _draw_seat(players: object) -> int:
    """Twin It!: the seat that starts, drawn at random (rulebook 003: the table may pick)."""
    return random.randrange(len(players)) if isinstance(players, list) and players else 0


def _last_t(engine: Engine) -> int:
    game = engine.game
    return max(game.last_pad_t, game.go_t or 0, 0)
