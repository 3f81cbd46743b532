"""The circuit a pad map implies as a netlist: every part, every pin, every net. PURE.

circuit.plan() says which parts there are; this wires them, pin by pin, the way a
maker solders them: the controllers (the Pi's 40-pin header, each Pico's 40 pins,
each pin typed by what the box does with it, the pins nothing uses marked not
connected), each pad's entry resistor, ESD line, pull-up and series resistor, each
ESD array's VCC, GND and 100 nF, each lamp's MOSFET (by its adapter's pads), gate
resistors, feed resistor and fuse, every connector pin of every cable, and at the
far end of each cable the pad itself (its switch, its lamp). The sync wire and the
test line are stars of 330 Ω from the Pi.

Pin types are the electrical-rules check's (erc.py, through SKiDL): an input must be
driven, power pins must sit on a powered net, a not-connected pin must stay so. The
ground is one net, GND (the boards' grounds meet the Pi's through USB), marked as
powered by a power flag, as KiCad does. kicad.py writes it as a KiCad schematic,
faults.py works out what every fault of a cable draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from buzzerbox.appliance import pinout
from buzzerbox.appliance.circuit import (
    ESD_GND_PIN,
    ESD_IO_PINS,
    ESD_VCC_PIN,
    FUSE_OHMS,
    MOSFET_PADS,
    OHMS,
    Part,
    Sheet,
    connector_pins,
    plan,
)
from buzzerbox.appliance.wiring import PI, Wire
from buzzerbox.pads.padmap import PadMap

PinType = Literal["input", "output", "passive", "pwrin", "pwrout", "nc"]
GND = "GND"


@dataclass(frozen=True, slots=True)
class PinDef:
    num: int
    name: str
    type: PinType


@dataclass(slots=True)
class NetPart:
    """A part of the netlist: `kind` is its symbol (``R``, ``TPD4E001DBV``, ``PI``...)."""

    ref: str
    value: str
    kind: str
    pins: dict[int, PinDef]
    of: str = ""
    ohms: tuple[float, float] | None = None
    """A resistor's or a fuse's resistance, least and most."""


@dataclass(slots=True)
class Netlist:
    parts: dict[str, NetPart] = field(default_factory=dict)
    nets: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    """Each net's name and the (ref, pin number) it joins, in the order wired."""

    def add(self, part: NetPart) -> NetPart:
        if part.ref in self.parts:
            raise ValueError(f"two parts are called {part.ref}")
        self.parts[part.ref] = part
        return part

    def connect(self, net: str, ref: str, pin: int) -> None:
        if pin not in self.parts[ref].pins:
            raise ValueError(f"{ref} has no pin {pin}")
        if (old := self.net_of(ref, pin)) is not None and old != net:
            raise ValueError(f"{ref} pin {pin} is on {old} already: not also on {net}")
        self.nets.setdefault(net, []).append((ref, pin))

    def net_of(self, ref: str, pin: int) -> str | None:
        return next((n for n, nodes in self.nets.items() if (ref, pin) in nodes), None)

    def move(self, net: str, *nodes: tuple[str, int]) -> None:
        """Put each (ref, pin) on `net`, off the one it was on (tests break a netlist
        on purpose with it: a wire cut, a wire to the wrong pin)."""
        for ref, pin in nodes:
            self.disconnect(ref, pin)
            self.connect(net, ref, pin)

    def disconnect(self, ref: str, pin: int) -> None:
        """Take a pin off its net (tests break a netlist on purpose with it)."""
        for nodes in self.nets.values():
            if (ref, pin) in nodes:
                nodes.remove((ref, pin))
        self.nets = {n: nodes for n, nodes in self.nets.items() if nodes}


def _two(part: Part, kind: str, ohms: tuple[float, float] | None) -> NetPart:
    pins = {1: PinDef(1, "1", "passive"), 2: PinDef(2, "2", "passive")}
    return NetPart(part.ref, part.value, kind, pins, part.of, ohms)


def _resistor(part: Part) -> NetPart:
    value = part.value.split(" 0.")[0]  # "82 Ω 0.5 W" -> "82 Ω"
    ohms = OHMS.get(part.value) or OHMS[value]
    return _two(part, "R", (ohms, ohms))


