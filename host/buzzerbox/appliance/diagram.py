"""A wiring diagram (SVG) drawn from the pad map the box loads, so the two cannot drift.

Left: each controller (the Pi's header, each Pico board) with the pins the map
uses, by physical pin number. Right: the pads, grouped by seat. A solid line is
a pad's contact (its other side goes to GND), a dashed line its light, the black
line on the far left the sync wire, the dotted one beside it the self-test line.
Made with xml.etree only; the same map always gives the same bytes (no dates, no
ids), so a test can compare the committed SVG.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import PurePath

from buzzerbox.appliance import pinout
from buzzerbox.appliance.wiring import PI, Wire, controllers, wires
from buzzerbox.pads.pad import Pad
from buzzerbox.pads.padmap import PadMap

SVG_NS = "http://www.w3.org/2000/svg"
#: one colour per seat (12 seats at most), readable on white and by most colour-blind eyes
SEAT_COLOURS = (
    "#0072b2",
    "#d55e00",
    "#009e73",
    "#cc79a7",
    "#e69f00",
    "#56b4e9",
    "#7f3c8d",
    "#3b8a3b",
    "#a6761d",
    "#e7298a",
    "#666666",
    "#1b9e77",
)
ROW = 22
HEAD = 30
GAP = 22
SYNC_X = 22
TEST_X = 10
LEFT_X, LEFT_W = 40, 320
RIGHT_X, RIGHT_W = 680, 380
WIDTH = RIGHT_X + RIGHT_W + 20
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, monospace"


def _el(parent: ET.Element, tag: str, text: str | None = None, /, **attrs: object) -> ET.Element:
    """A child element; `font_size=12` becomes the attribute ``font-size="12"``."""
    el = ET.SubElement(parent, tag, {k.replace("_", "-"): str(v) for k, v in attrs.items()})
    if text is not None:
        el.text = text
    return el


def map_title(name: str) -> str:
    """The map's file as the docs name it: its folder and file (``twist-picos/pads.toml``)."""
    parts = PurePath(name).parts
    return "/".join(parts[-2:]) if parts else name


def _controller_title(pad_map: PadMap, c: str) -> str:
    if c == PI:
        return "Raspberry Pi 40-pin header"
    spec = pad_map.board(c)
    layout = pinout.pico_layout(spec.channels if spec else None)
    return f"Pico board {c}" + (f" ({layout.name})" if layout else "")


def _pad_text(pad: Pad) -> str:
    if pad.role == "pile":
        return f"{pad.id} · pile {pad.pile}, zone of seat {pad.seat}"
    return f"{pad.id} · {pad.role}"


def _ground(c: str) -> str:
    pins = pinout.PI_GROUND_PINS if c == PI else pinout.PICO_GROUND_PINS
    return "GND: pins " + ", ".join(map(str, pins))


def _pin_role(w: Wire) -> str:
    if w.kind in ("sync", "test"):
        name = w.kind if w.kind == "sync" else "test line"
        if w.controller == PI:
            return f"{name} {'out' if w.is_out else 'in'}"
        return f"{name} in · ch {w.ch}"
    what = "light out" if w.kind == "light" else "pad in"
    if w.ch is not None:
        what += f" · {'LED' if w.kind == 'light' else 'ch'} {w.ch}"
    return what


