"""The box's pad side: pads and phones as buzzers, their edges, enrolments and boards.

`PadInputs` is a mixin of the `Box` (box.py), as `GameArchive` is: the box holds the
lock, the engine, the enrolments (`PadSeats`) and the phones (`PhoneSeats`); these
methods turn a pad's or a phone's edge into a press or a release, enrol a pad for a
seat, and keep the pad test's view of the boards. The box sets the attributes
declared below.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from buzzerbox.enrol import PadSeats
from buzzerbox.errors import BuzzerboxError
from buzzerbox.pads.pad import Pad
from buzzerbox.phones import PhoneSeats
from buzzerbox.rules.engine import Engine
from buzzerbox.rules.errors import InvalidEventError
from buzzerbox.store.log import EventLog

if TYPE_CHECKING:
    from buzzerbox.rules.events import Event

log = logging.getLogger("buzzerbox.box")


class PadInputs:
    """The pads of the game, and their edges in: what the box does with a press."""

    log: EventLog
    phones: PhoneSeats
    pad_refusals: int
    _lock: threading.RLock
    _engine: Engine | None
    _game_id: int | None
    _seats: PadSeats
    _boards: dict[str, dict[str, Any]]
    _pads_made: tuple[list[Pad] | None, list[dict[str, Any]]]

    if TYPE_CHECKING:  # the box's own, used here

        def state(self) -> dict[str, Any]: ...
        def host_to_box_us(self, t_us: int) -> int: ...
        def _accept(self, obj: dict[str, Any]) -> Event: ...
        def _changed(self) -> None: ...

    def pads(self) -> list[Pad]:
        with self._lock:
            return self._seats.pads(self._engine)

    def _pads_json(self) -> list[dict[str, Any]]:
        pads = self.pads()  # the same list until the game or its enrolments change
        if self._pads_made[0] is not pads:
            self._pads_made = (pads, [p.to_json() for p in pads])
        return self._pads_made[1]

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
                if self._seats.enrol_edge(
                    pad_id, pressed, t_us, self._engine, self._game_id, self.log
                ):
                    self._changed()
                    return
                pad = next((p for p in self.pads() if p.id == pad_id), None)
                if pad is None:
                    note = (
                        "replaced: another pad plays its seat now"
                        if self._seats.is_replaced(pad_id)
                        else "not in the pad map"
                    )
                    self._seats.edge(pad_id, None, pressed, t_us)["note"] = note
                    self._changed()
                    raise InvalidEventError(f"pad {pad_id} is not in the pad map")
                where = (pad.seat, pad.role, pad.pile, t_us)
                self.press(*where, released=not pressed, pad_id=pad_id, clamp=False)
            except BuzzerboxError as exc:
                self.pad_refusals += 1
                log.info("pad %s %s refused: %s", pad_id, "press" if pressed else "release", exc)
            else:
                self._seats.echo(self.state()["phase"])

    def pad_board(self, status: Mapping[str, Any]) -> None:
        """A pad board's status (`buzzerbox monitor --json`'s board object), for the pad
        test: online or not, and whether the sync wire or SYNC round trips map it."""
        with self._lock:
            self._boards[str(status["board"])] = {k: v for k, v in status.items() if k != "event"}
            self._changed()

    def enrol(self, seat: object, *, reset: bool = False) -> dict[str, Any]:
        """The next press of a pad enrols it for `seat` (see PadSeats.command)."""
        with self._lock:
            self._seats.command(seat, reset, self._engine, self._game_id, self.log)
            self._changed()
            return self.state()

    def change_phones(self, change: Callable[[PhoneSeats, int], None]) -> dict[str, Any]:
        """Change which phones are pads: `change(phones, number of seats)`; announced."""
        with self._lock:
            change(self.phones, len(self._engine.game.players) if self._engine else 0)
            self._changed()
            return self.state()

    def phone_seat(self, token: object) -> int:
        """The seat of the phone holding `token` (refused if it has none)."""
        with self._lock:
            return self.phones.seat_of(token)