def _pi_pins(uses: dict[int, PinType]) -> dict[int, PinDef]:
    pins: dict[int, PinDef] = {}
    for n in range(1, 41):
        if n in pinout.PI_GPIO_PIN:
            name = f"GPIO{pinout.PI_GPIO_PIN[n]}"
        elif n in pinout.PI_GROUND_PINS:
            name = GND
        elif n in pinout.PI_3V3_PINS:
            name = "3V3"
        else:
            name = "5V"
        pins[n] = PinDef(n, name, uses.get(n, "nc"))
    return pins


PICO_POWER: dict[int, str] = {30: "RUN", 35: "ADC_VREF", 36: "3V3_OUT", 37: "3V3_EN",
                              39: "VSYS", 40: "VBUS"}  # fmt: skip


def _pico_pins(uses: dict[int, PinType]) -> dict[int, PinDef]:
    gp = {pin: g for g, pin in pinout.PICO_GP_PIN.items()}
    pins: dict[int, PinDef] = {}
    for n in range(1, 41):
        if n in gp:
            name = f"GP{gp[n]}"
        elif n in pinout.PICO_GROUND_PINS:
            name = GND
        else:
            name = PICO_POWER[n]
        pins[n] = PinDef(n, name, uses.get(n, "nc"))
    return pins


def controller_refs(pad_map: PadMap, sheet: Sheet) -> dict[str, str]:
    """``A1`` the Pi (when anything is wired to it), then ``A2``... each board."""
    names = [w.controller for w in _all_wires(sheet)]
    order = ([PI] if PI in names else []) + [b.name for b in pad_map.boards]
    return {c: f"A{i}" for i, c in enumerate(order, start=1)}


def _all_wires(sheet: Sheet) -> list[Wire]:
    out = [s.wire for s in sheet.inputs] + [lp.wire for lp in sheet.lamps]
    out += [st.wire for st in sheet.syncs + sheet.tests]
    out += [w for w in (sheet.sync_from, sheet.test_from) if w is not None]
    return out


def rail(kind: str, controller: str) -> str:
    """The name of a controller's 3V3 or 5V net (``3V3_PI``, ``5V_pico-a``)."""
    return f"{kind}_{'PI' if controller == PI else controller}"


