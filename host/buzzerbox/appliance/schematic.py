"""A schematic (SVG) of the circuit a pad map implies (circuit.py), with schemdraw.

The wiring diagram (diagram.py) shows pin to pad; this shows what sits between, as
circuit.plan() lays it out and netlist.py wires it: per input its connector's
contact and GND pins, the 470 Ω entry resistor, the ESD array's line, the 4.7 kΩ
pull-up (or the chip's internal one) and the 1 kΩ series resistor to the pin; per
ESD array its VCC, GND and 100 nF; per lamp its AO3400A (the adapter's pads), the
gate resistors, the lamp on its connector pins, the 82 Ω feed resistor and the
MF-R010 fuse from +5 V; the sync wire and the self-test line as stars, one 330 Ω
per branch at the Pi (hardware/pads.md, hardware/sync-wire.md, hardware/self-test.md).

`draw()` lays the plan out with schemdraw's own SVG backend (no matplotlib). The
same map gives the same bytes, so a test can compare the committed SVG.
"""

from __future__ import annotations

from typing import Any

from buzzerbox.appliance import wiring
from buzzerbox.appliance.circuit import (
    ENTRY,
    ESD_CAP,
    ESD_GND_PIN,
    ESD_PART,
    ESD_VCC_PIN,
    FEED_R,
    FUSE,
    GATE_PULLDOWN,
    GATE_R,
    LINE_R,
    MOSFET,
    MOSFET_PADS,
    PULLUP,
    SERIES,
    LineStage,
    PadPins,
    plan,
)
from buzzerbox.appliance.wiring import PI, Wire
from buzzerbox.pads.pad import Pad
from buzzerbox.pads.padmap import PadMap

MOSFET_TEXT = f"{MOSFET} on a SOT-23-6 adapter: G pad {MOSFET_PADS['G']}, " + (
    f"S pad {MOSFET_PADS['S']}, D pad {MOSFET_PADS['D']}"
)


def _pin_text(w: Wire) -> str:
    return wiring.where(w)


def _pad_text(pad: Pad, pins: PadPins, pin: int | None, what: str) -> str:
    return f"{pad.id} {what}: {pins.connector} pin {pin}"


def _supply(w: Wire) -> str:
    return "+5 V (Pi pin 2)" if w.controller == PI else f"+5 V ({w.controller} VBUS, pin 40)"