def draw(pad_map: PadMap, *, title: str | None = None) -> str:
    """The SVG document (text) for `pad_map`; `title` names it (default: from its file)."""
    all_wires = wires(pad_map)
    title = title or map_title(pad_map.name)
    svg = ET.Element("svg", {"xmlns": SVG_NS, "width": str(WIDTH), "font-family": FONT})
    _el(svg, "title", f"buzzerbox wiring: {title}")
    _el(svg, "rect", x=0, y=0, width=WIDTH, height="100%", fill="#ffffff")
    _el(svg, "text", f"Wiring of {title}", x=20, y=30, font_size=18, font_weight="bold")
    n_boards = len(pad_map.boards)
    summary = f"{pad_map.seats} seats · {len(pad_map.pads)} pads"
    if pad_map.piles:
        summary += f" · {pad_map.piles} piles"
    if n_boards:
        summary += f" · {n_boards} Pico board{'s' if n_boards != 1 else ''}"
    _el(svg, "text", summary, x=20, y=52, font_size=13, fill="#444444")
    top = 76

    # Left: controllers and the pins used ----------------------------------------------
    pin_y: dict[tuple[str, str, int], int] = {}  # (controller, kind, gpio) -> row centre
    y = top
    for c in controllers(pad_map):
        mine = [w for w in all_wires if w.controller == c and w.gpio is not None]
        height = HEAD + ROW * (len(mine) + 1) + 8
        _box(svg, LEFT_X, y, LEFT_W, height, _controller_title(pad_map, c), "#333333", "#f4f4f4")
        ry = y + HEAD + ROW // 2
        for w in mine:
            assert w.gpio is not None
            _el(svg, "text", w.label, x=LEFT_X + 12, y=ry + 4, font_size=12, font_family=MONO)
            role = _pin_role(w)
            _el(svg, "text", role, x=LEFT_X + LEFT_W - 14, y=ry + 4, font_size=11,
                text_anchor="end", fill="#555555")  # fmt: skip
            edge = LEFT_X if w.kind in ("sync", "test") else LEFT_X + LEFT_W
            _el(svg, "circle", cx=edge, cy=ry, r=3.5, fill="#333333")
            pin_y[(c, w.kind, w.gpio)] = ry
            ry += ROW
        _el(svg, "text", _ground(c), x=LEFT_X + 12, y=ry + 4, font_size=11, fill="#555555")
        y += height + GAP
    left_end = y

    # Right: the pads, each pile pad whole, the others by seat ---------------------------
    pad_y: dict[str, int] = {}
    y = top
    for heading, colour, pads in _groups(pad_map):
        height = HEAD + ROW * len(pads) + 6
        _box(svg, RIGHT_X, y, RIGHT_W, height, heading, colour, "#ffffff")
        ry = y + HEAD + ROW // 2
        for pad in pads:
            seat_colour = SEAT_COLOURS[pad.seat % len(SEAT_COLOURS)]
            _symbol(svg, pad, RIGHT_X + 18, ry, seat_colour)
            _el(svg, "text", _pad_text(pad), x=RIGHT_X + 34, y=ry + 4, font_size=12)
            if pad.light_gpio is not None or pad.light_ch is not None:
                _el(svg, "text", "light", x=RIGHT_X + RIGHT_W - 10, y=ry + 4, font_size=11,
                    text_anchor="end", fill=seat_colour)  # fmt: skip
            _el(svg, "circle", cx=RIGHT_X, cy=ry, r=3.5, fill=seat_colour)
            pad_y[pad.id] = ry
            ry += ROW
        y += height + GAP
    right_end = y

    # Wires ------------------------------------------------------------------------------
    group = _el(svg, "g", fill="none", stroke_width=1.6)
    for w in all_wires:
        if w.pad is not None and w.gpio is not None:
            _pad_wire(group, w, pin_y[(w.controller, w.kind, w.gpio)], pad_y[w.pad.id])
    _bus(group, [w for w in all_wires if w.kind == "sync"], pin_y, SYNC_X, "sync wire", {})
    dotted = {"stroke_dasharray": "2 3"}
    _bus(group, [w for w in all_wires if w.kind == "test"], pin_y, TEST_X, "test line", dotted)

    # Legend -----------------------------------------------------------------------------
    ly = max(left_end, right_end) + 6
    legend: list[tuple[dict[str, str], str]] = [
        (
            {},
            "contact: pad in → the pin; the pad's other side → GND "
            "(470 Ω in, ESD and 4.7 kΩ to 3V3, 1 kΩ to the pin, at the controller)",
        ),
        (
            {"stroke_dasharray": "6 4"},
            "light: the pin drives the gate of the lamp's AO3400A (100 Ω, 100 kΩ to GND); "
            "the lamp sits between its fused, 82 Ω-fed 5 V and that MOSFET's drain",
        ),
    ]
    if any(w.kind == "sync" for w in all_wires):
        legend.append(
            ({"stroke_width": "2.5"}, "sync wire: one 330 Ω per board; see hardware/sync-wire.md")
        )
    if any(w.kind == "test" for w in all_wires):
        legend.append(
            (
                {"stroke_width": "2.5", "stroke_dasharray": "2 3"},
                "test line: one 330 Ω per branch at the Pi; see hardware/self-test.md",
            )
        )
    for i, (attrs, text) in enumerate(legend):
        yy = ly + 20 * i
        _el(svg, "line", x1=20, y1=yy, x2=60, y2=yy, stroke="#333333", stroke_width=1.6)
        svg[-1].attrib.update({k.replace("_", "-"): v for k, v in attrs.items()})
        _el(svg, "text", text, x=68, y=yy + 4, font_size=12)
    height = ly + 20 * len(legend) + 4
    svg.set("height", str(height))
    svg.set("viewBox", f"0 0 {WIDTH} {height}")
    ET.indent(svg)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(svg, "unicode") + "\n"


