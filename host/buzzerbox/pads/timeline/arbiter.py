"""Arbitration: every source merged into one true time order. PURE: time is passed in.

Sources are boards (by id) and the GPIO header (``"gpio"``). Each reports edges
with host times (µs, CLOCK_MONOTONIC) and *watermarks*: `report(source, t)`
promises that no edge before `t` will follow (a board's TICK, or the time of an
EDGE it sent). An edge is final when every live source has a watermark past
it; edges then leave in order of (time, board id, channel), each once.

A live source that has reported nothing for `silence_us` is marked silent at
`advance(now_us)` and no longer waited for; it is live again as soon as it
reports. A source whose bytes wait unread on this host (`advance`'s `unread`: its
port is readable, or its reader holds a line not yet handed over) is not silent:
the host is behind, not the board, and what it has sent is not made late by a
starved reader; at most `UNREAD_GRACE` silences long, so a port that is always
readable (a board sending noise) cannot hold every decision back. A source that
is dropped (gone, or its clock is not mapped) is not waited for either. An edge
older than what was already decided is passed on at once marked `late` and never
reorders anything. Arrival order never matters, only times.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from typing import Final, Literal, NotRequired, TypedDict

GPIO: Final = "gpio"
"""The source name (and `Edge.board`) of pads on the Pi's own header."""

Status = Literal["online", "silent", "gone", "unsupported"]

#: a source with bytes unread on the host is waited for up to this many times
#: `silence_us` after it was last heard, then marked silent as any other
UNREAD_GRACE: Final = 4


class EdgeJson(TypedDict):
    """An edge as `buzzerbox monitor --json` prints it."""

    event: str
    board: str
    ch: int
    pad: str
    t_us: int
    late: NotRequired[bool]


class BoardStatusJson(TypedDict):
    """A board's status (`BoardStatusChanged.status_json`)."""

    board: str
    status: str
    clock: NotRequired[str]
    wire: NotRequired[str | None]
    note: NotRequired[str]


class BoardJson(BoardStatusJson):
    """A board's status as the box keeps it for the pages (pads/feed.py `board_json`):
    what the pad map says of it, and the port it was known by before its HELLO."""

    name: NotRequired[str]
    pads: NotRequired[list[str]]
    url: NotRequired[str]


class BoardEventJson(BoardStatusJson):
    """A board's status as `buzzerbox monitor --json` prints it (`event` "board" first)."""

    event: str


class LostJson(TypedDict):
    event: str
    board: str
    frames: int


@dataclass(frozen=True, slots=True)
class Edge:
    """A pad's contact closed (`state` 1, a press) or opened (0) at `t_us`.

    `board` is a board id or ``"gpio"``; `ch` a board channel or a GPIO pin;
    `pad` the pad's id in the pad map (default ``"<board>:<ch>"``); `t_us` is on
    the host's CLOCK_MONOTONIC in µs. `late` marks an edge that came after a
    later one was already decided: it is reported, but out of order.
    """

    board: str
    ch: int
    pad: str
    state: int
    t_us: int
    late: bool = False

    @property
    def is_press(self) -> bool:
        return self.state == 1

    def to_json(self) -> EdgeJson:
        """The event as `buzzerbox monitor --json` prints it (and the box's pad test)."""
        obj: EdgeJson = {
            "event": "press" if self.state else "release",
            "board": self.board,
            "ch": self.ch,
            "pad": self.pad,
            "t_us": self.t_us,
        }
        if self.late:
            obj["late"] = True
        return obj


ClockSource = Literal["sync", "wire"]
"""How a board's clock is mapped: SYNC round trips, or its sync wire's pulses."""


@dataclass(frozen=True, slots=True)
class BoardStatusChanged:
    """A source came online, fell silent, went away or is unsupported.

    `note` says what is wrong with a board that is online (its channels disagree
    with the pad map). For a board that is online, `clock` says how its clock is
    mapped (``"wire"``: by its sync wire; ``"sync"``: by SYNC round trips), and
    `wire` how its sync wire is (``"waiting"`` for a pulse, ``"live"``,
    ``"silent"``; None: it has no sync channel).
    `url` is the port the board is on, where known (not in `to_json`): a board that
    has not said HELLO yet is named by it, so that its next status can replace it.
    """

    board: str
    status: Status
    clock: ClockSource | None = None
    wire: str | None = None
    note: str = ""
    url: str = field(default="", compare=False)

    def to_json(self) -> BoardEventJson:
        return {"event": "board", **self.status_json()}

    def status_json(self) -> BoardStatusJson:
        """The status without the event's name: board, status, and the clock, the wire
        and the note where there are."""
        obj: BoardStatusJson = {"board": self.board, "status": self.status}
        if self.clock is not None:
            obj["clock"], obj["wire"] = self.clock, self.wire
        if self.note:
            obj["note"] = self.note
        return obj

    def clock_text(self) -> str:
        """How an online board's clock is mapped, for people: "" when no board has a wire."""
        if self.clock is None:
            return ""
        if self.clock == "wire":
            return ", clock by the sync wire"
        why = {"waiting": "waiting for a pulse", "silent": "silent", None: "none on this board"}
        return f", clock by SYNC round trips (sync wire: {why.get(self.wire, self.wire)})"


@dataclass(frozen=True, slots=True)
class FramesLost:
    """`frames` frames (or edges, from a board's LOST) from `board` never arrived."""

    board: str
    frames: int

    def to_json(self) -> LostJson:
        return {"event": "lost", "board": self.board, "frames": self.frames}


PadEvent = Edge | BoardStatusChanged | FramesLost