def _rail_3v3(controller: str) -> str:
    return "3V3 (Pi pin 1)" if controller == PI else f"3V3 ({controller} pin 36)"


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

    def text(x: float, y: float, words: str) -> None:
        d.add(elm.Label().at((x, y)).label(words, halign="left"))

    text(0, 5.5, f"Schematic of {head} (made by buzzerbox hardware schematic from its netlist)")
    text(0, 4.5, f"Every part as buzzerbox hardware netlist wires it; {MOSFET_TEXT}")
    col_w, in_h, lamp_h, per_col = 24.0, 8.0, 13.0, 12

    def cell(i: int, h: float, col0: int) -> tuple[float, float]:
        return (col0 + i // per_col) * col_w, -(i % per_col) * h

    for i, s in enumerate(sheet.inputs):
        x, y = cell(i, in_h, 0)
        pad = s.wire.pad
        assert pad is not None
        d.add(elm.Dot(open=True).at((x, y)))
        text(x - 0.2, y + 2.2, _pad_text(pad, s.pins, s.pins.contact, "contact"))
        gnd = d.add(elm.Dot(open=True).at((x, y - 3.0)))
        text(x + 0.6, y - 3.0, _pad_text(pad, s.pins, s.pins.gnd, "GND"))
        d.add(elm.Ground().at(gnd.center))
        d.add(elm.Resistor().at((x, y)).right(3.0).label(f"{s.entry.ref} {ENTRY}", loc="bottom"))
        z = d.add(elm.Zener().at((x + 4.0, y)).down(2.0).reverse())
        d.add(elm.Line().at((x + 3.0, y)).to((x + 4.0, y)))
        text(x + 4.4, y - 1.3, f"{s.esd.ref} IO{s.esd_line} (pin {s.esd_pin})")
        d.add(elm.Ground().at(z.end))
        d.add(elm.Line().at((x + 4.0, y)).to((x + 8.0, y)))
        if s.pullup is not None:
            r = d.add(elm.Resistor().at((x + 8.0, y)).up(2.0))
            text(x + 8.4, y + 1.0, f"{s.pullup.ref} {PULLUP}")
            d.add((elm.Vdd() if sheet.pull == "up" else elm.Ground()).at(r.end).label(rail))
        else:
            text(x + 8.4, y + 0.8, f"internal pull-{sheet.pull}")
        d.add(
            elm.Resistor()
            .at((x + 8.0, y))
            .right(3.0)
            .label(f"{s.series.ref} {SERIES}", loc="bottom")
        )
        d.add(elm.Dot().at((x + 11.0, y)))
        text(x + 11.4, y - 0.9, _pin_text(s.wire))
    col0 = -(-len(sheet.inputs) // per_col)
    arrays = sorted({s.esd.ref: s for s in sheet.inputs}.values(), key=lambda s: s.esd.ref)
    x0 = col0 * col_w
    for i, s in enumerate(arrays):
        y = -i * 6.0
        cap = sheet.esd_caps[s.esd.ref]
        owner = "the Pi" if s.wire.controller == PI else s.wire.controller
        text(x0, y + 1.6, f"{s.esd.ref} {ESD_PART} at {owner}'s pad inputs")
        v = d.add(elm.Dot().at((x0 + 1.0, y)))
        d.add(elm.Vdd().at(v.center).label(_rail_3v3(s.wire.controller)))
        text(x0 + 1.6, y - 0.6, f"{s.esd.ref} pin {ESD_VCC_PIN} VCC")
        c = d.add(elm.Capacitor().at(v.center).down(2.0))
        text(x0 + 1.6, y - 1.4, f"{cap.ref} {ESD_CAP}")
        g = d.add(elm.Dot().at(c.end))
        text(x0 + 1.6, y - 2.4, f"{s.esd.ref} pin {ESD_GND_PIN} GND")
        d.add(elm.Ground().at(g.center))
    col0 += 1 if arrays else 0
    for i, lp in enumerate(sheet.lamps):
        x, y = cell(i, lamp_h, col0)
        y -= 9.0
        pad = lp.wire.pad
        assert pad is not None
        d.add(elm.Dot().at((x, y)))
        text(x, y - 1.2, _pin_text(lp.wire))
        d.add(elm.Resistor().at((x, y)).right(2.5).label(f"{lp.gate_r.ref} {GATE_R}", loc="top"))
        pd = d.add(elm.Resistor().at((x + 2.5, y)).down(2.0))
        text(x + 2.9, y - 1.6, f"{lp.pulldown.ref} {GATE_PULLDOWN}")
        d.add(elm.Ground().at(pd.end))
        d.add(elm.Line().at((x + 2.5, y)).to((x + 4.5, y)))
        q = d.add(elm.NFet().reverse().at((x + 4.5, y)).anchor("gate"))
        text(x + 7.3, y, f"{lp.mosfet.ref} {MOSFET} (G {MOSFET_PADS['G']}, "
             f"S {MOSFET_PADS['S']}, D {MOSFET_PADS['D']})")  # fmt: skip
        d.add(elm.Ground().at(q.absanchors["source"]))
        minus = d.add(elm.Dot(open=True).at(q.absanchors["drain"]))
        text(x + 7.3, y + 1.8, _pad_text(pad, lp.pins, lp.pins.lamp_minus, "lamp −"))
        led = d.add(elm.LED().at(minus.center).up(2.0).reverse())
        text(x + 7.3, y + 3.0, f"lamp of {pad.id} (5 V LED)")
        plus = d.add(elm.Dot(open=True).at(led.end))
        text(x + 7.3, y + 4.2, _pad_text(pad, lp.pins, lp.pins.lamp_plus, "lamp +"))
        r = d.add(elm.Resistor().at(plus.center).up(2.0))
        text(x + 7.3, y + 5.4, f"{lp.feed.ref} {FEED_R}")
        f = d.add(elm.Fuse().at(r.end).up(2.0))
        text(x + 7.3, y + 7.4, f"{lp.fuse.ref} {FUSE}")
        d.add(elm.Vdd().at(f.end).label(_supply(lp.wire)))
    col = col0 + -(-len(sheet.lamps) // per_col)
    y = 0.0
    for name, src, stages in (
        ("sync wire", sheet.sync_from, sheet.syncs),
        ("test line", sheet.test_from, sheet.tests),
    ):
        if src is None or not stages:
            continue
        y = _star(d, elm, col * col_w, y, name, src, stages) - 4.0
    svg = d.get_imagedata("svg")
    text_out = svg.decode("utf-8") if isinstance(svg, bytes) else str(svg)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + text_out.rstrip("\n") + "\n"


def _star(
    d: Any, elm: Any, x: float, y: float, name: str, src: Wire, stages: list[LineStage]
) -> float:
    """One star from the Pi's output: a 330 Ω per branch, a pull-up at each board."""
    d.add(elm.Dot().at((x, y)))
    d.add(elm.Label().at((x, y + 1.0)).label(f"{name}: {_pin_text(src)}", halign="left"))
    d.add(elm.Line().at((x, y)).to((x, y - 5.0 * (len(stages) - 1) - 0.01)))
    for i, st in enumerate(stages):
        by = y - 5.0 * i
        d.add(
            elm.Resistor().at((x, by)).right(3.0).label(f"{st.resistor.ref} {LINE_R}", loc="bottom")
        )
        d.add(elm.Line().at((x + 3.0, by)).to((x + 6.0, by)))
        if st.pullup is not None:
            r = d.add(elm.Resistor().at((x + 6.0, by)).up(2.0))
            d.add(
                elm.Label()
                .at((x + 6.4, by + 1.0))
                .label(f"{st.pullup.ref} {PULLUP}", halign="left")
            )
            d.add(elm.Vdd().at(r.end).label(_rail_3v3(st.wire.controller)))
        d.add(elm.Dot().at((x + 6.0, by)))
        d.add(elm.Label().at((x + 6.4, by - 0.9)).label(_pin_text(st.wire), halign="left"))
    end = y - 5.0 * len(stages)
    d.add(
        elm.Label()
        .at((x, end + 1.5))
        .label("a star: one twisted pair per branch, its GND (Pi pin 25) with each", halign="left")
    )
    return end
