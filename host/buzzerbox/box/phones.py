"""Phones as pads: which phone is which seat's buzzer, while the host allows it.

The host switches "phones as pads" on at the table view; a guest's phone then takes a
free seat once (it holds a random token, kept on the phone) and presses as that seat
only. The host can free a seat. The seats are the current game's (a new game starts
with every seat free; a rematch keeps them, and a new game of the same players takes
each phone to its player's seat: `follow`): the box's own bookkeeping, never in the
event log. A phone holding a seat says it is there now and then (POST /api/phones/here,
and each press); a seat not heard from for a while is `offline` in the state, for the
host's table view (presence.py sweeps). With a file
(`buzzerbox serve` gives `phones.json` in the data folder) they survive a restart: each
phone still holds its seat and the host can still free it. A file that cannot be read
is no reason to stop: the box starts with every seat free and says why (`problem`).

The seats follow the log: the file names its game by id and by the moment the log
started it (`started`), because a power cut can take back the end of the log and with
it a game whose seats the file already holds; the next game may then get the same id.
Seats kept for any other game than the log's current one are never resumed.

Not thread-safe on its own: the box calls it under its lock.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NotRequired, TypedDict

from buzzerbox.box.errors import (
    PhoneSeatInvalidError,
    PhoneSeatRefusedError,
    PhoneTokenError,
    SeatsFileError,
)
from buzzerbox.datadir import write_private
from buzzerbox.errors import Words
from buzzerbox.rules.words import no_seat
from buzzerbox.store.eventlog import StoreError

log = logging.getLogger(__name__)
TOKEN_CHARS = range(16, 129)
OFF = Words("phones are no pads now: the host switches them on at the table view")
#: more than a table has seats: a file with more is not the box's
MAX_KEPT = 64


class PhonesJson(TypedDict):
    """The phones as pads, for the pages (box.phones in the state)."""

    on: bool
    taken: list[int]
    offline: NotRequired[list[int]]


class PhoneSeats:
    """The seats phones have taken: token -> seat, and whether phones may press; kept
    in `path` (JSON, written whole on every change) when given, else in memory only."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.is_on = False
        self._seats: dict[str, int] = {}
        self._game: int | None = None
        #: when the log started that game (its games table's `started`): with the id, the
        #: game itself, not another that reused its id after a cut took it back
        self._started: float | None = None
        #: seat -> when its phone was last heard (box µs); the seats not heard for too long
        self._heard: dict[int, int] = {}
        self._offline: set[int] = set()
        self.path = Path(path) if path is not None else None
        #: why the kept seats could not be read (None: read, or nothing kept yet)
        self.problem: Words | None = None
        if self.path is not None and self.path.exists():
            try:
                self.is_on, self._game, self._started, self._seats = _read(self.path)
            except (OSError, ValueError, RecursionError) as exc:
                why = exc.words if isinstance(exc, SeatsFileError) else str(exc)
                self.problem = Words(
                    "the phone seats file {path} cannot be read ({why}): "
                    "every seat is free, the guests' phones pick theirs again",
                    {"path": str(self.path), "why": why},
                )

    def resume(self, game_id: int | None, players: int, started: float | None = None) -> None:
        """The box resumed game `game_id`, which the log started at `started`: the seats
        kept for it stay, those kept for another game (or one the log no longer has, whose
        id came back) are freed, and the file says so."""
        is_other = game_id != self._game or (
            started is not None and self._started is not None and started != self._started
        )
        seats = {} if is_other else {t: s for t, s in self._seats.items() if s < players}
        if seats == self._seats:
            self._game, self._started = game_id, started
            return
        if is_other and self._seats:
            log.info("the phones' seats kept for another game than the log's are freed")
        self.reset(game_id, started=started, seats=seats)

    def reset(
        self,
        game_id: int | None = None,
        *,
        started: float | None = None,
        keep: bool = False,
        moves: Mapping[int, int] | None = None,
        seats: dict[str, int] | None = None,
    ) -> None:
        """A new game, which the log started at `started`: every seat is free again
        (phones as pads stays as the host set it), unless `keep` (a rematch: the same
        players in the same seats keep their phones), `moves` (old seat -> new seat: the
        same players in a new game, `follow`) or `seats` names those kept. Never refused:
        seats kept for another game are not resumed for this one."""
        if seats is not None:
            kept = seats
        elif keep:
            kept = self._seats
        elif moves:
            kept = {t: moves[s] for t, s in self._seats.items() if s in moves}
        else:
            kept = {}
        try:
            self._keep(self.is_on, kept, game_id, started)
        except StoreError as exc:
            log.warning("%s", exc)
            self._seats, self._game, self._started = {}, game_id, started

    def switch(self, on: object) -> None:
        if type(on) is not bool:
            said = Words("phones as pads is on or off: true or false, not {on!r}", {"on": on})
            raise PhoneSeatInvalidError(said, code="not-a-boolean")
        self._keep(on, self._seats if on else {}, self._game, self._started)

    def take(self, token: object, seat: object, players: int) -> None:
        """The phone holding `token` becomes `seat`'s buzzer (its former seat is freed)."""
        token = check_token(token)
        if not self.is_on:
            raise PhoneSeatRefusedError(OFF, code="phones-off")
        if type(seat) is not int or not 0 <= seat < players:
            raise PhoneSeatInvalidError(no_seat(seat, players), subject="seat", code="no-seat")
        holder = next((t for t, s in self._seats.items() if s == seat), None)
        if holder is not None and holder != token:
            raise PhoneSeatRefusedError(
                Words(
                    "seat {seat} is taken by another phone: the host can free it at the table view",
                    {"seat": seat + 1},
                ),
                code="seat-taken",
            )
        self._keep(self.is_on, {**self._seats, token: seat}, self._game, self._started)
        self._heard.pop(seat, None)  # a new phone: heard from the next sweep
        self._offline.discard(seat)

    def free(self, seat: object) -> None:
        """The host frees `seat`: the phone holding it presses no more."""
        seats = {t: s for t, s in self._seats.items() if s != seat}
        self._keep(self.is_on, seats, self._game, self._started)

    def held_by(self, token: object) -> int | None:
        """The seat of the phone holding `token`, None if it holds none (a new game freed
        it); refused if phones are off."""
        token = check_token(token)
        if not self.is_on:
            raise PhoneSeatRefusedError(OFF, code="phones-off")
        return self._seats.get(token)

    def seat_of(self, token: object) -> int:
        """The seat of the phone holding `token`; refused if phones are off or it has none."""
        seat = self.held_by(token)
        if seat is None:
            raise PhoneSeatRefusedError(
                Words("this phone has no seat: pick yours first (or the host freed it)"),
                code="no-seat-held",
            )
        return seat

    def heard(self, token: object, now_us: int) -> bool:
        """The phone holding `token` is there at `now_us` (PhoneSeatError if it holds no
        seat); whether its seat was offline until now (the state changes)."""
        seat = self.seat_of(token)
        self._heard[seat] = now_us
        if seat in self._offline:
            self._offline.discard(seat)
            return True
        return False

    def sweep(self, now_us: int, after_us: int) -> bool:
        """The seats whose phone was not heard for over `after_us` are offline now (a seat
        never heard from has `after_us` from its first sweep); whether any changed."""
        held = set(self._seats.values()) if self.is_on else set()
        for seat in held - self._heard.keys():
            self._heard[seat] = now_us
        self._heard = {s: t for s, t in self._heard.items() if s in held}
        offline = {s for s, t in self._heard.items() if now_us - t > after_us}
        changed = offline != self._offline
        self._offline = offline
        return changed

    def to_json(self) -> PhonesJson:
        """{"on", "taken"}, and "offline" (the seats whose phone is not heard) if any."""
        taken = sorted(self._seats.values())
        out: PhonesJson = {"on": self.is_on, "taken": taken}
        if offline := sorted(self._offline & set(taken)):
            out["offline"] = offline
        return out

    def _keep(
        self, on: bool, seats: dict[str, int], game_id: int | None, started: float | None
    ) -> None:
        """The new seats, written to the file first: a file that cannot be written
        refuses the change (StoreError) and changes nothing."""
        if self.path is not None:
            kept: dict[str, object] = {"version": 1, "game": game_id, "on": on, "seats": seats}
            if started is not None:
                kept["started"] = started
            text = json.dumps(kept)
            try:
                write_private(self.path, text.encode())
            except OSError as exc:
                said = {"path": str(self.path), "why": str(exc)}
                words = Words(
                    "the phone seats file {path} cannot be written ({why}): "
                    "the seats stay as they were",
                    said,
                )
                raise StoreError(words, code="seats-not-written") from exc
        self.is_on, self._seats, self._game, self._started = on, dict(seats), game_id, started


