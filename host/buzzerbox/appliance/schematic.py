"""A schematic (SVG) drawn from the pad map the box loads, with schemdraw.

The wiring diagram (diagram.py) shows pin to pad; this shows what sits between:
per input its connector pin (RJ45 for a pile cable, GX16 for a cable with +5 V,
the pin numbers of the build's READMEs), a line of an ESD array (TPD4E001DBV,
with its pin), the pull-up (4.7 kΩ to 3V3 on the cable side, or the chip's
internal one) and the 1 kΩ series resistor to the pin; per lamp its AO3400A
with the 100 Ω gate resistor and the 100 kΩ pull-down, the LED resistor, the
lamp on its connector pins and its MF-R010 fuse from +5 V; and the sync wire as
a star, one 330 Ω per board at the Pi, a 4.7 kΩ pull-up at each board
(hardware/pads.md, hardware/sync-wire.md).

`plan()` is PURE (the parts and their connections, as data: the tests read it);
`draw()` lays them out with schemdraw's own SVG backend (no matplotlib). The
same map gives the same bytes, so a test can compare the committed SVG.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from buzzerbox.appliance import parts, wiring
from buzzerbox.appliance.wiring import PI, Wire
from buzzerbox.pads.pad import Pad
from buzzerbox.pads.padmap import PadMap

ESD_PART = "TPD4E001DBV"
ESD_IO_PINS = (1, 3, 4, 6)
"""The TPD4E001DBV's IO1-IO4 pins (SOT-23-6; GND = 2, VCC = 5)."""
ESD_GND_PIN, ESD_VCC_PIN = 2, 5
MOSFET = "AO3400A"
FUSE = "MF-R010"
PULLUP, SERIES, SYNC_R = "4.7 kΩ", "1 kΩ", "330 Ω"
GATE_R, GATE_PULLDOWN, LAMP_R = "100 Ω", "100 kΩ", "82/150 Ω"
RJ45_PAIRS = ((1, 2), (3, 6), (5, 4), (7, 8))
"""A pile cable's pins per seat zone: (contact, GND), as build 2's README."""


@dataclass(frozen=True, slots=True)
class Part:
    """One part on the schematic: its reference, value, role (the parts.csv item)
    and what it belongs to (a pad id, a board)."""

    ref: str
    value: str
    role: str
    of: str


@dataclass(frozen=True, slots=True)
class PadPins:
    """A pad's pins on its cable's connector `connector` (e.g. ``"J3 GX16-4"``)."""

    connector: str
    contact: int
    gnd: int
    lamp_plus: int | None = None
    lamp_minus: int | None = None


@dataclass(frozen=True, slots=True)
class InputStage:
    wire: Wire
    pins: PadPins
    esd: Part
    esd_pin: int
    pullup: Part | None
    series: Part

    @property
    def esd_line(self) -> int:
        """IO1-IO4: the ESD array's line this input is on."""
        return ESD_IO_PINS.index(self.esd_pin) + 1


@dataclass(frozen=True, slots=True)
class LampStage:
    wire: Wire
    pins: PadPins
    gate_r: Part
    pulldown: Part
    mosfet: Part
    lamp_r: Part
    fuse: Part


@dataclass(frozen=True, slots=True)
class SyncStage:
    wire: Wire
    resistor: Part
    pullup: Part | None


@dataclass(slots=True)
class Sheet:
    inputs: list[InputStage] = field(default_factory=list)
    lamps: list[LampStage] = field(default_factory=list)
    syncs: list[SyncStage] = field(default_factory=list)
    sync_from: Wire | None = None
    parts: list[Part] = field(default_factory=list)
    pull: str = "up"


class _Refs:
    def __init__(self, sheet: Sheet) -> None:
        self.sheet = sheet
        self.counts: dict[str, int] = {}

    def new(self, prefix: str, value: str, role: str, of: str) -> Part:
        n = self.counts[prefix] = self.counts.get(prefix, 0) + 1
        part = Part(f"{prefix}{n}", value, role, of)
        self.sheet.parts.append(part)
        return part


def connector_pins(pad_map: PadMap) -> dict[str, PadPins]:
    """Each pad's connector and pins, one connector per cable (parts.cables)."""
    out: dict[str, PadPins] = {}
    for n, cable in enumerate(parts.cables(pad_map), start=1):
        pads = cable.pads
        if cable.is_pile and all(p.seat < len(RJ45_PAIRS) for p in pads):
            name = f"J{n} RJ45"
            for p in pads:
                out[p.id] = PadPins(name, *RJ45_PAIRS[p.seat])
            continue
        kind = "RJ45" if cable.is_pile else f"GX16-{4 * len(pads)}"
        name = f"J{n} {kind}"
        for i, p in enumerate(pads):
            contact, gnd = 2 * i + 1, 2 * i + 2
            if cable.is_pile:
                out[p.id] = PadPins(name, contact, gnd)
            elif len(pads) == 2:  # the Twin It! seat cable: slap lamp 5/6, stop lamp 8/7
                plus, minus = ((5, 6), (8, 7))[i]
                out[p.id] = PadPins(name, contact, gnd, plus, minus)
            else:
                base = 2 * len(pads) + 2 * i
                out[p.id] = PadPins(name, contact, gnd, base + 1, base + 2)
    return out


