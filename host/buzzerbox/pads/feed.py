"""Real pads for `buzzerbox serve --config`: the pad sources, feeding the box.

The serve config's `[pads]` table names the pad map (a TOML file, see
host/buzzerbox/pads/) and optionally the board URLs and whether to use GPIO:

    [pads]
    map = "twist-boards.toml"     # relative to the config file
    boards = ["/dev/ttyACM0"]     # optional: else the URLs in the pad map
    gpio = true                   # optional: default, when the map has GPIO pads

or, for a pad map alone, the short form `pads = "twist-boards.toml"`.

A `PadFeed` thread takes the final, time-ordered edges from `PadSources.poll` and
hands each to the box's `pad_edge` (which maps it to a press or release of a seat and
never raises); it lights the pads the box asks for (the first presser's pad,
blocked piles), where the pad map gives them a light. The feed knows the box only
as a `PadSink` (pads/ never imports the box).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol, cast

from buzzerbox.errors import BuzzerboxError, ConfigError
from buzzerbox.pads.padmap import PadMap, load_pad_map
from buzzerbox.pads.pifactory import open_pi_factory
from buzzerbox.pads.selftest import SELFTEST_S, SelfTest
from buzzerbox.pads.sources import PadSources
from buzzerbox.pads.syncwire import open_pulser
from buzzerbox.pads.timeline.arbiter import BoardJson, BoardStatusChanged, Edge, FramesLost
from buzzerbox.threadname import name_thread

log = logging.getLogger(__name__)
#: the feed's thread in the system's lists (`top -H`, /proc/<pid>/task/*/comm)
THREAD_NAME = "bb-pad-feed"


class PadSink(Protocol):
    """What the feed needs of the box: where edges go, and who is told of lights."""

    when_lit: list[Callable[[list[str]], None]]

    def pad_edge(self, edge: Edge) -> object:
        """A final edge, in true time order (the arbiter's, host timeline)."""

    def pad_board(self, status: BoardJson) -> None:
        """A board's status changed (`monitor --json`'s board object): for the pages."""


def open_sources(settings: Mapping[str, Any] | str, base: Path) -> tuple[PadMap, PadSources]:
    """The pad map and the pad sources a `[pads]` table asks for (not started yet)."""
    if isinstance(settings, str):
        settings = {"map": settings}
    if not isinstance(settings, Mapping):
        raise ConfigError('pads is a table ([pads] map = "...") or the pad map file\'s name')
    if "map" not in settings:
        raise ConfigError('[pads] needs map = "<pad map file>"')
    unknown = sorted(set(settings) - {"map", "boards", "gpio"})
    if unknown:
        raise ConfigError(f"[pads]: unknown keys {', '.join(unknown)}: it takes map, boards, gpio")
    pad_map = load_pad_map(base / str(settings["map"]))
    use_gpio = settings.get("gpio", bool(pad_map.gpio_pads))
    factory = open_pi_factory() if use_gpio else None
    boards = [str(b) for b in settings.get("boards", [])]
    unreachable = [b.id for b in pad_map.boards if not b.url]
    if not boards and unreachable:
        raise ConfigError(
            f'{pad_map.name}: board {unreachable[0]!r} has no url: give it url = "/dev/..." '
            "in the pad map, or list the boards' ports in [pads] boards"
        )
    pulser = open_pulser(pad_map, factory, log.warning)
    return pad_map, PadSources(pad_map, boards=boards, gpio_factory=factory, pulser=pulser)


def board_json(event: BoardStatusChanged, pad_map: PadMap | None) -> BoardJson:
    """A board's status as the box keeps it for the pages: `monitor --json`'s board
    object, and, where the pad map knows the board (by its id, alias or port), `board`
    its id, `name` what the map calls it (its alias, else its id) and `pads` the ids of
    the pads wired to it, so the table and the TV say which pads go with it. `url`: the
    port, when the board was known by it (its status before its HELLO is replaced)."""
    status = cast(BoardJson, event.status_json())  # a new dict: the map's keys are added
    spec = None
    if pad_map is not None:
        spec = pad_map.board(event.board) or pad_map.board_on(event.url)
    if pad_map is not None and spec is not None:
        status["board"] = spec.id
        status["name"] = spec.name
        status["pads"] = [p.id for p in pad_map.pads if p.board == spec.id]
    if event.url and event.url != status["board"]:
        status["url"] = event.url
    return status


class PadFeed:
    """The thread between the pad sources and the box, and the box's pad lights."""

    def __init__(
        self, sources: PadSources, box: PadSink, *, selftest_s: float = SELFTEST_S
    ) -> None:
        self.sources = sources
        self.box = box
        self.edges = 0
        self._lit: set[str] = set()
        self._lights = (
            {p.id for p in sources.pad_map.pads if p.light != "-"} if sources.pad_map else set()
        )
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pad-feed", daemon=True)
        box.when_lit.append(self.light)
        # the power-on self-test (selftest.py): said in the log; the box starts regardless
        pad_map = sources.pad_map
        self.selftest = SelfTest(pad_map) if pad_map is not None and pad_map.pads else None
        self.selftest_said: list[str] | None = None
        self._selftest_timer = threading.Timer(selftest_s, self._selftest)
        self._selftest_timer.daemon = True

    def start(self) -> None:
        self.sources.start()
        self._thread.start()
        if self.selftest is not None:
            self._selftest_timer.start()

    def _selftest(self) -> None:
        assert self.selftest is not None
        with self.sources.lock:
            problems = self.selftest.check(self.sources)
        for problem in problems:
            log.warning("self-test: %s", problem)
        if not problems:
            log.info("self-test: every board answered and maps its clock; every pad is released")
        self.selftest_said = problems

    def close(self) -> None:
        self._selftest_timer.cancel()
        self._stop.set()
        self.sources.wake()
        self._thread.join(5)
        self.sources.close()

    def _run(self) -> None:
        name_thread(THREAD_NAME)
        for event in self.sources.events(self._stop):
            if self.selftest is not None:
                self.selftest.take(event)
            if isinstance(event, Edge):
                self.edges += 1
                self.box.pad_edge(event)  # the arbiter's Edge, as it is
            elif isinstance(event, BoardStatusChanged):
                log.info("pad board %s is %s%s", event.board, event.status, event.clock_text())
                if event.note:
                    log.warning("pad board %s: %s", event.board, event.note)
                status = board_json(event, self.sources.pad_map)
                if event.status != "online" and status.get("pads"):
                    pads = ", ".join(status["pads"])
                    log.warning(
                        "pad board %s: its pads %s do not count until it is back",
                        status["name"],
                        pads,
                    )
                self.box.pad_board(status)
            elif isinstance(event, FramesLost):
                log.warning("pad frames lost: %s", event)

    def light(self, lit: list[str]) -> None:
        """Set the lights that changed (pads without a light are left out)."""
        wanted = set(lit) & self._lights
        for pad_id in sorted(wanted ^ self._lit):
            try:
                self.sources.set_light(pad_id, pad_id in wanted)
            except BuzzerboxError as exc:
                log.warning("pad light %s: %s", pad_id, exc)
        self._lit = wanted
