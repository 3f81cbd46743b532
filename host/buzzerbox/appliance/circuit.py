"""The circuit a pad map implies, part by part: what sits between each pin and its pad.

Per pad input, from the cable in (hardware/pads.md, "At the controller"): its
connector pin (RJ45 for a pile cable, GX16 for a cable with +5 V, the pin numbers
of the build READMEs), a 470 Ω **entry resistor**, then at the protected node a line
of an ESD array (TPD4E001DBV, its VCC on 3V3 with 100 nF) and the 4.7 kΩ pull-up to
3V3, then the 1 kΩ **series resistor** to the pin. Per lamp: its AO3400A on a SOT-23-6
adapter (G, S, D on the adapter's pads 1, 3, 5), the 100 Ω gate resistor and the
100 kΩ pull-down, and its +5 V feed through an MF-R010 fuse and an 82 Ω 0.5 W **feed
resistor**, so that no fault of a cable draws more than 5 V / 84.5 Ω ≈ 59 mA
(hardware/pads.md, "Every fault a cable can have"). The sync wire and the self-test
line: a star, one 330 Ω per branch at the Pi, a 4.7 kΩ pull-up at each board input.

`plan()` is PURE: the parts and what each belongs to, numbered in the pad map's
order (Q1 is the first lit pad's driver, as in the build READMEs' generated tables).
schematic.py draws it, netlist.py wires it, parts.py counts the same parts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from buzzerbox.appliance import parts, wiring
from buzzerbox.appliance.wiring import PI, Wire
from buzzerbox.pads.padmap import PadMap

ESD_PART = "TPD4E001DBV"
ESD_IO_PINS = (1, 3, 4, 6)
"""The TPD4E001DBV's IO1-IO4 pins (SOT-23-6; GND = 2, VCC = 5)."""
ESD_GND_PIN, ESD_VCC_PIN = 2, 5
MOSFET = "AO3400A"
MOSFET_PADS = {"G": 1, "S": 3, "D": 5}
"""A SOT-23-3 MOSFET on a SOT-23-6 adapter lands on the adapter's pads 1, 3 and 5
(its pins 1 G, 2 S, 3 D); pads 2, 4 and 6 stay empty."""
FUSE = "MF-R010"
ENTRY, PULLUP, SERIES, LINE_R = "470 Ω", "4.7 kΩ", "1 kΩ", "330 Ω"
GATE_R, GATE_PULLDOWN, FEED_R, ESD_CAP = "100 Ω", "100 kΩ", "82 Ω 0.5 W", "100 nF"
OHMS = {ENTRY: 470.0, PULLUP: 4700.0, SERIES: 1000.0, LINE_R: 330.0, GATE_R: 100.0,
        GATE_PULLDOWN: 100e3, FEED_R: 82.0}  # fmt: skip
FUSE_OHMS = (2.5, 4.5)
"""The MF-R010's resistance before a trip, least and most (Bourns' figures as pads.md
quotes them)."""
RJ45_PAIRS = ((1, 2), (3, 6), (5, 4), (7, 8))
"""A pile cable's pins per seat zone: (contact, GND), as build 2's README."""


@dataclass(frozen=True, slots=True)
class Part:
    """One part: its reference, value, role (the parts.csv item) and what it belongs
    to (a pad id, a board)."""

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

    @property
    def ref(self) -> str:
        return self.connector.split()[0]


@dataclass(frozen=True, slots=True)
class InputStage:
    wire: Wire
    pins: PadPins
    entry: Part
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
    feed: Part
    fuse: Part


@dataclass(frozen=True, slots=True)
class LineStage:
    """One branch of the sync wire or the self-test line: from the Pi's output through
    `resistor` (at the Pi) to `wire`, an input; `pullup` at a board's input."""

    wire: Wire
    resistor: Part
    pullup: Part | None