def plan(pad_map: PadMap, *, external_pullups: bool = True) -> Sheet:
    """The schematic's stages and parts for `pad_map` (PURE)."""
    sheet = Sheet(pull=pad_map.gpio.pull)
    refs = _Refs(sheet)
    pins = connector_pins(pad_map)
    all_wires = wiring.wires(pad_map)
    esd_used: dict[str, tuple[Part, int]] = {}
    for w in all_wires:
        if w.kind != "input" or w.pad is None:
            continue
        pad = w.pad
        esd, line = esd_used.get(w.controller, (None, parts.ESD_LINES))
        if esd is None or line == parts.ESD_LINES:
            esd, line = refs.new("U", ESD_PART, "esd", w.controller), 0
        esd_used[w.controller] = (esd, line + 1)
        pullup = refs.new("R", PULLUP, "pullup", pad.id) if external_pullups else None
        series = refs.new("R", SERIES, "series", pad.id)
        sheet.inputs.append(InputStage(w, pins[pad.id], esd, ESD_IO_PINS[line], pullup, series))
    for w in all_wires:
        if w.kind != "light" or w.pad is None:
            continue
        pid = w.pad.id
        sheet.lamps.append(
            LampStage(
                w,
                pins[pid],
                refs.new("R", GATE_R, "gate-r", pid),
                refs.new("R", GATE_PULLDOWN, "gate-pulldown", pid),
                refs.new("Q", MOSFET, "mosfet", pid),
                refs.new("R", LAMP_R, "lamp-r", pid),
                refs.new("F", FUSE, "fuse", pid),
            )
        )
    for w in all_wires:
        if w.kind != "sync":
            continue
        if w.controller == PI:
            sheet.sync_from = w
            continue
        r = refs.new("R", SYNC_R, "sync-r", w.controller)
        up = refs.new("R", PULLUP, "pullup", w.controller) if external_pullups else None
        sheet.syncs.append(SyncStage(w, r, up))
    return sheet


def _pin_text(w: Wire) -> str:
    return wiring.where(w)


def _pad_text(pad: Pad, pins: PadPins, pin: int | None, what: str) -> str:
    return f"{pad.id} {what}: {pins.connector} pin {pin}"


