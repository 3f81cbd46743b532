"""hardware/: every example pad map loads with the box's loader, fits, and is drawn.

The committed diagrams and wiring tables must be what the maps give
(`buzzerbox hardware docs hardware/builds/*/` rewrites them).
"""

from __future__ import annotations

import csv
import io
import runpy
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from buzzerbox.appliance import diagram, pinout, wiring
from buzzerbox.appliance.hardware import build_docs
from buzzerbox.cli import main
from buzzerbox.pads.padmap import load_pad_map, parse_pad_map

ROOT = Path(__file__).resolve().parents[2]
HARDWARE = ROOT / "hardware"
BUILDS = sorted(p.parent for p in HARDWARE.glob("builds/*/pads.toml"))
SVG = "{http://www.w3.org/2000/svg}"


def test_there_are_the_three_reference_builds() -> None:
    assert [b.name for b in BUILDS] == ["ligretto12", "twinit-gpio", "twist-picos"]
    for build in BUILDS:
        for name in (
            "README.md",
            "parts.csv",
            "pads.toml",
            "wiring.svg",
            "schematic.svg",
            "gx16.svg",
        ):
            assert (build / name).is_file(), f"{build.name}/{name}"


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_each_map_loads_fits_and_is_drawn_with_every_pad(build: Path) -> None:
    pad_map = load_pad_map(build / "pads.toml")
    assert wiring.check(pad_map) == []
    svg = diagram.draw(pad_map)
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    for pad in pad_map.pads:
        assert any(t.startswith(f"{pad.id} · ") for t in texts), pad.id
    wires = [w for w in wiring.wires(pad_map) if w.pad is not None]
    assert len(root.findall(f".//{SVG}path")) >= len(wires)


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_the_committed_diagram_and_table_are_what_the_map_gives(build: Path) -> None:
    for path, text in build_docs(build).items():
        stale = f"{path.relative_to(ROOT)} is stale: run buzzerbox hardware docs {build.name}"
        assert path.read_text(encoding="utf-8") == text, stale


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_parts_lists_have_quantities(build: Path) -> None:
    with open(build / "parts.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows
    for row in rows:
        assert set(row) == {"item", "quantity", "part", "example", "note"}, row
        assert row["item"] and row["part"]
        assert row["example"], f"{build.name}/parts.csv: {row['item']} has no example to buy"
        assert int(row["quantity"]) >= 1
    items = [row["item"] for row in rows]
    assert len(items) == len(set(items))


def test_the_pin_counts_of_the_builds() -> None:
    by_name = {b.name: load_pad_map(b / "pads.toml") for b in BUILDS}
    twinit = by_name["twinit-gpio"]
    assert len(twinit.boards) == 0 and len(twinit.pads) == 8
    pins = [p.ch for p in twinit.pads] + [p.light_gpio for p in twinit.pads]
    assert len(set(pins)) == 16 and set(pins) <= set(pinout.PI_USABLE)
    twist = by_name["twist-picos"]
    assert len(twist.boards) == 2 and twist.piles == 8
    for board in twist.boards:
        pads = [p for p in twist.pads if p.board == board.id]
        layout = pinout.pico_layout(board.channels)
        assert layout is not None and layout.name == "pads24"
        assert len(pads) == 18 and {p.seat for p in pads if p.role == "pile"} == {0, 1, 2, 3}
        assert wiring.sync_channel(twist, board) == 23
    assert {(p.pile, p.seat) for p in twist.pads if p.role == "pile"} == {
        (pile, seat) for pile in range(8) for seat in range(4)
    }
    ligretto = by_name["ligretto12"]
    assert ligretto.seats == 12 and len(ligretto.boards) == 3
    assert sorted(p.seat for p in ligretto.pads if p.role == "stop") == list(range(12))
    assert all(p.light_ch is not None for p in ligretto.pads)


def test_the_pico_layouts_are_the_firmwares() -> None:
    config = ROOT / "firmware" / "padboard" / "config.py"  # the repo always holds it
    layouts = runpy.run_path(str(config))["LAYOUTS"]
    ours = {layout.name: layout for layout in pinout.PICO_LAYOUTS.values()}
    assert set(ours) == set(layouts)
    for name, layout in layouts.items():
        assert ours[name].inputs == tuple(layout["pads"]), name
        assert ours[name].leds == tuple(layout["leds"]), name
        assert pinout.PICO_LAYOUTS[len(layout["pads"])] is ours[name]
    probe = runpy.run_path(str(config))["PROBE_GPIO"]
    assert probe == pinout.PICO_PROBE_GP


def test_the_pi_header_table() -> None:
    assert len(pinout.PI_HEADER_PIN) == 28 == len(set(pinout.PI_HEADER_PIN.values()))
    assert set(pinout.PI_HEADER_PIN) == set(range(28))
    power = set(pinout.PI_GROUND_PINS) | set(pinout.PI_3V3_PINS) | set(pinout.PI_5V_PINS)
    assert power.isdisjoint(pinout.PI_GPIO_PIN)
    assert power | set(pinout.PI_GPIO_PIN) == set(range(1, 41))
    assert pinout.SYNC_GPIO in pinout.PI_USABLE
    pico = set(pinout.PICO_GP_PIN.values()) | set(pinout.PICO_GROUND_PINS)
    assert len(pico) == 26 + 8 and max(pico) <= 40


def test_check_refuses_pins_that_must_not_be_used() -> None:
    bad = parse_pad_map(
        "seats = 2\n"
        '[[pad]]\nrole = "stop"\nseat = 0\ngpio = 2\nlight_gpio = 4\n'
        '[[pad]]\nrole = "stop"\nseat = 1\ngpio = 7\n'
        '[[board]]\nid = "b"\nchannels = 24\n'
        '[[board]]\nid = "c"\nchannels = 16\n'
        '[[pad]]\nrole = "slap"\nseat = 1\nboard = "b"\nch = 3\nlight_ch = 5\n',
        name="bad.toml",
    )
    problems = "\n".join(wiring.check(bad))
    assert "GPIO2, I2C SDA" in problems
    assert "its light is on GPIO4, pulled up at power-on" in problems
    assert "GPIO7, the sync wire's pin" in problems
    assert "board b has no LED channel 5: its layout pads24 has LED channels 0-1" in problems
    assert "board c: channels = 16 is not a firmware layout" in problems


def test_the_hardware_commands(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    twist = str(HARDWARE / "builds" / "twist-picos" / "pads.toml")
    assert main(["hardware", "diagram", twist]) == 0
    svg = capsys.readouterr().out
    assert ET.fromstring(svg.split("\n", 1)[1]).tag == f"{SVG}svg"
    assert "Wiring of twist-picos/pads.toml" in svg
    assert main(["hardware", "table", twist]) == 0
    assert "| `p0-s0` | pile | 0 | 0 | pico-a pin 1 (GP0), ch 0 | – |" in capsys.readouterr().out
    assert main(["hardware", "check", twist]) == 0
    assert "fits" in capsys.readouterr().out
    bad = tmp_path / "bad.toml"
    bad.write_text('seats = 1\n[[pad]]\nrole = "stop"\nseat = 0\ngpio = 14\n', encoding="utf-8")
    assert main(["hardware", "check", str(bad)]) == 1
    assert "UART TXD" in capsys.readouterr().out
    bad.write_text("seats = 0\n", encoding="utf-8")
    assert main(["hardware", "diagram", str(bad)]) == 2
    assert "seats" in capsys.readouterr().err


def test_docs_rewrites_a_build_folder_and_check_finds_it_stale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "pads.toml").write_text(
        (HARDWARE / "builds" / "twinit-gpio" / "pads.toml").read_text(encoding="utf-8")
    )
    (folder / "README.md").write_text(
        f"# mine\n\n{build_docs_markers()}\nafter\n", encoding="utf-8"
    )
    assert main(["hardware", "docs", "--check", str(folder)]) == 1
    assert main(["hardware", "docs", str(folder)]) == 0
    assert main(["hardware", "docs", "--check", str(folder)]) == 0
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert readme.startswith("# mine\n") and readme.endswith("<!-- end of wiring -->\nafter\n")
    assert "| `s0-slap` | slap | 0 | – | Pi pin 7 (GPIO4) | Pi pin 16 (GPIO23) |" in readme
    assert "Wiring of mine/pads.toml" in (folder / "wiring.svg").read_text(encoding="utf-8")
    capsys.readouterr()
    (folder / "README.md").write_text("no markers\n", encoding="utf-8")
    assert main(["hardware", "docs", str(folder)]) == 2
    assert "no place for the wiring" in capsys.readouterr().err


def build_docs_markers() -> str:
    from buzzerbox.appliance.hardware import BEGIN, END

    return f"{BEGIN}\nold table\n{END}"


def test_the_diagram_is_the_same_bytes_every_time() -> None:
    pad_map = load_pad_map(HARDWARE / "builds" / "ligretto12" / "pads.toml")
    assert diagram.draw(pad_map) == diagram.draw(pad_map)
    out = io.StringIO(diagram.draw(pad_map))
    assert out.readline().startswith("<?xml")


def test_the_pad_map_knows_the_firmware_layouts_by_channel_count() -> None:
    from buzzerbox.pads.padmap.spec import FIRMWARE_LAYOUTS

    assert dict(FIRMWARE_LAYOUTS) == {n: lay.name for n, lay in pinout.PICO_LAYOUTS.items()}


def test_the_counted_parts_follow_the_map(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from buzzerbox.appliance import parts

    twist = load_pad_map(HARDWARE / "builds" / "twist-picos" / "pads.toml")
    cables = parts.cables(twist)
    assert sum(c.is_pile for c in cables) == 8 and not any(c.has_5v for c in cables if c.is_pile)
    assert sorted(c.controller for c in cables if c.has_5v) == ["pico-a"] * 2 + ["pico-b"] * 2
    counted = parts.quantities(twist)
    assert counted["jack"] == 16  # 4 pile cables per board, a jack at each end
    assert counted["pullup"] == 2 * 19 and counted["series"] == 36  # the sync inputs' pull-ups
    assert counted["entry"] == 36 and counted["test-r"] == 0
    assert counted["fuse"] == counted["cable-pad"] == 4 and counted["sync-cable"] == 2
    # one fuse, one MOSFET and its two gate resistors per lamp, not per cable
    twinit = parts.quantities(load_pad_map(HARDWARE / "builds" / "twinit-gpio" / "pads.toml"))
    assert twinit["cable-pad"] == 4
    for item in ("fuse", "mosfet", "gate-r", "gate-pulldown", "feed-r"):
        assert twinit[item] == 8, item
    assert twinit["sot-adapter"] == 8 + twinit["esd"] == 10
    folder = tmp_path / "mine"
    shutil.copytree(HARDWARE / "builds" / "twist-picos", folder)
    text = (folder / "parts.csv").read_text(encoding="utf-8")
    (folder / "parts.csv").write_text(text.replace("\njack,16,", "\njack,20,"), encoding="utf-8")
    assert main(["hardware", "docs", "--check", str(folder)]) == 1
    assert f"stale: {folder / 'parts.csv'}" in capsys.readouterr().out
    assert main(["hardware", "docs", str(folder)]) == 0
    assert (folder / "parts.csv").read_text(encoding="utf-8") == text
    with pytest.raises(ValueError, match="starts with the header"):
        parts.rewrite("what,how\n", twist)


def test_the_test_line_is_counted_drawn_and_listed() -> None:
    from buzzerbox.appliance import circuit, parts, schematic

    text = (HARDWARE / "builds" / "twist-picos" / "pads.toml").read_text(encoding="utf-8")
    line = '[gpio]\npull = "up"\n[test_line]\ngpio = 16\ngpio_in = 20\nboards = { pico-a = 22 }\n'
    twist = parse_pad_map(text.replace("[[board]]", line + "[[board]]", 1), name="t.toml")
    budget = "\n".join(wiring.budget(twist))
    assert "the test line (2 pins) = 3 of the 22 GPIOs free for pads (19 spare)" in budget
    assert "pico-a (pads24): 18 of 24 inputs + sync on ch 23 + the test line on ch 22" in budget
    assert "4 inputs spare" in budget and "5 inputs spare" in budget  # pico-b has no test input
    table = wiring.table(twist)
    assert "| pico-a | Pi pin 36 (GPIO16), through 330 Ω | pico-a pin 29 (GP22), ch 22 |" in table
    assert "| Pi (direct input) | Pi pin 36 (GPIO16), through 330 Ω | Pi pin 38 (GPIO20) |" in table
    svg = diagram.draw(twist)
    assert "test line out" in svg and "test line in · ch 22" in svg and "test line: " in svg
    sheet = circuit.plan(twist)
    assert sheet.test_from is not None and sheet.test_from.gpio == 16
    assert [(s.wire.controller, s.pullup is not None) for s in sheet.tests] == [
        ("pi", False),
        ("pico-a", True),
    ]
    counted = parts.quantities(twist)
    assert counted["test-r"] == 2 and counted["pullup"] == 2 * 19 + 1
    assert "test line: Pi pin 36 (GPIO16)" in schematic.draw(twist)
    listed = parts.rewrite((HARDWARE / "builds/twist-picos/parts.csv").read_text("utf-8"), twist)
    assert "\ntest-r,2,resistor 330 Ω 0.25 W," in listed
