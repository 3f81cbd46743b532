"""The wiring a pad map implies: which pin of which controller goes to which pad.

The pad map (`buzzerbox.pads.padmap`, the file the box loads) names BCM GPIOs and
board channels; a person with a soldering iron needs header pins. `wires()` turns
one into the other (a board's layout follows from its `channels`: 24 or 12, the
firmware's two layouts), `check()` says what will not fit or should not be done,
`budget()` counts pins and `table()` is the Markdown wiring table of the docs.

A map with boards also gets the sync wire (hardware/sync-wire.md): from the Pi's
`SYNC_GPIO` to each board's last input channel, when no pad holds it; a map with a
`[test_line]` the self-test line (hardware/self-test.md): from its Pi output to each
board's channel it names and to its Pi input. PURE: no I/O.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal

from buzzerbox.appliance import pinout
from buzzerbox.pads.pad import Pad
from buzzerbox.pads.padmap import BoardSpec, PadMap

PI = "pi"
Kind = Literal["input", "light", "sync", "test"]


@dataclass(frozen=True, slots=True)
class Wire:
    """One wire at `pin` (physical) of `controller` (``"pi"`` or a board's name: its
    alias, else its id).

    `pad` is the pad it goes to (None for the sync wire and the test line). `gpio` is
    the BCM number (Pi) or GP number (Pico); it and `pin` are None when the board has
    no such channel or its layout is unknown (`check` reports it). `ch` is the board's
    input or LED channel. On the Pi, the sync wire's and the test line's output has
    `is_out`; the test line's Pi input does not.
    """

    pad: Pad | None
    kind: Kind
    controller: str
    gpio: int | None
    pin: int | None
    ch: int | None = None
    is_out: bool = False

    @property
    def label(self) -> str:
        if self.gpio is None or self.pin is None:
            return f"ch {self.ch}: no such pin"
        prefix = "GPIO" if self.controller == PI else "GP"
        return f"pin {self.pin} ({prefix}{self.gpio})"

    @property
    def seat(self) -> int | None:
        return None if self.pad is None else self.pad.seat


def _board_wire(pad: Pad | None, kind: Kind, spec: BoardSpec, ch: int) -> Wire:
    layout = pinout.pico_layout(spec.channels)
    gp = None
    if layout is not None:
        gp = layout.led_gp(ch) if kind == "light" else layout.input_gp(ch)
    pin = pinout.PICO_GP_PIN.get(gp) if gp is not None else None
    return Wire(pad, kind, spec.name, gp, pin, ch)


def sync_channel(pad_map: PadMap, spec: BoardSpec) -> int | None:
    """The board channel the sync wire goes to: the pad map's `sync`, else the layout's
    last input; None (layout unknown, or a pad holds it)."""
    if spec.sync is not None:
        return spec.sync
    layout = pinout.pico_layout(spec.channels)
    if layout is None or pad_map.at(spec.id, layout.sync_ch) is not None:
        return None
    return layout.sync_ch


def wires(pad_map: PadMap) -> list[Wire]:
    """Every input, light and sync wire of the pad map, by controller and pin."""
    out: list[Wire] = []
    specs = {b.id: b for b in pad_map.boards}
    for pad in pad_map.pads:
        if pad.is_gpio:
            out.append(Wire(pad, "input", PI, pad.ch, pinout.PI_HEADER_PIN.get(pad.ch)))
        else:
            out.append(_board_wire(pad, "input", specs[pad.board], pad.ch))
        if pad.light_gpio is not None:
            g = pad.light_gpio
            out.append(Wire(pad, "light", PI, g, pinout.PI_HEADER_PIN.get(g)))
        elif pad.light_ch is not None:
            out.append(_board_wire(pad, "light", specs[pad.board], pad.light_ch))
    synced = [(b, ch) for b in pad_map.boards if (ch := sync_channel(pad_map, b)) is not None]
    if synced:
        g = pinout.SYNC_GPIO
        out.append(Wire(None, "sync", PI, g, pinout.PI_HEADER_PIN[g], is_out=True))
        out += [_board_wire(None, "sync", b, ch) for b, ch in synced]
    line = pad_map.test_line
    if line is not None:
        pin = pinout.PI_HEADER_PIN.get
        out.append(Wire(None, "test", PI, line.gpio, pin(line.gpio), is_out=True))
        if line.gpio_in is not None:
            out.append(Wire(None, "test", PI, line.gpio_in, pin(line.gpio_in)))
        out += [_board_wire(None, "test", specs[b], ch) for b, ch in line.channels.items()]
    order = {PI: 0} | {b.name: i + 1 for i, b in enumerate(pad_map.boards)}
    out.sort(key=lambda w: (order.get(w.controller, 99), w.pin or 999, w.kind))
    return out


def controllers(pad_map: PadMap) -> list[str]:
    """``"pi"`` if anything is wired to the header, then every board, in map order."""
    uses_pi = bool(pad_map.boards) or any(
        p.is_gpio or p.light_gpio is not None for p in pad_map.pads
    )
    return ([PI] if uses_pi else []) + [b.name for b in pad_map.boards]


def check(pad_map: PadMap) -> list[str]:
    """What will not fit or should not be wired so; empty when the map is buildable."""
    problems: list[str] = []
    sizes = " or ".join(str(n) for n in pinout.PICO_LAYOUTS)
    for b in pad_map.boards:
        if pinout.pico_layout(b.channels) is None:
            problems.append(
                f"board {b.name}: channels = {b.channels} is not a firmware layout: "
                f"say channels = {sizes} so that its pins are known"
            )
    all_wires = wires(pad_map)
    for w in all_wires:
        if w.kind == "test" and w.controller == PI and w.gpio in pinout.PI_AVOID:
            problems.append(
                f"the test line: GPIO{w.gpio} is {pinout.PI_AVOID[w.gpio]}: use one of GPIO "
                f"{', '.join(map(str, pinout.PI_USABLE))}"
            )
        if w.pad is None:
            continue
        who = f"{w.pad.id} ({w.pad.describe()})"
        what = "its light" if w.kind == "light" else "its input"
        if w.controller == PI:
            assert w.gpio is not None
            if w.gpio in pinout.PI_AVOID:
                problems.append(
                    f"{who}: {what} is on GPIO{w.gpio}, {pinout.PI_AVOID[w.gpio]}: "
                    f"use one of GPIO {', '.join(map(str, pinout.PI_USABLE))}"
                )
            elif w.kind == "light" and w.gpio in pinout.PI_PULLED_UP_AT_BOOT:
                problems.append(
                    f"{who}: its light is on GPIO{w.gpio}, pulled up at power-on, so it "
                    "glows until the box starts: put lights on GPIO 9-27"
                )
            elif w.gpio == pinout.SYNC_GPIO and pad_map.boards:
                problems.append(
                    f"{who}: {what} is on GPIO{w.gpio}, the sync wire's pin when there are "
                    "boards: use another GPIO"
                )
            if pad_map.gpio.pull == "down" and w.kind == "input" and w.gpio in (2, 3):
                problems.append(f"{who}: GPIO{w.gpio} has a fixed pull-up: it cannot pull down")
        elif w.gpio is None and (layout := _layout(pad_map, w.controller)) is not None:
            have, kind = (layout.leds, "LED") if w.kind == "light" else (layout.inputs, "input")
            problems.append(
                f"{who}: board {w.controller} has no {kind} channel {w.ch}: its layout "
                f"{layout.name} has {kind} channels 0-{len(have) - 1}"
            )
    return problems


def _layout(pad_map: PadMap, board: str) -> pinout.PicoLayout | None:
    spec = pad_map.board(board)
    return pinout.pico_layout(spec.channels) if spec is not None else None


def budget(pad_map: PadMap) -> list[str]:
    """One line per controller: what the map uses of it, and what is left."""
    all_wires = wires(pad_map)
    counts = Counter((w.controller, w.kind) for w in all_wires)
    lines: list[str] = []
    for c in controllers(pad_map):
        ins, lights, sync = counts[(c, "input")], counts[(c, "light")], counts[(c, "sync")]
        test = counts[(c, "test")]
        if c == PI:
            total = len(pinout.PI_USABLE)
            used = ins + lights + sync + test
            extra = " + the sync wire" if sync else ""
            if test:
                extra += f" + the test line ({test} pin{'s' if test > 1 else ''})"
            lines.append(
                f"Pi header: {ins} inputs + {lights} lights{extra} = {used} of the "
                f"{total} GPIOs free for pads ({total - used} spare)"
            )
            continue
        layout = _layout(pad_map, c)
        if layout is None:
            lines.append(f"board {c}: layout unknown (channels = 24 or 12)")
            continue
        sync_ch = next((w.ch for w in all_wires if w.controller == c and w.kind == "sync"), None)
        sync_text = f" + sync on ch {sync_ch}" if sync else " (no sync input free)"
        test_ch = next((w.ch for w in all_wires if w.controller == c and w.kind == "test"), None)
        test_text = f" + the test line on ch {test_ch}" if test else ""
        lines.append(
            f"board {c} ({layout.name}): {ins} of {len(layout.inputs)} inputs{sync_text}"
            f"{test_text}, {lights} of {len(layout.leds)} LEDs; "
            f"{len(layout.inputs) - ins - sync - test} inputs spare"
        )
    return lines


def table(pad_map: PadMap) -> str:
    """The wiring table (Markdown): one row per pad and its light, then the sync wire."""
    rows = [
        "| pad | role | seat | pile | input wire | light wire |",
        "|---|---|---|---|---|---|",
    ]
    all_wires = wires(pad_map)
    lights = {w.pad.id: w for w in all_wires if w.kind == "light" and w.pad is not None}
    for w in all_wires:
        if w.kind != "input" or w.pad is None:
            continue
        pad = w.pad
        pile = "–" if pad.pile is None else str(pad.pile)
        rows.append(
            f"| `{pad.id}` | {pad.role} | {pad.seat} | {pile} | "
            f"{where(w)} | {where(lights.get(pad.id))} |"
        )
    sync = [w for w in all_wires if w.kind == "sync"]
    if sync:
        rows += ["", "| sync wire to | from | to |", "|---|---|---|"]
        rows += [
            f"| {w.controller} | {where(sync[0])}, through 330 Ω | {where(w)} |"
            for w in sync
            if w.controller != PI
        ]
    test = [w for w in all_wires if w.kind == "test"]
    if test:
        src = next(w for w in test if w.is_out)
        rows += ["", "| test line to | from | to |", "|---|---|---|"]
        rows += [
            f"| {'Pi (direct input)' if w.controller == PI else w.controller} | "
            f"{where(src)}, through 330 Ω | {where(w)} |"
            for w in test
            if not w.is_out
        ]
    return "\n".join(rows) + "\n"


def where(w: Wire | None) -> str:
    """``"Pi pin 11 (GPIO17)"``, ``"pico-a pin 4 (GP2), ch 2"``, or ``"–"``."""
    if w is None:
        return "–"
    name = "Pi" if w.controller == PI else w.controller
    ch = ""
    if w.ch is not None:
        ch = f", LED {w.ch}" if w.kind == "light" else f", ch {w.ch}"
    return f"{name} {w.label}{ch}"
