"""`buzzerbox doctor --lamps S`: each lamp lit in turn, each pad's state shown live.

Before a game, so a miswired jack is found at the table, not in round one: every pad
the pad map gives a light is lit for `STEP_S`, one after another (a board's lamp by
the protocol's ``LED <ch> 1``, firmware/board-protocol.md; a Pi lamp on its
``light_gpio``), round and round for S seconds; meanwhile every press and release
shows as it comes, named from the map, and each step says which pads read pressed.
A lamp that lights at the wrong seat, or a pad that shows under another's name, is a
jack in the wrong socket (hardware/self-test.md).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any, TextIO

from buzzerbox.errors import BuzzerboxError
from buzzerbox.pads.pad import Pad
from buzzerbox.pads.padmap import PadMap
from buzzerbox.pads.sources import PadSources
from buzzerbox.pads.timeline.arbiter import BoardStatusChanged, Edge, PadEvent

STEP_S = 1.0


def add_lamp_options(d: argparse.ArgumentParser) -> None:
    d.add_argument(
        "--lamps",
        metavar="S",
        type=float,
        help="light each lamp in turn for S s in all, showing each pad's state live",
    )


class PadStates:
    """Which pads read pressed, from the final edges (and a GPIO pad's level)."""

    def __init__(self, pad_map: PadMap | None) -> None:
        self.pad_map = pad_map
        self.pressed: dict[str, bool] = {}

    def take(self, ev: PadEvent) -> None:
        if isinstance(ev, Edge):
            self.pressed[ev.pad] = ev.is_press

    def now_pressed(self) -> list[str]:
        return sorted(pad for pad, down in self.pressed.items() if down)


def lamp_text(pad: Pad, pad_map: PadMap) -> str:
    where = (
        f"the Pi's GPIO{pad.light_gpio}"
        if pad.light_gpio is not None
        else f"board {pad_map.board_name(pad.board)} led {pad.light_ch}"
    )
    return f"lamp of {pad.id} ({pad.describe()}): {where}"


def lamp_test(
    pad_map: PadMap | None,
    urls: Sequence[str],
    factory: Any,
    out: TextIO,
    *,
    seconds: float,
    step_s: float = STEP_S,
) -> bool:
    """Light each lamp in turn for `seconds` in all; whether every lamp could be told."""
    from buzzerbox.pads.monitor import TextPrinter

    lamps = [p for p in (pad_map.pads if pad_map else ()) if p.light_gpio or p.light_ch is not None]
    if pad_map is None or not lamps:
        out.write("== lamps: the pad map gives no pad a light (light_ch or light_gpio)\n")
        return False
    out.write(f"== lamps: each lit for {step_s:g} s in turn ({seconds:g} s); press the pads\n")
    has_gpio = bool(pad_map.gpio_pads)
    sources = PadSources(pad_map, boards=list(urls), gpio_factory=factory if has_gpio else None)
    printer = TextPrinter(out, pad_map)
    states = PadStates(pad_map)
    told = True

    def show(events: list[PadEvent]) -> None:
        for ev in events:
            states.take(ev)
            if isinstance(ev, Edge | BoardStatusChanged):
                printer(ev)

    end = time.monotonic() + seconds
    lit: Pad | None = None
    i = 0
    sources.start()
    try:
        while time.monotonic() < end:
            pad = lamps[i % len(lamps)]
            i += 1
            try:
                if lit is not None:
                    sources.set_light(lit.id, False)
                sources.set_light(pad.id, True)
            except BuzzerboxError as exc:
                out.write(f"{lamp_text(pad, pad_map)}: cannot be lit: {exc}\n")
                told = False
                lit = None
            else:
                lit = pad
                pressed = ", ".join(states.now_pressed()) or "none"
                out.write(f"{lamp_text(pad, pad_map)}: ON (pads pressed now: {pressed})\n")
            step_end = min(end, time.monotonic() + step_s)
            while time.monotonic() < step_end:
                show(sources.poll(0.01))
        if lit is not None:
            sources.set_light(lit.id, False)
            show(sources.poll(0.05))
    finally:
        sources.close()
    out.write(f"pads pressed at the end: {', '.join(states.now_pressed()) or 'none'}\n")
    return told
