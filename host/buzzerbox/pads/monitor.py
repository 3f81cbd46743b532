"""`buzzerbox monitor`: every edge as it becomes final, in true time order.

`event_json` is the line format of ``--json`` (one object per line):

- ``{"event": "press"|"release", "board": ID|"gpio", "ch": N, "pad": ID,
  "t_us": N}``, with ``"late": true`` for an edge that came too late to be in order
- ``{"event": "board", "board": ID|URL, "status": "online"|"silent"|"gone"|"unsupported"}``,
  with ``"note": TEXT`` when a board's channels disagree with the pad map; with
  boards on the sync wire, an online board also says ``"clock": "wire"|"sync"``
  (how its clock is mapped) and ``"wire": "waiting"|"live"|"silent"|null`` (its sync
  wire; null: it has no sync channel, so SYNC round trips map it)
- ``{"event": "lost", "board": ID, "frames": N}``

Without ``--json``, `TextPrinter` prints a table. SIGINT or SIGTERM prints what
is still held, in order, and ends with 0.
"""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import TextIO

from buzzerbox.pads.padmap import PadMap
from buzzerbox.pads.sources import PadSources
from buzzerbox.pads.timeline.arbiter import (
    BoardEventJson,
    BoardStatusChanged,
    Edge,
    EdgeJson,
    FramesLost,
    LostJson,
    PadEvent,
)


def event_json(ev: PadEvent) -> EdgeJson | BoardEventJson | LostJson:
    """The ``--json`` object of one event (the event's own `to_json`)."""
    return ev.to_json()


class JsonPrinter:
    def __init__(self, out: TextIO) -> None:
        self.out = out

    def __call__(self, ev: PadEvent) -> None:
        self.out.write(json.dumps(event_json(ev)) + "\n")
        self.out.flush()


class TextPrinter:
    """A table a person can read; `pad_map` adds each pad's role and seat."""

    def __init__(self, out: TextIO, pad_map: PadMap | None = None) -> None:
        self.out = out
        self.pad_map = pad_map
        self._headed = False

    def __call__(self, ev: PadEvent) -> None:
        if not self._headed:
            self._headed = True
            self._row("time (s)", "event", "board", "ch", "pad")
        if isinstance(ev, Edge):
            pad = self.pad_map.pad(ev.pad) if self.pad_map else None
            what = ev.pad + (f"  ({pad.describe()})" if pad else "")
            what += "  LATE: out of order" if ev.late else ""
            kind = "press" if ev.state else "release"
            self._row(f"{ev.t_us / 1e6:.6f}", kind, ev.board, str(ev.ch), what)
        elif isinstance(ev, BoardStatusChanged):
            self._row("", "board", ev.board, "", ev.status + ev.clock_text())
            if ev.note:
                self._row("", "WARNING", ev.board, "", ev.note)
        elif isinstance(ev, FramesLost):
            self._row("", "lost", ev.board, "", f"{ev.frames} frames")

    def _row(self, t: str, kind: str, board: str, ch: str, what: str) -> None:
        self.out.write(f"{t:>17}  {kind:<7}  {board:<16} {ch:>3}  {what}\n")
        self.out.flush()


def run_monitor(
    sources: PadSources,
    printer: Callable[[PadEvent], None],
    *,
    stop: threading.Event | None = None,
) -> int:
    """Print events until SIGINT/SIGTERM (or `stop`), then what is still held. Returns 0."""
    stop = stop if stop is not None else threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()
        sources.wake()  # the events' wait may be seconds long (sources.py IDLE_STEP_US)

    old = {}
    if threading.current_thread() is threading.main_thread():
        old = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        with sources:
            for ev in sources.events(stop):
                printer(ev)
    except BrokenPipeError:
        pass  # the reader went away (| head): nothing more to say
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    return 0