@dataclass(slots=True)
class Sheet:
    inputs: list[InputStage] = field(default_factory=list)
    lamps: list[LampStage] = field(default_factory=list)
    syncs: list[LineStage] = field(default_factory=list)
    sync_from: Wire | None = None
    tests: list[LineStage] = field(default_factory=list)
    test_from: Wire | None = None
    esd_caps: dict[str, Part] = field(default_factory=dict)
    """The 100 nF beside each ESD array, by the array's ref."""
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
    """The circuit's stages and parts for `pad_map` (PURE)."""
    sheet = Sheet(pull=pad_map.gpio.pull)
    refs = _Refs(sheet)
    pins = connector_pins(pad_map)
    all_wires = wiring.wires(pad_map)
    esd_used: dict[str, tuple[Part, int]] = {}
    by_pad = {w.pad.id: w for w in all_wires if w.kind == "input" and w.pad is not None}
    for pad in pad_map.pads:
        w = by_pad[pad.id]
        esd, line = esd_used.get(w.controller, (None, parts.ESD_LINES))
        if esd is None or line == parts.ESD_LINES:
            esd, line = refs.new("U", ESD_PART, "esd", w.controller), 0
            sheet.esd_caps[esd.ref] = refs.new("C", ESD_CAP, "esd-cap", esd.ref)
        esd_used[w.controller] = (esd, line + 1)
        entry = refs.new("R", ENTRY, "entry", pad.id)
        pullup = refs.new("R", PULLUP, "pullup", pad.id) if external_pullups else None
        series = refs.new("R", SERIES, "series", pad.id)
        stage = InputStage(w, pins[pad.id], entry, esd, ESD_IO_PINS[line], pullup, series)
        sheet.inputs.append(stage)
    lights = {w.pad.id: w for w in all_wires if w.kind == "light" and w.pad is not None}
    for pad in pad_map.pads:
        lw = lights.get(pad.id)
        if lw is None:
            continue
        sheet.lamps.append(
            LampStage(
                lw,
                pins[pad.id],
                refs.new("R", GATE_R, "gate-r", pad.id),
                refs.new("R", GATE_PULLDOWN, "gate-pulldown", pad.id),
                refs.new("Q", MOSFET, "mosfet", pad.id),
                refs.new("R", FEED_R, "feed-r", pad.id),
                refs.new("F", FUSE, "fuse", pad.id),
            )
        )
    for kind, role, stages in (("sync", "sync-r", sheet.syncs), ("test", "test-r", sheet.tests)):
        for w in all_wires:
            if w.kind != kind:
                continue
            if w.controller == PI and w.is_out:
                if kind == "sync":
                    sheet.sync_from = w
                else:
                    sheet.test_from = w
                continue
            r = refs.new("R", LINE_R, role, w.controller)
            up = None
            if w.controller != PI and external_pullups:
                up = refs.new("R", PULLUP, "pullup", w.controller)
            stages.append(LineStage(w, r, up))
    return sheet


def lamp_table(pad_map: PadMap) -> str:
    """The lamps' drivers as the schematic and the netlist number them (Markdown), or
    nothing when the map has no lamp."""
    sheet = plan(pad_map)
    if not sheet.lamps:
        return ""
    rows = [
        "| lamp | driven from | MOSFET (adapter pads G 1, S 3, D 5) | gate | feed | fuse "
        "| cable pins (+ / −) |",
        "|---|---|---|---|---|---|---|",
    ]
    for lp in sheet.lamps:
        pad = lp.wire.pad
        assert pad is not None
        rows.append(
            f"| `{pad.id}` | {wiring.where(lp.wire)} | {lp.mosfet.ref} {MOSFET} | "
            f"{lp.gate_r.ref} {GATE_R}, {lp.pulldown.ref} {GATE_PULLDOWN} | "
            f"{lp.feed.ref} {FEED_R} | {lp.fuse.ref} {FUSE} | "
            f"{lp.pins.connector} {lp.pins.lamp_plus} / {lp.pins.lamp_minus} |"
        )
    return "\n".join(rows) + "\n"