def build(pad_map: PadMap, *, external_pullups: bool = True) -> Netlist:
    """The netlist of `pad_map`'s circuit."""
    sheet = plan(pad_map, external_pullups=external_pullups)
    net = Netlist()
    refs = controller_refs(pad_map, sheet)
    uses: dict[str, dict[int, PinType]] = {c: {} for c in refs}

    def use(w: Wire, t: PinType) -> None:
        assert w.pin is not None, f"{w.label}: no pin to wire"
        uses[w.controller][w.pin] = t

    ground_pin = {c: (pinout.PI_GROUND_PINS[0] if c == PI else 38) for c in refs}
    five = {c: (pinout.PI_5V_PINS[0] if c == PI else pinout.PICO_VBUS_PIN) for c in refs}
    three = {c: (pinout.PI_3V3_PINS[0] if c == PI else pinout.PICO_3V3_PIN) for c in refs}
    for s in sheet.inputs:
        use(s.wire, "input")
    for lp in sheet.lamps:
        use(lp.wire, "output")
    for w in (sheet.sync_from, sheet.test_from):
        if w is not None:
            use(w, "output")
    for st in sheet.syncs + sheet.tests:
        use(st.wire, "input")
    needs_3v3 = {s.wire.controller for s in sheet.inputs}
    needs_3v3 |= {st.wire.controller for st in sheet.syncs + sheet.tests if st.pullup}
    for c in refs:
        uses[c][ground_pin[c]] = "passive"
        if c in needs_3v3:
            uses[c][three[c]] = "pwrout"
        if any(lp.wire.controller == c for lp in sheet.lamps):
            uses[c][five[c]] = "pwrout"
    if PI in refs and (sheet.sync_from or sheet.test_from):
        uses[PI][25] = "passive"  # the splitter's GND, beside GPIO7 (sync-wire.md)
    for c, ref in refs.items():
        if c == PI:
            net.add(NetPart(ref, "Raspberry Pi 40-pin header", "PI", _pi_pins(uses[c]), c))
        else:
            name = f"Raspberry Pi Pico ({c})"
            net.add(NetPart(ref, name, "PICO", _pico_pins(uses[c]), c))
        for pin, t in uses[c].items():
            if net.parts[ref].pins[pin].name == GND and t != "nc":
                net.connect(GND, ref, pin)
        if c in needs_3v3:
            net.connect(rail("3V3", c), ref, three[c])
        if five[c] in uses[c]:
            net.connect(rail("5V", c), ref, five[c])
    net.add(NetPart("#FLG1", "PWR_FLAG", "PWR_FLAG", {1: PinDef(1, "pwr", "pwrout")}))
    net.connect(GND, "#FLG1", 1)

    def pin_net(w: Wire) -> str:
        assert w.pin is not None
        return f"{refs[w.controller]}.{w.pin}"

    def cable_ref(connector: str) -> str:
        return connector.split()[0]

    # connectors: every pin, the ones no pad uses not connected
    pins_of = connector_pins(pad_map)
    used: dict[str, set[int]] = {}
    for pp in pins_of.values():
        used.setdefault(pp.connector, set()).update(
            p for p in (pp.contact, pp.gnd, pp.lamp_plus, pp.lamp_minus) if p is not None
        )
    for connector, have in used.items():
        size = 8 if "RJ45" in connector or connector.endswith("-8") else 4
        pins = {n: PinDef(n, str(n), "passive" if n in have else "nc") for n in range(1, size + 1)}
        net.add(NetPart(cable_ref(connector), connector.split()[1], "CONN", pins))
    # the ESD arrays and their 100 nF
    arrays: dict[str, list[int]] = {}
    for s in sheet.inputs:
        arrays.setdefault(s.esd.ref, []).append(s.esd_pin)
    for s in sheet.inputs:
        ref = s.esd.ref
        if ref in net.parts:
            continue
        pins = {n: PinDef(n, f"IO{i + 1}", "passive" if n in arrays[ref] else "nc")
                for i, n in enumerate(ESD_IO_PINS)}  # fmt: skip
        pins[ESD_GND_PIN] = PinDef(ESD_GND_PIN, GND, "pwrin")
        pins[ESD_VCC_PIN] = PinDef(ESD_VCC_PIN, "VCC", "pwrin")
        net.add(NetPart(ref, s.esd.value, "TPD4E001DBV", pins, s.wire.controller))
        net.connect(GND, ref, ESD_GND_PIN)
        net.connect(rail("3V3", s.wire.controller), ref, ESD_VCC_PIN)
        cap = sheet.esd_caps[ref]
        net.add(_two(cap, "C", None))
        net.connect(rail("3V3", s.wire.controller), cap.ref, 1)
        net.connect(GND, cap.ref, 2)
    # each input, from the pad to the pin
    for n, s in enumerate(sheet.inputs, start=1):
        pad = s.wire.pad
        assert pad is not None
        jack = cable_ref(s.pins.connector)
        contact, node = f"{pad.id}.contact", f"{pad.id}.node"
        switch = net.add(NetPart(f"SW{n}", pad.id, "PAD", {
            1: PinDef(1, "contact", "passive"), 2: PinDef(2, GND, "pwrin")}, pad.id))  # fmt: skip
        net.connect(contact, switch.ref, 1)
        net.connect(contact, jack, s.pins.contact)
        net.connect(f"{jack}.{s.pins.gnd}", switch.ref, 2)
        net.connect(f"{jack}.{s.pins.gnd}", jack, s.pins.gnd)
        if net.net_of(jack, s.pins.gnd) != GND:
            _merge(net, f"{jack}.{s.pins.gnd}", GND)
        for part, a, b in ((s.entry, contact, node), (s.series, node, pin_net(s.wire))):
            net.add(_resistor(part))
            net.connect(a, part.ref, 1)
            net.connect(b, part.ref, 2)
        net.connect(node, s.esd.ref, s.esd_pin)
        if s.pullup is not None:
            net.add(_resistor(s.pullup))
            net.connect(node, s.pullup.ref, 1)
            net.connect(rail("3V3", s.wire.controller), s.pullup.ref, 2)
        net.connect(pin_net(s.wire), refs[s.wire.controller], s.wire.pin or 0)
    # each lamp, from the pin to +5 V
    for n, lp in enumerate(sheet.lamps, start=1):
        pad = lp.wire.pad
        assert pad is not None and lp.pins.lamp_plus and lp.pins.lamp_minus
        jack, c = cable_ref(lp.pins.connector), lp.wire.controller
        gate, minus, plus, fed = (f"{pad.id}.{x}" for x in ("gate", "lamp-", "lamp+", "fuse"))
        drive = pin_net(lp.wire)
        net.connect(drive, refs[c], lp.wire.pin or 0)
        for part, a, b in ((lp.gate_r, drive, gate), (lp.pulldown, gate, GND)):
            net.add(_resistor(part))
            net.connect(a, part.ref, 1)
            net.connect(b, part.ref, 2)
        q = {p: PinDef(p, "NC", "nc") for p in range(1, 7)}
        for name, p in MOSFET_PADS.items():
            q[p] = PinDef(p, name, "passive")
        net.add(NetPart(lp.mosfet.ref, lp.mosfet.value, "AO3400A_SOT23-6", q, pad.id))
        net.connect(gate, lp.mosfet.ref, MOSFET_PADS["G"])
        net.connect(GND, lp.mosfet.ref, MOSFET_PADS["S"])
        net.connect(minus, lp.mosfet.ref, MOSFET_PADS["D"])
        net.connect(minus, jack, lp.pins.lamp_minus)
        net.connect(plus, jack, lp.pins.lamp_plus)
        led = net.add(NetPart(f"D{n}", f"lamp of {pad.id}", "LAMP", {
            1: PinDef(1, "A", "passive"), 2: PinDef(2, "K", "passive")}, pad.id))  # fmt: skip
        net.connect(plus, led.ref, 1)
        net.connect(minus, led.ref, 2)
        net.add(_resistor(lp.feed))
        net.connect(plus, lp.feed.ref, 1)
        net.connect(fed, lp.feed.ref, 2)
        net.add(_two(lp.fuse, "F", FUSE_OHMS))
        net.connect(fed, lp.fuse.ref, 1)
        net.connect(rail("5V", c), lp.fuse.ref, 2)
    # the sync wire and the test line: stars from the Pi
    for name, src, stages in (("SYNC", sheet.sync_from, sheet.syncs),
                              ("TEST", sheet.test_from, sheet.tests)):  # fmt: skip
        if src is None:
            continue
        net.connect(name, refs[PI], src.pin or 0)
        for st in stages:
            branch = f"{name}.{st.wire.controller}"
            net.add(_resistor(st.resistor))
            net.connect(name, st.resistor.ref, 1)
            net.connect(branch, st.resistor.ref, 2)
            net.connect(branch, refs[st.wire.controller], st.wire.pin or 0)
            if st.pullup is not None:
                net.add(_resistor(st.pullup))
                net.connect(branch, st.pullup.ref, 1)
                net.connect(rail("3V3", st.wire.controller), st.pullup.ref, 2)
    return net


def _merge(net: Netlist, name: str, into: str) -> None:
    nodes = net.nets.pop(name)
    net.nets.setdefault(into, []).extend(n for n in nodes if n not in net.nets[into])


def text(net: Netlist) -> str:
    """The netlist as plain text, one net a line: ``NET: REF.PIN REF.PIN ...``."""
    lines = [f"# parts: {len(net.parts)}, nets: {len(net.nets)}"]
    for ref in sorted(net.parts, key=_ref_key):
        p = net.parts[ref]
        lines.append(f"part {ref} {p.kind} {p.value!r}")
    for name in sorted(net.nets):
        nodes = " ".join(f"{r}.{pin}" for r, pin in sorted(net.nets[name], key=_node_key))
        lines.append(f"net {name}: {nodes}")
    return "\n".join(lines) + "\n"


def _ref_key(ref: str) -> tuple[str, int]:
    head = ref.rstrip("0123456789")
    tail = ref[len(head) :]
    return (head, int(tail) if tail else 0)


def _node_key(node: tuple[str, int]) -> tuple[str, int, int]:
    return (*_ref_key(node[0]), node[1])
