"""A build's netlist (netlist.py) as a KiCad 9 schematic (.kicad_sch) a maker opens.

The same netlist SKiDL's ERC checks (erc.py) goes to schematizer, the schematic
writer SKiDL itself uses, as its generic netlist (schema "skidl-generic-netlist"
v1): each part kind gets a symbol drawn here and embedded in the file's
lib_symbols (so KiCad opens it with no library), each pin keeps its type (input,
output, passive, power in/out, not connected). schematizer's labels mode places
the parts on a grid and ends each connected pin in a short wire and the net's
label (GND as KiCad's power symbol), each pin nothing uses in a no-connect flag:
KiCad joins the pins by their labels, so the schematic's connectivity is the
netlist's by construction, and tests/hardware/test_kicad.py holds it to that with
KiCad's own kicad-cli (its netlist export and its ERC).

Parts are placed in the netlist's order (the controllers, the connectors, the ESD
arrays, then each pad's chain), so a pad's resistors sit together.

schematizer is a dev extra, as SKiDL is: the box never imports this module.
"""

from __future__ import annotations

import math
import re
import tempfile
from pathlib import Path
from typing import Any

from buzzerbox.appliance.netlist import GND, Netlist, NetPart, PinDef

_TYPES = {
    "input": "input",
    "output": "output",
    "passive": "passive",
    "pwrin": "power_in",
    "pwrout": "power_out",
    "nc": "no_connect",
}
PITCH = 2.54
PIN_LENGTH = 2.54
FONT = ["effects", ["font", ["size", 1.27, 1.27]]]
NC_NET = "__nc__"
MADE_FROM = "made from pads.toml by buzzerbox hardware kicad; do not edit"
CHAR = 1.35
"""The width of a character of KiCad's 1.27 mm font (mm): its capitals and digits
with a little room (the boxes hold their pin names and values with it)."""
FIELD_LEFT = re.compile(
    r'(\(property "(?:Reference|Value)" "[^"\n]*"\n\s+\(at [^\n]*\)\n\s+\(effects\n'
    r"\s+\(font\n\s+\(size 1\.27 1\.27\)\))\n\s+\(justify left\)\)\)"
)


def _pin(p: PinDef, x: float, y: float, angle: int) -> list[Any]:
    return ["pin", _TYPES[p.type], "line", ["at", x, y, angle], ["length", PIN_LENGTH],
            ["name", p.name or "~", FONT], ["number", str(p.num), FONT]]  # fmt: skip


def _up(mm: float) -> float:
    """`mm` rounded up to the 2.54 mm grid."""
    return math.ceil(mm / PITCH - 1e-9) * PITCH