def _groups(pad_map: PadMap) -> list[tuple[str, str, list[Pad]]]:
    """(heading, colour, pads): each pile pad with its zones, then each seat's other pads."""
    groups: list[tuple[str, str, list[Pad]]] = []
    for pile in range(pad_map.piles):
        zones = sorted((p for p in pad_map.pads if p.pile == pile), key=lambda p: (p.seat, p.id))
        if zones:
            groups.append((f"Pile pad {pile}", "#555555", zones))
    for seat in range(pad_map.seats):
        pads = sorted(
            (p for p in pad_map.pads if p.seat == seat and p.pile is None),
            key=lambda p: (p.role, p.id),
        )
        if pads:
            groups.append((f"Seat {seat}", SEAT_COLOURS[seat % len(SEAT_COLOURS)], pads))
    return groups


def _box(
    svg: ET.Element, x: int, y: int, w: int, h: int, heading: str, colour: str, fill: str
) -> None:
    _el(svg, "rect", x=x, y=y, width=w, height=h, rx=8, fill=fill, stroke=colour, stroke_width=2)
    _el(svg, "text", heading, x=x + 10, y=y + 20, font_size=14, font_weight="bold", fill=colour)


def _symbol(parent: ET.Element, pad: Pad, x: int, y: int, colour: str) -> None:
    if pad.role == "stop":
        _el(parent, "circle", cx=x, cy=y, r=7, fill=colour)
    elif pad.role == "slap":
        _el(parent, "rect", x=x - 8, y=y - 6, width=16, height=12, rx=3, fill=colour)
    else:  # a pile pad's zone: a square with the zone's corner filled
        _el(
            parent,
            "rect",
            x=x - 7,
            y=y - 7,
            width=14,
            height=14,
            fill="none",
            stroke=colour,
            stroke_width=2,
        )
        dx, dy = ((-7, 0), (-7, -7), (0, -7), (0, 0))[pad.seat % 4]  # seats go round clockwise
        _el(parent, "rect", x=x + dx, y=y + dy, width=7, height=7, fill=colour)


def _pad_wire(parent: ET.Element, w: Wire, y1: int, pad_row: int) -> None:
    assert w.pad is not None
    x1, x2 = LEFT_X + LEFT_W, RIGHT_X
    y2 = pad_row + (4 if w.kind == "light" else 0)
    mid = (x2 - x1) // 2
    path = _el(
        parent,
        "path",
        None,
        d=f"M {x1} {y1} C {x1 + mid} {y1}, {x2 - mid} {y2}, {x2} {y2}",
        stroke=SEAT_COLOURS[w.pad.seat % len(SEAT_COLOURS)],
    )
    if w.kind == "light":
        path.set("stroke-dasharray", "6 4")
    _el(path, "title", f"{w.label} → {w.pad.id} ({w.kind})")


def _bus(
    parent: ET.Element,
    bus: list[Wire],
    pin_y: dict[tuple[str, str, int], int],
    x: int,
    name: str,
    attrs: dict[str, str],
) -> None:
    """A bus on the left: from the Pi's pin down to each board's input (and the Pi's)."""
    ends = [(w, pin_y[(w.controller, w.kind, w.gpio)]) for w in bus if w.gpio is not None]
    if len(ends) < 2:
        return
    ys = [y for _, y in ends]
    points = " ".join(f"M {LEFT_X} {y} H {x}" for y in ys)
    path = _el(
        parent,
        "path",
        None,
        d=f"{points} M {x} {min(ys)} V {max(ys)}",
        stroke="#111111",
        stroke_width=2.5,
        **attrs,
    )
    _el(path, "title", f"{name}: " + ", ".join(f"{w.controller} {w.label}" for w, _ in ends))