def follow(old: Sequence[str], new: Sequence[str]) -> dict[int, int] | None:
    """Where each seat's phone goes when a new game starts: the same players as the game
    before (by name, in any order: Stats' rematch of an older game, a new game of the
    same table) take their phones to their new seats (old seat -> new seat); other
    players (or a name twice) take none (None)."""
    if not old or sorted(old) != sorted(new) or len(set(new)) != len(new):
        return None
    return {seat: new.index(name) for seat, name in enumerate(old)}


def _read(path: Path) -> tuple[bool, int | None, float | None, dict[str, int]]:
    """(on, game id, when the log started it, token -> seat) from a file `_keep` wrote
    (`started` None: a file of an earlier box, which named the game by id only);
    ValueError if it is not one."""
    kept = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(kept, dict) or kept.get("version") != 1:
        raise SeatsFileError(Words("not a phone seats file of version 1"))
    on, game, seats = kept.get("on"), kept.get("game"), kept.get("seats")
    if type(on) is not bool or not (game is None or type(game) is int):
        raise SeatsFileError(Words("its on or game is not a boolean and a game id"))
    started = kept.get("started")
    if not (started is None or type(started) is float):
        raise SeatsFileError(Words("its started is not the moment the log started the game"))
    if not isinstance(seats, dict) or len(seats) > MAX_KEPT:
        said = {"most": MAX_KEPT}
        raise SeatsFileError(Words("its seats are not an object of at most {most} phones", said))
    for token, seat in seats.items():
        try:
            check_token(token)
        except PhoneTokenError as exc:
            raise SeatsFileError(exc.words or Words(str(exc))) from None
        if type(seat) is not int or seat < 0:
            raise SeatsFileError(Words("seat {seat!r:.24} is not a seat number", {"seat": seat}))
    if len(set(seats.values())) != len(seats):
        raise SeatsFileError(Words("a seat is held by two phones"))
    return on, game, started, dict(seats)


def check_token(token: object) -> str:
    if not isinstance(token, str) or len(token) not in TOKEN_CHARS or not token.isascii():
        said = {"least": TOKEN_CHARS.start, "most": TOKEN_CHARS.stop - 1}
        raise PhoneTokenError(
            Words("a phone's token is {least}-{most} ASCII characters", said), code="bad-token"
        )
    return token