def _symbol(part: NetPart, values: list[str], down: frozenset[int]) -> dict[str, Any]:
    """The symbol of `part`'s kind: a box, its pins half on the left, half on the right
    (the pins in `down`, those on GND, at the bottom, so that KiCad's ground
    symbol stands upright below them), wide and tall enough to hold its pins' names
    and its reference and widest value clear of each other; with the pins' geometry
    as schematizer reads it."""
    pins = sorted((p for p in part.pins.values() if p.num not in down), key=lambda p: p.num)
    bottom = sorted((p for p in part.pins.values() if p.num in down), key=lambda p: p.num)
    left = pins[: (len(pins) + 1) // 2]
    right = pins[len(left) :]
    text = max(len(v) for v in [*values, part.ref + "00"]) * CHAR
    names = max((len(p.name) for p in left + right), default=0) * CHAR
    # the Reference and the Value sit centred 2.54 mm above and below the centre
    # (schematic() centres them): the box holds them clear of the side pins' names, and
    # the bottom pins (their names upright) left of the Value, 5.08 mm apart (their
    # ground symbols' names side by side), clear of the left pins' names
    first = _up(text / 2 + 1.27)
    half_w = _up(max(names + text / 2 + 1.91, first + (len(bottom) - 1) * 2 * PITCH + names + 1.27))
    rows = max(len(left), len(right), 1)
    top = (rows - 1) * PITCH / 2
    half_h = max(_up(top + PITCH), 1.5 * PITCH)
    cmds: list[Any] = [
        ["rectangle", ["start", -half_w, half_h], ["end", half_w, -half_h],
         ["stroke", ["width", 0.254], ["type", "default"]], ["fill", ["type", "background"]]],
    ]  # fmt: skip
    geometry = []
    placed = [(p, -(half_w + PIN_LENGTH), round(top - i * PITCH, 4), 0, "R")
              for i, p in enumerate(left)]  # fmt: skip
    placed += [(p, half_w + PIN_LENGTH, round(top - i * PITCH, 4), 180, "L")
               for i, p in enumerate(right)]  # fmt: skip
    placed += [(p, -(first + (len(bottom) - 1 - i) * 2 * PITCH), -(half_h + PIN_LENGTH), 90, "U")
               for i, p in enumerate(bottom)]  # fmt: skip
    for p, x, y, angle, orient in placed:
        cmds.append(_pin(p, x, y, angle))
        geometry.append({"num": str(p.num), "name": p.name, "x": x, "y": y,
                         "orient": orient, "rotation": angle, "length": PIN_LENGTH,
                         "func": _TYPES[p.type]})  # fmt: skip
    return {
        "ref_prefix": part.ref.rstrip("0123456789"),
        "name": part.kind,
        "lib": "buzzerbox",
        "description": "",
        "datasheet": "",
        "draw_cmds": {"1": cmds},
        "units": {"1": {"pins": geometry}},
    }


def generic_netlist(net: Netlist, *, title: str) -> dict[str, Any]:
    """`net` as schematizer's generic netlist document."""
    net_of = {node: name for name, nodes in net.nets.items() for node in nodes}
    # one symbol per kind, pin set and pins on GND (a resistor to GND is drawn with its
    # pin 2 down: another symbol of the same kind)
    key_of: dict[str, tuple[Any, ...]] = {}
    for ref, part in net.parts.items():
        sig = tuple(sorted((p.num, p.name, p.type) for p in part.pins.values()))
        down = frozenset(p for p in part.pins if net_of.get((ref, p)) == GND)
        key_of[ref] = (part.kind, sig, down)
    names: dict[tuple[Any, ...], str] = {}
    for ref in net.parts:
        key = key_of[ref]
        if key not in names:
            taken = sum(1 for k in names if k[0] == key[0])
            names[key] = key[0] if taken == 0 else f"{key[0]}_{taken + 1}"
    values: dict[str, list[str]] = {}
    for ref, part in net.parts.items():
        values.setdefault(names[key_of[ref]], []).append(part.value)
    symbols: dict[str, Any] = {}
    lib_of: dict[str, str] = {}
    for ref, part in net.parts.items():
        name = names[key_of[ref]]
        if name not in symbols:
            symbols[name] = _symbol(part, values[name], key_of[ref][2])
        lib_of[ref] = f"buzzerbox:{name}"
    components = []
    nc: list[dict[str, str]] = []
    for ref in net.parts:
        part = net.parts[ref]
        pins = []
        for p in part.pins.values():
            on = net_of.get((ref, p.num))
            if on is None and p.type == "nc":
                on = NC_NET
                nc.append({"ref": ref, "pin": str(p.num), "pintype": _TYPES[p.type]})
            pins.append({"num": str(p.num), "unit": 1, "net": on})
        components.append({
            "ref": ref, "lib_id": lib_of[ref], "value": part.value, "footprint": "",
            "hiertuple": [""], "symtx": "", "orientation_locked": False, "pins": pins,
            "fields": {},
        })  # fmt: skip
    nets = []
    for code, name in enumerate(sorted(net.nets), start=1):
        nodes = [{"ref": r, "pin": str(p), "pintype": _TYPES[net.parts[r].pins[p].type]}
                 for r, p in net.nets[name]]  # fmt: skip
        nets.append({"name": name, "code": code, "stub": False, "stub_explicit": False,
                     "netio": "", "implicit": False, "nodes": nodes, "attrs": {}})  # fmt: skip
    if nc:
        nets.append({"name": NC_NET, "code": len(nets) + 1, "stub": False,
                     "stub_explicit": False, "netio": "", "implicit": False, "nodes": nc,
                     "attrs": {}, "nc": True})  # fmt: skip
    return {
        "format": "skidl-generic-netlist",
        "version": 1,
        "title": title,
        "top_name": "schematic",
        "sheets": [[""]],
        "symbols": {f"buzzerbox:{k}": dict(v, name=k) for k, v in symbols.items()},
        "components": components,
        "nets": nets,
        "netclasses": {},
    }


def schematic(net: Netlist, *, title: str) -> str:
    """The .kicad_sch text of `net`, the same bytes for the same netlist on any day.

    Four edits to what schematizer writes, each for the maker: the title block's date
    (the day it was made, which would change a committed file with nothing in it
    changed) goes; its comment says what the file is made from, not "Generated with
    SKiDL"; the pin names sit inside the boxes (pin_names offset 0.508) rather than over
    the pins' lines, where the no-connect flags cross them out; each part's Reference
    and Value are centred on it, not written from its centre rightwards (boxes half as
    wide)."""
    from schematizer import render

    doc = generic_netlist(net, title=title)
    with tempfile.TemporaryDirectory(prefix="buzzerbox-kicad-") as tmp:
        render(doc, tool="kicad9", filepath=tmp, top_name="schematic", title=title,
               mode="labels")  # fmt: skip
        text = (Path(tmp) / "schematic.kicad_sch").read_text(encoding="utf-8")
    text, dated = re.subn(r'\n *\(date "[0-9-]*"\)', "", text, count=1)
    text, said = re.subn(
        r'\(comment 1 "Generated with SKiDL"\)', f'(comment 1 "{MADE_FROM}")', text, count=1
    )
    text, offsets = re.subn(r"\(pin_names\s+\(offset 0\)\)", "(pin_names (offset 0.508))", text)
    text, centred = FIELD_LEFT.subn(r"\1))", text)
    if not (dated and said and offsets and centred):
        raise RuntimeError("schematizer's output changed: the title block or pin_names not found")
    return text
