"""Which pad is whose: the pads of a box for its game, enrolment, and the pad test.

A box with real pads starts from its pad map: each pad has a role (stop, slap, pile)
and a default seat. The table re-seats pads for the current game by *enrolment*: it
asks for a seat (`PadSeats.begin`) and the next press of any pad, mapped or not, is
that seat's. The press is taken by the enrolment, never played. An enrolled pad plays
its own role if the game has it (a pile pad stays a pile pad), else the game's seat pad
(stop; Twin It!: slap), so one set of buttons serves every game. Enrolments are kept
per game in the log's database (its own table, outside the rules' events), and a
restarted box resumes them. Pads are enrolled between rounds (phase lobby or scored);
a round that starts ends a pending enrolment.

A box's pads come from its pad layout: a pad map (wired pads, enrolled as above) or
the virtual pads of a simulated box (pads/virtual.py), which need no enrolment.

The pad test: the last `PAD_TEST_EDGES` edges of every pad, real or virtual (pad id,
role, seat, pile, press or release, box time, and a note when one was not played),
carried by the state under box.pad_test, so a phone shows each press as it comes;
and, while no round plays, printed on the console of `buzzerbox serve`.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from buzzerbox.box.errors import NoGameError
from buzzerbox.box.padtest import PadTestEdge, PadTestEdgeJson
from buzzerbox.errors import Words, plural_words
from buzzerbox.pads.pad import Pad, PadJson, pad_label
from buzzerbox.pads.timeline.arbiter import BoardJson
from buzzerbox.pads.virtual import GameShape, virtual_id
from buzzerbox.rules.engine import Engine
from buzzerbox.rules.errors import IllegalEventError, InvalidEventError
from buzzerbox.rules.events import PadPressed, PadReleased
from buzzerbox.rules.phase import Phase
from buzzerbox.rules.words import no_seat

logger = logging.getLogger(__name__)

#: the seat an enrolment logs for a pad another pad replaced: it plays no seat this game
UNSEATED = -1

#: the edges the pad test keeps (in every state: keep it small)
PAD_TEST_EDGES = 16
#: the phases in which pads can be enrolled: between rounds
ENROL_PHASES = (Phase.LOBBY, Phase.SCORED)
NO_GAME = Words("no game has started: pads are enrolled for a game")


def lit_pads(state: Mapping[str, Any], pads: Iterable[Pad]) -> list[str]:
    """The pads to light: the first presser's pad, and the piles others hold (blocked)."""
    lit: set[str] = set()
    first = state.get("race") or []
    blocked: dict[int, int] = {}
    for seat, player in enumerate(state.get("players", [])):
        for pile in player.get("holding", []):
            blocked[pile] = seat
    for pad in pads:
        if first and pad.seat == first[0]["seat"] and pad.role == first[0]["pad"]:
            lit.add(pad.id)
        if pad.role == "pile" and pad.pile in blocked and blocked[pad.pile] != pad.seat:
            lit.add(pad.id)
    return sorted(lit)


def played_role(role: str | None, roles: Sequence[str]) -> str:
    """The role a pad plays in a game with pads `roles`: its own, else the seat's pad."""
    if role in roles:
        assert role is not None
        return role
    return next((r for r in roles if r != "pile"), "stop")


class Enrolments(Protocol):
    """Where a game's enrolments are kept (the event log's database)."""

    def enrol(self, game_id: int, pad: str, seat: int) -> None: ...

    def clear_enrolments(self, game_id: int) -> None: ...


class PadLayout(Protocol):
    """The pads a box has, and for which seat and role: a `PadMap` (wired pads) or
    `VirtualPads` (pads/). Not where the edges come from: that is pads/sources.py."""

    @property
    def is_virtual(self) -> bool: ...

    def for_game(self, game: GameShape | None) -> Sequence[Pad]: ...


