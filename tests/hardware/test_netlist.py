"""Each build's circuit as a netlist, checked by SKiDL's electrical-rules check.

The committed builds pass with no warning; a wrong pin, a missing ground, an
unconnected input, each made on purpose, fail it in SKiDL's own words. The
schematic draws every part of the netlist, and every single fault of a cable stays
within what the docs promise (faults.py: arithmetic from the parts' values).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from buzzerbox.appliance import circuit, erc, faults, netlist, wiring
from buzzerbox.appliance.netlist import GND, Netlist
from buzzerbox.cli import main
from buzzerbox.pads.padmap import PadMap, load_pad_map, parse_pad_map

ROOT = Path(__file__).resolve().parents[2]
BUILDS = sorted(p.parent for p in (ROOT / "hardware").glob("builds/*/pads.toml"))
TWINIT = ROOT / "hardware/builds/twinit-gpio/pads.toml"


def with_test_line(build: str = "twist-picos") -> PadMap:
    text = (ROOT / f"hardware/builds/{build}/pads.toml").read_text(encoding="utf-8")
    line = (
        '[gpio]\npull = "up"\n\n[test_line]\ngpio = 16\ngpio_in = 20\n'
        "boards = { pico-a = 22, pico-b = 22 }\n\n"
    )
    return parse_pad_map(text.replace("[[board]]", line + "[[board]]", 1), name="t.toml")


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_every_build_passes_the_erc(build: Path) -> None:
    assert erc.run(netlist.build(load_pad_map(build / "pads.toml"))) == []


def test_the_test_line_passes_the_erc_too() -> None:
    net = netlist.build(with_test_line())
    assert erc.run(net) == []
    assert {n for n in net.nets if n.startswith("TEST")} == {"TEST", "TEST.pi", "TEST.pico-a",
                                                             "TEST.pico-b"}  # fmt: skip


def a_pad_chain(net: Netlist, pad_id: str) -> tuple[str, str, str]:
    """The contact, node and pin nets of a pad, checked link by link."""
    contact, node = f"{pad_id}.contact", f"{pad_id}.node"
    kinds = {net.parts[r].kind for r, _ in net.nets[node]}
    assert kinds == {"R", "TPD4E001DBV"}, kinds
    values = sorted(net.parts[r].value for r, _ in net.nets[node])
    assert values == ["1 kΩ", "4.7 kΩ", "470 Ω", "TPD4E001DBV"]
    pin = next(net.net_of(r, 2) for r, _ in net.nets[node] if net.parts[r].value == circuit.SERIES)
    assert pin is not None
    return contact, node, pin


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_each_pad_reaches_its_own_pin_through_its_parts(build: Path) -> None:
    pad_map = load_pad_map(build / "pads.toml")
    net = netlist.build(pad_map)
    refs = netlist.controller_refs(pad_map, circuit.plan(pad_map))
    for w in wiring.wires(pad_map):
        if w.kind != "input" or w.pad is None:
            continue
        _, _, pin = a_pad_chain(net, w.pad.id)
        ctl = refs[w.controller]
        assert (ctl, w.pin) in net.nets[pin]
        name = net.parts[ctl].pins[w.pin or 0].name
        assert name == ("GPIO" if w.controller == wiring.PI else "GP") + str(w.gpio)


def test_an_unconnected_input_fails_the_erc() -> None:
    net = netlist.build(load_pad_map(TWINIT))
    net.disconnect("A1", 7)  # s0-slap's GPIO4: its 1 kΩ leads nowhere
    found = "\n".join(erc.run(net))
    assert "Unconnected pin: INPUT pin 7/GPIO4 of PI/A1" in found


def test_a_missing_ground_fails_the_erc() -> None:
    net = netlist.build(load_pad_map(TWINIT))
    # the wire from the seat connector's GND pin to the board's GND is left out
    net.move("J1.2", ("J1", 2), ("SW1", 2))
    found = "\n".join(erc.run(net))
    assert "Insufficient drive current on net J1.2 for pin POWER-IN pin 2/GND of PAD/SW1" in found
    net = netlist.build(load_pad_map(TWINIT))
    net.disconnect("U1", 2)  # an ESD array's GND pin
    assert "Unconnected pin: POWER-IN pin 2/GND of TPD4E001DBV/U1" in "\n".join(erc.run(net))


def test_a_wrong_pin_fails_the_erc() -> None:
    net = netlist.build(load_pad_map(TWINIT))
    wire = net.net_of("A1", 7)
    assert wire is not None
    net.move(wire, ("A1", 8))  # GPIO4's wire on pin 8 (GPIO14) too, beside it
    net.disconnect("A1", 7)
    found = "\n".join(erc.run(net))
    assert "NO-CONNECT pin 8/GPIO14 of PI/A1 should not be connected" in found
    assert "Unconnected pin: INPUT pin 7/GPIO4" in found
    net = netlist.build(load_pad_map(TWINIT))
    lamp = net.net_of("A1", 16)  # s0-slap's light, GPIO23
    assert lamp is not None
    net.disconnect("A1", 16)
    net.move(lamp, ("A1", 18))  # s0-slap's gate wire onto s0-stop's light pin, GPIO24
    found = "\n".join(erc.run(net))
    assert "Unconnected pin: OUTPUT pin 16/GPIO23 of PI/A1" in found
    assert "Only one pin (PASSIVE pin 1/1 of R/R28) attached to net A1.18" in found


def test_every_esd_array_has_its_vcc_gnd_and_100_nf() -> None:
    net = netlist.build(load_pad_map(ROOT / "hardware/builds/twist-picos/pads.toml"))
    arrays = [r for r, p in net.parts.items() if p.kind == "TPD4E001DBV"]
    assert len(arrays) == 10
    for ref in arrays:
        vcc = net.net_of(ref, circuit.ESD_VCC_PIN)
        assert vcc is not None and vcc.startswith("3V3_pico-")
        assert net.net_of(ref, circuit.ESD_GND_PIN) == GND
        caps = [r for r, _ in net.nets[vcc] if net.parts[r].kind == "C"]
        assert any(net.net_of(c, 2) == GND for c in caps)


def test_the_mosfet_is_wired_by_its_adapter_pads() -> None:
    net = netlist.build(load_pad_map(TWINIT))
    q1 = net.parts["Q1"]
    assert q1.of == "s0-slap"  # Q1 is the first lit pad's, as the README's table
    assert {p.num: p.name for p in q1.pins.values() if p.type != "nc"} == {1: "G", 3: "S", 5: "D"}
    assert net.net_of("Q1", 3) == GND and net.net_of("Q1", 5) == "s0-slap.lamp-"


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_every_fault_of_a_cable_stays_small(build: Path) -> None:
    net = netlist.build(load_pad_map(build / "pads.toml"))
    found = faults.bounds(net)
    assert found
    assert max(f.from_5v_ma for f in found) == pytest.approx(5.0 / 84.5 * 1e3)  # 59 mA
    assert max(f.into_3v3_ma for f in found) < 2.5
    assert max(f.into_pin_ma for f in found) < 1.0


def test_without_the_feed_and_entry_resistors_a_fault_draws_amperes() -> None:
    net = netlist.build(load_pad_map(TWINIT))
    for part in net.parts.values():
        if part.kind == "R" and part.value in (circuit.ENTRY, "82 Ω 0.5 W"):
            part.ohms = (0.0, 0.0)
    found = faults.bounds(net)
    assert max(f.from_5v_ma for f in found) == pytest.approx(2000.0)  # 5 V / 2.5 Ω
    assert max(f.into_3v3_ma for f in found) > 400


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_the_schematic_draws_every_part_of_the_netlist(build: Path) -> None:
    net = netlist.build(load_pad_map(build / "pads.toml"))
    svg = (build / "schematic.svg").read_text(encoding="utf-8")
    for ref, part in net.parts.items():
        if part.kind in ("R", "C", "F", "TPD4E001DBV") or part.kind.startswith("AO3400A"):
            assert f">{ref} " in svg, ref


def test_the_netlist_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hardware", "netlist", str(TWINIT)]) == 0
    out = capsys.readouterr().out
    assert "net GND: " in out and "part Q1 AO3400A_SOT23-6 'AO3400A'" in out
