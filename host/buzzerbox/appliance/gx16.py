"""The GX16 connectors, face by face (SVG): which pin is where, seen from the solder side.

A cable that carries a lamp's +5 V (a stop or slap pad's) has a GX16 panel socket on
the enclosure and a GX16 plug at each end, each soldered from behind. Seen from behind
(the solder side) a face's pin numbers run the other way round from its front (the
mating face), and a plug's front is the mirror of its socket's front: a picture of one
face copied onto another mirrors the cable (hardware/pads.md, "GX16 pin numbers").

Every pin's place comes from one table, `FRONT` (the panel socket's front, the key up);
the views that are mirrored of it are drawn mirrored (x → −x about the centre: turning
a part round to look at its other face keeps the key up). Each pin's signal comes from
the circuit (circuit.connector_pins), as the netlist's connector pins do.

`FRONT` is the usual GX16 insert, NOT one maker's drawing: the pins evenly round a
circle from the key, numbered clockwise on the socket's front (GX16-8: 1-7 round, 8 in
the middle). Inserts differ: the numbers moulded on the insert win, and the drawing
says how to check them. Made with xml.etree; the same map gives the same bytes.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from buzzerbox.appliance import parts
from buzzerbox.appliance.circuit import PadPins, connector_pins
from buzzerbox.appliance.diagram import FONT, SVG_NS, map_title
from buzzerbox.pads.padmap import PadMap


def _round(n: int, *, centre: bool) -> dict[int, tuple[float, float]]:
    """Pins 1..n (n in the middle if `centre`) evenly round a circle from the key,
    clockwise, as (x, y) on a unit circle, y down (SVG's), the key at the top."""
    ring = n - 1 if centre else n
    out: dict[int, tuple[float, float]] = {}
    for k in range(1, ring + 1):
        angle = math.radians((2 * k - 1) * 180 / ring)  # clockwise from the key
        out[k] = (round(math.sin(angle), 4), round(-math.cos(angle), 4))
    if centre:
        out[n] = (0.0, 0.0)
    return out


FRONT: dict[str, dict[int, tuple[float, float]]] = {
    "GX16-4": _round(4, centre=False),
    "GX16-8": _round(8, centre=True),
}
"""Each pin's place on the PANEL SOCKET'S FRONT (its mating face, seen from outside the
box), key up: (x, y) on a unit circle, y down. The one table every view is drawn from."""

VIEWS: tuple[tuple[str, str, bool], ...] = (
    ("socket-front", "panel socket: front, seen from outside", False),
    ("socket-solder", "panel socket: solder side, inside", True),
    ("plug-front", "cable plug: front (mating face)", True),
    ("plug-solder", "cable plug: solder side (cable end)", False),
)
"""The four faces: (id, caption, mirrored of `FRONT`). A face seen from behind is the
mirror of its front; a plug's front meets its socket's front face to face, so it is its
mirror; so the plug's solder side is drawn as the socket's front, and the socket's solder
side as the plug's front."""

Pins = dict[int, tuple[str, str]]
"""A connector's pins: number -> (kind: pad, GND, +5 V or lamp −; what it carries)."""
KIND_COLOURS = {"pad": "#0072b2", "GND": "#222222", "+5 V": "#c0392b", "lamp −": "#e69f00"}
VIEW_W, VIEW_R, PIN_R, HEAD = 210, 62, 13, 56
TABLE_X = 4 * VIEW_W + 30
WIDTH = TABLE_X + 360


def signals(pins: dict[str, PadPins], pads: dict[str, str]) -> Pins:
    """One connector's pins: number -> (kind, what), from its pads' PadPins (`pads`:
    pad id -> role)."""
    out: dict[int, tuple[str, str]] = {}
    for pad_id, pp in pins.items():
        role = pads[pad_id]
        out[pp.contact] = ("pad", f"{role} pad contact (to its 470 Ω)")
        out[pp.gnd] = ("GND", f"GND, the {role} pad's other side")
        if pp.lamp_plus is not None:
            out[pp.lamp_plus] = ("+5 V", f"{role} lamp + (+5 V via its fuse and 82 Ω)")
        if pp.lamp_minus is not None:
            out[pp.lamp_minus] = ("lamp −", f"{role} lamp − (to its AO3400A's drain)")
    return out


def connectors(pad_map: PadMap) -> list[tuple[str, list[str], Pins]]:
    """The GX16 connectors the map's cables use, one row per kind and pin order:
    (kind, its connectors' refs, its pins). The builds keep one pin order per kind."""
    pins = connector_pins(pad_map)
    roles = {p.id: p.role for p in pad_map.pads}
    rows: dict[tuple[str, tuple[tuple[int, tuple[str, str]], ...]], list[str]] = {}
    for cable in parts.cables(pad_map):
        ref, kind = pins[cable.pads[0].id].connector.split()
        if kind in FRONT:
            mine = signals({p.id: pins[p.id] for p in cable.pads}, roles)
            rows.setdefault((kind, tuple(sorted(mine.items()))), []).append(ref)
    return [(kind, refs, dict(pinout)) for (kind, pinout), refs in rows.items()]


def place(kind: str, pin: int, mirrored: bool) -> tuple[float, float]:
    """Where `pin` sits in a view of a `kind` connector, on a unit circle, key up."""
    x, y = FRONT[kind][pin]
    return (-x if mirrored else x), y


def mirror_pairs(kind: str) -> list[tuple[int, int]]:
    """The pins a plug soldered mirrored puts together (from `FRONT`): each pin meets the
    one at its mirrored place."""
    where = {xy: pin for pin, xy in FRONT[kind].items()}
    pairs = {tuple(sorted((pin, where[place(kind, pin, True)]))) for pin in FRONT[kind]}
    return sorted((a, b) for a, b in pairs if a != b)


def _el(parent: ET.Element, tag: str, text: str | None = None, /, **attrs: object) -> ET.Element:
    el = ET.SubElement(parent, tag, {k.replace("_", "-"): str(v) for k, v in attrs.items()})
    if text is not None:
        el.text = text
    return el


def _view(svg: ET.Element, kind: str, pins: Pins, x0: int, y0: int,
          view: tuple[str, str, bool]) -> None:  # fmt: skip
    name, caption, mirrored = view
    cx, cy = x0 + VIEW_W // 2, y0 + VIEW_R + 14
    g = _el(svg, "g", data_view=name, data_kind=kind, data_cx=cx, data_cy=cy)
    _el(g, "circle", cx=cx, cy=cy, r=VIEW_R, fill="#f4f4f4", stroke="#333333", stroke_width=2)
    _el(g, "rect", x=cx - 7, y=cy - VIEW_R - 8, width=14, height=12, fill="#333333")
    _el(g, "text", "key", x=cx + 12, y=cy - VIEW_R - 2, font_size=10, fill="#333333")
    for pin in sorted(FRONT[kind]):
        ux, uy = place(kind, pin, mirrored)
        px, py = round(cx + ux * (VIEW_R - 20), 1), round(cy + uy * (VIEW_R - 20), 1)
        what = pins.get(pin, ("nc", "not connected"))
        colour = KIND_COLOURS.get(what[0], "#ffffff")
        _el(g, "circle", cx=px, cy=py, r=PIN_R, fill=colour, stroke="#333333", data_pin=pin)
        ink = "#000000" if what[0] in ("lamp −", "nc") else "#ffffff"
        _el(g, "text", str(pin), x=px, y=py + 4.5, font_size=13, font_weight="bold",
            text_anchor="middle", fill=ink)  # fmt: skip
    turn = "anticlockwise" if mirrored else "clockwise"
    lines = [*caption.split(": ", 1), f"1 → 2 → 3 run {turn} here"]
    for i, line in enumerate(lines):
        _el(svg, "text", line, x=cx, y=cy + VIEW_R + 20 + 14 * i, font_size=11,
            text_anchor="middle", font_weight="bold" if i == 0 else "normal")  # fmt: skip


def draw(pad_map: PadMap, *, title: str | None = None) -> str:
    """The SVG document: one row per GX16 kind the map uses (an empty drawing, saying so,
    when it uses none)."""
    title = title or map_title(pad_map.name)
    kinds = connectors(pad_map)
    svg = ET.Element("svg", {"xmlns": SVG_NS, "width": str(WIDTH), "font-family": FONT})
    _el(svg, "title", f"buzzerbox GX16 pins: {title}")
    _el(svg, "rect", x=0, y=0, width=WIDTH, height="100%", fill="#ffffff")
    _el(svg, "text", f"GX16 connectors of {title}: which pin is where", x=20, y=30,
        font_size=18, font_weight="bold")  # fmt: skip
    _el(svg, "text", "Solder by the numbers moulded on the insert. First check your insert: "
        "find 1, 2 and 3 on it and compare the way they run with the view you hold.",
        x=20, y=50, font_size=12, fill="#444444")  # fmt: skip
    y = 70
    if not kinds:
        _el(svg, "text", "This build has no GX16 connector.", x=20, y=y + 20, font_size=13)
        y += 40
    for kind, refs, pins in kinds:
        _el(svg, "text", f"{kind}: {', '.join(refs)}", x=20, y=y + 18, font_size=15,
            font_weight="bold", data_kind=kind)  # fmt: skip
        top = y + HEAD
        for i, view in enumerate(VIEWS):
            _view(svg, kind, pins, 10 + i * VIEW_W, top, view)
        ty = top + 8
        _el(svg, "text", "pin · what it carries", x=TABLE_X, y=ty, font_size=12, font_weight="bold")
        for pin in sorted(FRONT[kind]):
            ty += 19
            what = pins.get(pin, ("nc", "not connected"))
            _el(svg, "rect", x=TABLE_X, y=ty - 11, width=14, height=14,
                fill=KIND_COLOURS.get(what[0], "#ffffff"), stroke="#333333")  # fmt: skip
            _el(svg, "text", f"{pin} · {what[1]}", x=TABLE_X + 20, y=ty + 1, font_size=12,
                data_pin=pin, data_kind=kind)  # fmt: skip
        pairs = ", ".join(f"{a} with {b}" for a, b in mirror_pairs(kind))
        ty += 24
        for line in ("A plug soldered from the wrong face's picture", f"is mirrored: {pairs}."):
            _el(svg, "text", line, x=TABLE_X, y=ty, font_size=11, fill="#444444")
            ty += 15
        y = max(ty, top + 2 * VIEW_R + 80) + 20
    notes = (
        "Not to scale. The places are the usual GX16 insert's (pins evenly round from the key, "
        "numbered clockwise on the socket's front), not one maker's drawing: if your insert's "
        "numbers",
        "run the other way in the same view, your insert is drawn the other way round, and "
        "its numbers still win. After each cable: buzzerbox doctor --lamps (hardware/pads.md).",
    )
    for line in notes:
        _el(svg, "text", line, x=20, y=y, font_size=11, fill="#444444")
        y += 15
    height = y + 6
    svg.set("height", str(height))
    svg.set("viewBox", f"0 0 {WIDTH} {height}")
    ET.indent(svg)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(svg, "unicode") + "\n"