class _Source:
    __slots__ = ("heard_us", "state", "watermark")

    def __init__(self, now_us: int) -> None:
        self.watermark: int | None = None
        self.heard_us = now_us
        self.state: Literal["live", "silent", "out"] = "live"


_Key = tuple[int, str, int, int]


class Arbiter:
    """Merges edges from many sources; `advance` hands out the final ones in order."""

    def __init__(self, *, silence_us: int = 500_000) -> None:
        self.silence_us = silence_us
        self._sources: dict[str, _Source] = {}
        self._heap: list[tuple[_Key, Edge]] = []
        self._late: list[Edge] = []
        self._notes: list[PadEvent] = []
        self._decided: tuple[int, str, int] | None = None
        self._n = 0

    # Sources -----------------------------------------------------------------

    def add_source(self, source: str, now_us: int) -> None:
        """`source` is live, with no watermark yet: nothing is final until it reports."""
        src = self._sources.get(source)
        if src is None:
            self._sources[source] = _Source(now_us)
        else:
            src.state, src.watermark, src.heard_us = "live", None, now_us

    def drop_source(self, source: str) -> None:
        """Stop waiting for `source` (gone, unmapped); its edges still count."""
        src = self._sources.get(source)
        if src is not None:
            src.state = "out"

    def is_waited_for(self, source: str) -> bool:
        src = self._sources.get(source)
        return src is not None and src.state == "live"

    def heard(self, source: str, now_us: int) -> None:
        """`source` spoke, though it cannot yet say a time (its clock is not mapped)."""
        src = self._sources.get(source)
        if src is not None and src.state != "out":
            self._revive(source, src)
            src.heard_us = now_us

    def report(self, source: str, t_us: int, now_us: int) -> None:
        """`source` will send no edge before `t_us` (a TICK, or an EDGE at `t_us`)."""
        src = self._sources.get(source)
        if src is None or src.state == "out":
            return
        if now_us - t_us <= self.silence_us:  # only a promise about now revives it
            self._revive(source, src)
        src.heard_us = now_us
        if src.watermark is None or t_us > src.watermark:
            src.watermark = t_us

    def _revive(self, source: str, src: _Source) -> None:
        if src.state == "silent":
            src.state = "live"
            self._notes.append(BoardStatusChanged(source, "online"))

    # Edges -------------------------------------------------------------------

    def edge(self, edge: Edge, now_us: int, *, reports: bool = True) -> None:
        """Take one edge. With `reports`, its board also promises nothing earlier will
        follow (a board's EDGE does; GPIO pins, each on its own thread, do not)."""
        key = (edge.t_us, edge.board, edge.ch)
        if self._decided is not None and key <= self._decided:
            self._late.append(replace(edge, late=True))
        else:
            self._n += 1
            heapq.heappush(self._heap, ((edge.t_us, edge.board, edge.ch, self._n), edge))
        if reports:
            self.report(edge.board, edge.t_us, now_us)

    @property
    def pending(self) -> int:
        """Edges held, waiting for a source to report past them."""
        return len(self._heap)

    def horizon(self) -> float:
        """Every edge before this time (µs) can be decided now; -inf while blocked."""
        low = float("inf")
        for src in self._sources.values():
            if src.state == "live":
                if src.watermark is None:
                    return float("-inf")
                low = min(low, src.watermark)
        return low

    def oldest(self) -> int:
        """The time of the oldest edge held (µs); -1 when none is."""
        return self._heap[0][0][0] if self._heap else -1

    def blocking(self) -> list[str]:
        """The live sources the oldest held edge waits for: those with no watermark
        past it yet (none while no edge is held)."""
        if not self._heap:
            return []
        t_us = self._heap[0][0][0]
        return [
            name
            for name, src in self._sources.items()
            if src.state == "live" and (src.watermark is None or src.watermark <= t_us)
        ]

    def next_due_us(self) -> int | None:
        """When `advance` would mark a live source silent if it says nothing more (None:
        no live source)."""
        due = None
        for src in self._sources.values():
            if src.state == "live":
                heard = src.heard_us if src.watermark is None else min(src.heard_us, src.watermark)
                if due is None or heard < due:
                    due = heard
        return None if due is None else due + self.silence_us + 1

    def advance(self, now_us: int, unread: Collection[str] = ()) -> list[PadEvent]:
        """Mark silent sources (not those in `unread` whose bytes wait unread on this
        host, for up to `UNREAD_GRACE` silences), then hand out what is final: late
        edges first, then in order."""
        for name, src in self._sources.items():
            stale = src.watermark is not None and now_us - src.watermark > self.silence_us
            if src.state == "live" and (now_us - src.heard_us > self.silence_us or stale):
                if name in unread and now_us - src.heard_us <= UNREAD_GRACE * self.silence_us:
                    continue
                src.state = "silent"
                self._notes.append(BoardStatusChanged(name, "silent"))
        out: list[PadEvent] = self._notes
        self._notes = []
        if self._late:
            out.extend(self._late)
            self._late = []
        heap = self._heap
        if heap:
            until = self.horizon()
            while heap and heap[0][0][0] < until:
                key, edge = heapq.heappop(heap)
                self._decided = key[:3]
                out.append(edge)
        return out

    def flush(self) -> list[PadEvent]:
        """Everything still held, in order, as if every source had reported past it."""
        out: list[PadEvent] = [*self._notes, *self._late]
        self._notes, self._late = [], []
        while self._heap:
            key, edge = heapq.heappop(self._heap)
            self._decided = key[:3]
            out.append(edge)
        return out
