"""hardware/builds/*/schematic.svg: drawn from the pad map with schemdraw, every part in it.

The schematic's parts must be the ones the parts lists count (parts.py), every
channel of the map must have its input stage, every lamp its driver and fuse,
and the committed SVG must be what the map gives, byte for byte, in another
process too.
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
from buzzerbox.appliance import circuit, parts, schematic, wiring
from buzzerbox.cli import main
from buzzerbox.pads.padmap import PadMap, load_pad_map, parse_pad_map

ROOT = Path(__file__).resolve().parents[2]
BUILDS = sorted(p.parent for p in (ROOT / "hardware").glob("builds/*/pads.toml"))
SVG = "{http://www.w3.org/2000/svg}"
COUNTED = (
    "entry", "series", "pullup", "esd", "esd-cap", "fuse", "mosfet", "gate-r", "gate-pulldown",
    "feed-r",
)  # fmt: skip


def texts(svg: str) -> list[str]:
    root = ET.fromstring(svg.split("\n", 1)[1])
    assert root.tag == f"{SVG}svg"
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_every_channel_lamp_and_protection_part_is_drawn(build: Path) -> None:
    pad_map = load_pad_map(build / "pads.toml")
    svg = (build / "schematic.svg").read_text(encoding="utf-8")
    found = texts(svg)
    sheet = circuit.plan(pad_map)
    assert len(sheet.inputs) == len(pad_map.pads)
    for stage in sheet.inputs:
        pad = stage.wire.pad
        assert pad is not None
        assert f"{pad.id} contact: {stage.pins.connector} pin {stage.pins.contact}" in found
        assert wiring.where(stage.wire) in found
        assert f"{pad.id} GND: {stage.pins.connector} pin {stage.pins.gnd}" in found
        assert f"{stage.entry.ref} 470 Ω" in found
        assert f"{stage.esd.ref} IO{stage.esd_line} (pin {stage.esd_pin})" in found
        assert stage.pullup is not None and f"{stage.pullup.ref} 4.7 kΩ" in found
        assert f"{stage.series.ref} 1 kΩ" in found
    for ref, cap in sheet.esd_caps.items():
        assert f"{ref} pin 5 VCC" in found and f"{ref} pin 2 GND" in found
        assert f"{cap.ref} 100 nF" in found
    lit = [p for p in pad_map.pads if p.light != "-"]
    assert len(sheet.lamps) == len(lit)
    for lamp in sheet.lamps:
        pad = lamp.wire.pad
        assert pad is not None
        assert f"{lamp.fuse.ref} MF-R010" in found
        assert f"{lamp.mosfet.ref} AO3400A (G 1, S 3, D 5)" in found
        assert f"{lamp.feed.ref} 82 Ω 0.5 W" in found
        assert f"{lamp.gate_r.ref} 100 Ω" in found and f"{lamp.pulldown.ref} 100 kΩ" in found
        assert f"{pad.id} lamp +: {lamp.pins.connector} pin {lamp.pins.lamp_plus}" in found
        assert f"{pad.id} lamp −: {lamp.pins.connector} pin {lamp.pins.lamp_minus}" in found
    assert len(sheet.syncs) == len(pad_map.boards)
    for sync in sheet.syncs:
        assert f"{sync.resistor.ref} 330 Ω" in found and wiring.where(sync.wire) in found
    if pad_map.boards:
        assert "sync wire: Pi pin 26 (GPIO7)" in found
    assert any("AO3400A on a SOT-23-6 adapter: G pad 1, S pad 3, D pad 5" in t for t in found)


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_the_schematic_has_the_parts_the_parts_list_counts(build: Path) -> None:
    pad_map = load_pad_map(build / "pads.toml")
    sheet = circuit.plan(pad_map)
    drawn = Counter(p.role for p in sheet.parts)
    counted = parts.quantities(pad_map)
    for item in COUNTED:
        assert drawn[item] == counted[item], item
    assert drawn["sync-r"] == counted["sync-r"]
    refs = [p.ref for p in sheet.parts]
    assert len(refs) == len(set(refs))


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_the_committed_schematic_is_what_the_map_gives_in_a_new_process(build: Path) -> None:
    committed = (build / "schematic.svg").read_bytes()
    assert (
        schematic.draw(load_pad_map(build / "pads.toml"), title=f"{build.name}/pads.toml").encode()
        == committed
    )
    out = subprocess.run(
        [sys.executable, "-m", "buzzerbox.cli", "hardware", "schematic", str(build / "pads.toml")],
        capture_output=True,
        check=True,
        env={"PYTHONPATH": str(ROOT / "host"), "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout == committed, f"{build.name}/schematic.svg: run buzzerbox hardware docs"


def small_map(extra: str = "") -> PadMap:
    text = (
        "seats = 2\n"
        '[[pad]]\nid = "a"\nrole = "stop"\nseat = 0\ngpio = 17\nlight_gpio = 23\n'
        '[[pad]]\nid = "b"\nrole = "stop"\nseat = 1\ngpio = 27\nlight_gpio = 24\n'
        '[[pad]]\nid = "c"\nrole = "slap"\nseat = 0\ngpio = 22\n'
        '[[pad]]\nid = "d"\nrole = "slap"\nseat = 1\ngpio = 5\n'
    )
    return parse_pad_map(text + extra, name="small.toml")


def test_one_more_channel_is_one_more_input_stage_and_a_new_esd_array() -> None:
    four = circuit.plan(small_map())
    five_map = small_map('[[pad]]\nid = "e"\nrole = "stop"\nseat = 0\ngpio = 6\n')
    five = circuit.plan(five_map)
    assert len(five.inputs) == len(four.inputs) + 1 == 5
    assert [s.esd_pin for s in five.inputs] == [1, 3, 4, 6, 1]
    assert len({s.esd.ref for s in five.inputs}) == 2 == len({s.esd.ref for s in four.inputs}) + 1
    before, after = Counter(p.role for p in four.parts), Counter(p.role for p in five.parts)
    assert after - before == Counter({"entry": 1, "series": 1, "pullup": 1, "esd": 1, "esd-cap": 1})
    found = texts(schematic.draw(five_map))
    assert any(t.startswith("e contact: ") for t in found)
    assert not any(t.startswith("e contact: ") for t in texts(schematic.draw(small_map())))


def test_the_connector_pins_follow_the_builds_readmes() -> None:
    twinit = circuit.connector_pins(load_pad_map(ROOT / "hardware/builds/twinit-gpio/pads.toml"))
    slap, stop = twinit["s0-slap"], twinit["s0-stop"]
    assert slap.connector == stop.connector and slap.connector.endswith("GX16-8")
    assert (slap.contact, slap.gnd, slap.lamp_plus, slap.lamp_minus) == (1, 2, 5, 6)
    assert (stop.contact, stop.gnd, stop.lamp_plus, stop.lamp_minus) == (3, 4, 8, 7)
    twist = circuit.connector_pins(load_pad_map(ROOT / "hardware/builds/twist-picos/pads.toml"))
    assert [(twist[f"p0-s{n}"].contact, twist[f"p0-s{n}"].gnd) for n in range(4)] == [
        (1, 2),
        (3, 6),
        (5, 4),
        (7, 8),
    ]
    assert twist["s0-stop"].connector.endswith("GX16-4")
    assert (twist["s0-stop"].lamp_plus, twist["s0-stop"].lamp_minus) == (3, 4)


def test_internal_pullups_draw_no_resistor(capsys: pytest.CaptureFixture[str]) -> None:
    sheet = circuit.plan(small_map(), external_pullups=False)
    assert all(s.pullup is None for s in sheet.inputs)
    assert "pullup" not in {p.role for p in sheet.parts}
    twinit = str(ROOT / "hardware/builds/twinit-gpio/pads.toml")
    assert main(["hardware", "schematic", "--internal-pullups", twinit]) == 0
    found = texts(capsys.readouterr().out)
    assert "internal pull-up" in found and not any(t.endswith(" 4.7 kΩ") for t in found)
    assert any(t.startswith("Schematic of twinit-gpio/pads.toml") for t in found)


def test_drawing_imports_no_matplotlib() -> None:
    code = (
        "import sys; from buzzerbox.appliance import schematic;"
        "from buzzerbox.pads.padmap import load_pad_map;"
        f"schematic.draw(load_pad_map({str(BUILDS[0] / 'pads.toml')!r}));"
        "print('matplotlib' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        check=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "host"), "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.strip() == "False"