def draw(pad_map: PadMap, *, title: str | None = None, external_pullups: bool = True) -> str:
    """The schematic as an SVG document (text, one trailing newline)."""
    import schemdraw
    import schemdraw.elements

    elm: Any = schemdraw.elements  # schemdraw's chained builders are only partly typed

    schemdraw.use("svg")
    sheet = plan(pad_map, external_pullups=external_pullups)
    d = schemdraw.Drawing(show=False)
    d.config(fontsize=9, unit=2.0, lw=1.0, margin=8.0)
    head = title or "pads.toml"
    rail = "3V3" if sheet.pull == "up" else "GND"
    d.add(
        elm.Label()
        .at((0, 4))
        .label(
            f"Schematic of {head} (made by buzzerbox hardware schematic; "
            f"ESD: {ESD_PART}, IO1-IO4 = pins 1, 3, 4, 6, GND = 2, VCC = 5 to 3V3 "
            "with 100 nF)",
            halign="left",
        )
    )
    col_w, in_h, lamp_h, per_col = 18.0, 6.0, 11.0, 12

    def cell(i: int, h: float, col0: int) -> tuple[float, float]:
        return (col0 + i // per_col) * col_w, -(i % per_col) * h

    for i, s in enumerate(sheet.inputs):
        x, y = cell(i, in_h, 0)
        pad = s.wire.pad
        assert pad is not None
        d.add(elm.Dot(open=True).at((x, y)))
        d.add(
            elm.Label()
            .at((x, y + 1.2))
            .label(_pad_text(pad, s.pins, s.pins.contact, "contact"), halign="left")
        )
        d.add(elm.Line().at((x, y)).to((x + 1.5, y)))
        z = d.add(elm.Zener().at((x + 1.5, y)).down(2.0).reverse())
        d.add(
            elm.Label()
            .at((x + 1.8, y - 1.0))
            .label(f"{s.esd.ref} IO{s.esd_line} (pin {s.esd_pin})", halign="left")
        )
        d.add(elm.Ground().at(z.end))
        d.add(elm.Line().at((x + 1.5, y)).to((x + 5.0, y)))
        if s.pullup is not None:
            r = d.add(elm.Resistor().at((x + 5.0, y)).up(2.0))
            d.add(
                elm.Label().at((x + 5.4, y + 1.0)).label(f"{s.pullup.ref} {PULLUP}", halign="left")
            )
            d.add((elm.Vdd() if sheet.pull == "up" else elm.Ground()).at(r.end).label(rail))
        else:
            d.add(
                elm.Label()
                .at((x + 5.4, y + 0.8))
                .label(f"internal pull-{sheet.pull}", halign="left")
            )
        d.add(
            elm.Resistor()
            .at((x + 5.0, y))
            .right(3.0)
            .label(f"{s.series.ref} {SERIES}", loc="bottom")
        )
        d.add(elm.Dot().at((x + 8.0, y)).label(_pin_text(s.wire), loc="right"))
    col0 = -(-len(sheet.inputs) // per_col)
    for i, lp in enumerate(sheet.lamps):
        x, y = cell(i, lamp_h, col0)
        y -= 7.0
        pad = lp.wire.pad
        assert pad is not None
        d.add(elm.Dot().at((x, y)).label(_pin_text(lp.wire), loc="top", halign="left"))
        d.add(elm.Resistor().at((x, y)).right(2.5).label(f"{lp.gate_r.ref} {GATE_R}", loc="bottom"))
        pd = d.add(elm.Resistor().at((x + 2.5, y)).down(2.0))
        d.add(
            elm.Label()
            .at((x + 2.9, y - 1.0))
            .label(f"{lp.pulldown.ref} {GATE_PULLDOWN}", halign="left")
        )
        d.add(elm.Ground().at(pd.end))
        d.add(elm.Line().at((x + 2.5, y)).to((x + 4.5, y)))
        q = d.add(elm.NFet().reverse().at((x + 4.5, y)).anchor("gate"))
        d.add(
            elm.Label()
            .at((x + 6.3, y))
            .label(f"{lp.mosfet.ref} {MOSFET} (1 G, 2 S, 3 D)", halign="left")
        )
        d.add(elm.Ground().at(q.absanchors["source"]))
        r = d.add(elm.Resistor().at(q.absanchors["drain"]).up(1.8))
        d.add(
            elm.Label()
            .at((x + 6.3, y + 1.7))
            .label(f"{lp.lamp_r.ref} {LAMP_R} (if no built-in)", halign="left")
        )
        minus = d.add(elm.Dot(open=True).at(r.end))
        d.add(
            elm.Label()
            .at((x + 6.3, y + 2.7))
            .label(_pad_text(pad, lp.pins, lp.pins.lamp_minus, "lamp −"), halign="left")
        )
        led = d.add(elm.LED().at(minus.center).up(1.8).reverse())
        d.add(
            elm.Label().at((x + 6.3, y + 3.6)).label(f"lamp of {pad.id} (5 V LED)", halign="left")
        )
        plus = d.add(elm.Dot(open=True).at(led.end))
        d.add(
            elm.Label()
            .at((x + 6.3, y + 4.5))
            .label(_pad_text(pad, lp.pins, lp.pins.lamp_plus, "lamp +"), halign="left")
        )
        f = d.add(elm.Fuse().at(plus.center).up(1.8))
        d.add(elm.Label().at((x + 6.3, y + 5.5)).label(f"{lp.fuse.ref} {FUSE}", halign="left"))
        supply = (
            "+5 V (Pi pin 2)"
            if lp.wire.controller == PI
            else f"+5 V ({lp.wire.controller} VBUS, pin 40)"
        )
        d.add(elm.Vdd().at(f.end).label(supply))
    if sheet.sync_from is not None and sheet.syncs:
        col = col0 + -(-len(sheet.lamps) // per_col)
        x, y = col * col_w, 0.0
        d.add(
            elm.Dot()
            .at((x, y))
            .label(f"sync wire: {_pin_text(sheet.sync_from)}", loc="top", halign="left")
        )
        d.add(elm.Line().at((x, y)).to((x, y - 4.0 * (len(sheet.syncs) - 1) - 0.01)))
        for i, sy in enumerate(sheet.syncs):
            by = y - 4.0 * i
            d.add(
                elm.Resistor()
                .at((x, by))
                .right(3.0)
                .label(f"{sy.resistor.ref} {SYNC_R}", loc="bottom")
            )
            d.add(elm.Line().at((x + 3.0, by)).to((x + 6.0, by)))
            if sy.pullup is not None:
                r = d.add(elm.Resistor().at((x + 6.0, by)).up(2.0))
                d.add(
                    elm.Label()
                    .at((x + 6.4, by + 1.0))
                    .label(f"{sy.pullup.ref} {PULLUP}", halign="left")
                )
                d.add(elm.Vdd().at(r.end).label("3V3"))
            d.add(elm.Dot().at((x + 6.0, by)).label(_pin_text(sy.wire), loc="right"))
        d.add(
            elm.Label()
            .at((x, y - 4.0 * len(sheet.syncs)))
            .label("a star: one twisted pair per board, GND (Pi pin 25) with each", halign="left")
        )
    svg = d.get_imagedata("svg")
    text = svg.decode("utf-8") if isinstance(svg, bytes) else str(svg)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + text.rstrip("\n") + "\n"