class PadSeats:
    """A box's pads for its game: its pad layout, this game's enrolments, the pad test.

    Not thread-safe on its own: the box calls it under its lock.
    """

    def __init__(self, layout: PadLayout) -> None:
        self.layout = layout
        #: the seat whose pad the next press enrols, if any
        self.enrolling: int | None = None
        self._seats: dict[str, int] = {}  # pad id -> seat, this game's enrolments
        self._taken: set[str] = set()  # pads whose press an enrolment took: not their release
        self._edges: deque[PadTestEdge] = deque(maxlen=PAD_TEST_EDGES)
        self._count = 0
        #: the pads worked out last: (engine, enrolments, pads); a game's shape is fixed
        self._made: tuple[Engine | None, dict[str, int], list[Pad]] | None = None
        self._made_json: tuple[list[Pad] | None, list[PadJson]] = (None, [])
        #: the pad boards' status for the pad test, by board
        self.boards: dict[str, BoardJson] = {}

    # -- enrolment ----------------------------------------------------------------------

    def load(self, enrolments: Mapping[str, int]) -> None:
        """A game's enrolments (from the log); nothing pending. The pad test starts
        afresh: its edges name the seats of the game they were pressed in."""
        self._seats = dict(enrolments)
        self.enrolling = None
        self._edges.clear()

    def begin(self, seat: object, engine: Engine | None) -> None:
        """The next press enrols a pad for `seat`; InvalidEventError/IllegalEventError."""
        if engine is None:
            raise IllegalEventError(NO_GAME, code="no-game")
        game = engine.game
        if type(seat) is not int or not 0 <= seat < len(game.players):
            said = no_seat(seat, len(game.players))
            raise InvalidEventError(said, subject="seat", code="no-seat")
        if game.phase not in ENROL_PHASES:
            raise IllegalEventError(
                Words(
                    "pads are enrolled while no round is on: {where}; "
                    "enrol before round 1 or once a round is scored",
                    {"where": game.where_words()},
                ),
                code="not-now",
            )
        self.enrolling = seat

    def take(
        self, pad_id: str, pressed: bool, engine: Engine | None
    ) -> tuple[Words, int | None] | None:
        """Whether an enrolment takes this edge: None if not (nothing pending, or the
        release of a pad whose press it did not take); else a note of what it does and
        the seat to enrol the pad for (None: a release, or a pad it cannot enrol).
        The caller logs the enrolment, then `commit`s it."""
        if not pressed:
            if pad_id in self._taken:
                self._taken.discard(pad_id)
                return Words("released after its enrolment"), None
            return None
        seat = self.enrolling
        if seat is None or engine is None:
            return None
        game = engine.game
        mapped = next((p for p in self.layout.for_game(game) if p.id == pad_id), None)
        pile = mapped.pile if mapped is not None and "pile" in game.pads else None
        if pile is not None and pile >= game.piles:
            said = {"pad": pad_id, "pile": pile + 1, "game": game.title}
            words = plural_words(
                "not enrolled: pad {pad} is pile {pile} and {game} with {n} player has "
                "{piles} piles",
                "not enrolled: pad {pad} is pile {pile} and {game} with {n} players has "
                "{piles} piles",
                len(game.players),
                {**said, "piles": game.piles},
            )
            return words, None
        return Words("enrolled for {name}", {"name": game.players[seat]}), seat

    def command(
        self,
        seat: object,
        reset: bool,
        engine: Engine | None,
        game_id: int | None,
        log_: Enrolments,
    ) -> None:
        """The table's enrolment command: the next press enrols a pad for `seat` (None:
        stop waiting; `reset`: the game's pads are the pad map's again). Wired pads only,
        between rounds. InvalidEventError, IllegalEventError, NoGameError, StoreError."""
        if self.layout.is_virtual:
            raise IllegalEventError(
                Words("a simulated box has a virtual pad per seat: enrolment is for real pads"),
                code="simulated-box",
            )
        if engine is None or game_id is None:
            raise NoGameError(NO_GAME, code="no-game")
        if reset:
            log_.clear_enrolments(game_id)
            self.load({})
        elif seat is None:
            self.enrolling = None
        else:
            self.begin(seat, engine)

    def enrol_edge(
        self,
        pad_id: str,
        pressed: bool,
        t_us: int,
        engine: Engine | None,
        game_id: int | None,
        log_: Enrolments,
    ) -> tuple[str, int | None] | None:
        """Whether the enrolment takes this edge (the press that enrols, its release):
        None if not, else what it did and the seat it enrolled the pad for (None: none).
        An enrolment is on disk (`log_`) before it counts. Kept for the pad test."""
        taken = self.take(pad_id, pressed, engine)
        if taken is None:
            return None
        note, seat = taken
        if seat is not None and game_id is not None and engine is not None:
            replaced = self.replaced_by(pad_id, seat, engine)
            for other in replaced:  # one pad per seat and role: the old one plays no more
                log_.enrol(game_id, other, UNSEATED)
                self._seats[other] = UNSEATED
            log_.enrol(game_id, pad_id, seat)
            self.commit(pad_id, seat)
            if replaced:
                said = {"name": engine.game.players[seat], "pads": ", ".join(replaced)}
                note = Words("enrolled for {name} (replaces pad {pads})", said)
            logger.info("pad %s %s", pad_id, note.english())
        pad = next((p for p in self.pads(engine) if p.id == pad_id), None)
        return self.edge(pad_id, pad, pressed, t_us).noted(note), seat

    def replaced_by(self, pad_id: str, seat: int, engine: Engine) -> list[str]:
        """The pads that play `seat`'s role now which `pad_id`, enrolled for it, replaces."""
        base = next((p for p in self.pads(engine) if p.id == pad_id), Pad(pad_id, "", seat))
        new = _enrolled(base, seat, engine.game.pads)
        return [
            p.id
            for p in self.pads(engine)
            if p.id != pad_id and p.seat == seat and (p.role, p.pile) == (new.role, new.pile)
        ]

    def is_replaced(self, pad_id: str) -> bool:
        """Whether an enrolment of another pad took this one's seat in this game."""
        return self._seats.get(pad_id) == UNSEATED

    def commit(self, pad_id: str, seat: int) -> None:
        """The pad is `seat`'s from now on in this game; its release is the enrolment's."""
        self._seats[pad_id] = seat
        self._taken.add(pad_id)
        self.enrolling = None

    def pads(self, engine: Engine | None) -> list[Pad]:
        """The pads as they play in the game: the source's, re-seated by enrolment.

        The same list (do not mutate it) until the game or its enrolments change."""
        made = self._made
        if made is not None and made[0] is engine and made[1] == self._seats:
            return made[2]
        pads = self._pads(engine)
        self._made = (engine, dict(self._seats), pads)
        return pads

    def pads_json(self, engine: Engine | None) -> list[PadJson]:
        pads = self.pads(engine)  # the same list until the game or its enrolments change
        if self._made_json[0] is not pads:
            self._made_json = (pads, [p.to_json() for p in pads])
        return self._made_json[1]

    def _pads(self, engine: Engine | None) -> list[Pad]:
        base = list(self.layout.for_game(engine.game if engine else None))
        if not self._seats or engine is None:
            return base
        roles = engine.game.pads
        out: list[Pad] = []
        for pad in base:
            seat = self._seats.get(pad.id)
            if seat != UNSEATED:
                out.append(pad if seat is None else _enrolled(pad, seat, roles))
        known = {p.id for p in base}
        for pad_id, seat in self._seats.items():
            if pad_id not in known and seat != UNSEATED:
                out.append(_enrolled(Pad(pad_id, "", seat), seat, roles))
        return out

    # -- the pad test -------------------------------------------------------------------

    def edge(self, pad_id: str, pad: Pad | None, pressed: bool, t_us: int) -> PadTestEdge:
        """Keep an edge for the pad test; the record (its note may be set later)."""
        self._count += 1
        role, seat, pile = (pad.role, pad.seat, pad.pile) if pad else (None, None, None)
        record = PadTestEdge(self._count, pad_id, role, seat, pile, pressed, t_us)
        self._edges.append(record)
        return record

    def unmapped(self, pad_id: str, pressed: bool, t_us: int) -> InvalidEventError:
        """An edge of a pad that plays no seat: kept for the pad test with why (not in the
        pad map, or replaced by another), and the refusal to raise."""
        note = (
            Words("replaced: another pad plays its seat now")
            if self.is_replaced(pad_id)
            else Words("not in the pad map")
        )
        self.edge(pad_id, None, pressed, t_us).noted(note)
        words = Words("pad {pad} is not in the pad map", {"pad": pad_id})
        return InvalidEventError(words, code="pad-not-mapped")

    def edge_of(self, event: PadPressed | PadReleased, pad_id: str | None) -> PadTestEdge:
        """Keep a pad edge for the pad test (`pad_id`: a real pad's; else a virtual
        pad's); the record, its note set later if it is not played."""
        seat, role, pile = event.seat, event.pad, event.pile
        pad = Pad(pad_id or virtual_id(seat, role, pile), role, seat, pile=pile)
        return self.edge(pad.id, pad, isinstance(event, PadPressed), event.t_us)

    def echo(self, phase: str) -> None:
        """The last edge on the console: at INFO while no round plays (a builder testing
        the pads, `buzzerbox serve` prints it), at DEBUG during play."""
        if not self._edges:
            return
        e = self._edges[-1]
        what = f"pile {e.pile + 1}" if e.pile is not None else e.role
        level = logging.DEBUG if phase in (Phase.COUNTDOWN, Phase.PLAYING) else logging.INFO
        edge = "press" if e.is_press else "release"
        logger.log(level, "pad %s %s: %s of seat %s at %d µs", e.pad, edge, what, e.seat, e.t_us)

    def board(self, status: BoardJson) -> None:
        """A pad board's status (`buzzerbox monitor --json`'s board object, with what the
        pad map says of it: pads/feed.py `board_json`). A board known by its port until
        its HELLO (`url`) is one board: its status under the port is replaced."""
        board, url = status["board"], status.get("url")
        if url is not None and url != board:
            self.boards.pop(url, None)
        shown = status.copy()
        shown.pop("url", None)
        self.boards[board] = shown

    def edges(self) -> list[PadTestEdgeJson]:
        return [e.to_json() for e in self._edges]


def _enrolled(pad: Pad, seat: int, roles: Sequence[str]) -> Pad:
    role = played_role(pad.role or None, roles)
    pile = pad.pile if role == "pile" else None
    label = pad_label(pad.id, role, pile)
    return replace(pad, role=role, seat=seat, pile=pile, label=label, is_enrolled=True)
