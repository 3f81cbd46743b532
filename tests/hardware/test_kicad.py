"""hardware/builds/*/schematic.kicad_sch: the netlist SKiDL's ERC checks, as a KiCad 9
schematic, held to it by KiCad's own kicad-cli (conftest.py: KiCad 9 from Debian
Trixie in a root of its own).

kicad-cli's netlist export of the committed file has the netlist's parts and nets,
every pin on the same net; kicad-cli's ERC finds nothing but that the file's two
symbol libraries are not in KiCad's library tables (see below); a pin left unwired
on purpose makes it find that pin.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from buzzerbox.appliance import kicad, netlist
from buzzerbox.appliance.netlist import Netlist
from buzzerbox.cli import main
from buzzerbox.pads.padmap import load_pad_map
from simp_sexp import Sexp

from .kicadroot import KicadCli

ROOT = Path(__file__).resolve().parents[2]
BUILDS = sorted(p.parent for p in (ROOT / "hardware").glob("builds/*/pads.toml"))
TWINIT = ROOT / "hardware/builds/twinit-gpio"
slow = pytest.mark.timeout(900)
"""The first test to ask for kicad-cli builds its root (400 s here, see conftest.py)."""


def kicad_nets(net_file: str) -> dict[str, set[tuple[str, int]]]:
    """The nets of a netlist kicad-cli exported: name (no sheet path) and its (ref, pin);
    the pins nothing is wired to (KiCad's "unconnected-(...)" nets) left out."""
    out: dict[str, set[tuple[str, int]]] = {}
    for n in Sexp(net_file).search("/export/nets/net"):
        fields = {item[0]: item[1:] for item in n[1:]}
        name = str(fields["name"][0]).lstrip("/")
        nodes = {
            (str(node[1][1]), int(node[2][1]))
            for node in n[1:]
            if node[0] == "node"
        }  # fmt: skip
        if not name.startswith("unconnected-("):
            out[name] = nodes
    return out


def kicad_parts(net_file: str) -> dict[str, str]:
    """Each component's reference and value in a netlist kicad-cli exported."""
    parts = {}
    for comp in Sexp(net_file).search("/export/components/comp"):
        fields = {item[0]: item[1:] for item in comp[1:]}
        parts[str(fields["ref"][0])] = str(fields["value"][0])
    return parts


def ours(net: Netlist) -> dict[str, set[tuple[str, int]]]:
    """The netlist's nets as KiCad exports them: no power flag (KiCad leaves the
    references that start with # out of its netlists)."""
    out = {name: {n for n in nodes if not n[0].startswith("#")} for name, nodes in net.nets.items()}
    return {name: nodes for name, nodes in out.items() if nodes}


def erc_findings(kicad_cli: KicadCli, sch: str) -> list[dict[str, Any]]:
    files = kicad_cli.run(
        ["sch", "erc", "--format", "json", "--severity-all", "-o", "erc.json", "s.kicad_sch"],
        {"s.kicad_sch": sch},
    )
    report = json.loads(files["erc.json"])
    return [v for sheet in report["sheets"] for v in sheet["violations"]]


LIBRARY_NOT_CONFIGURED = "The current configuration does not include the symbol library"


def explained(v: dict[str, Any]) -> bool:
    """KiCad's one finding the schematics keep: each symbol's library ('buzzerbox', the
    symbols drawn by kicad.py; 'power', KiCad's GND) is not in this KiCad's library
    tables. The symbols are embedded in the file (lib_symbols), which is what KiCad
    draws and checks; the root has no library installed at all (kicad without its
    recommends), and a maker's KiCad has 'power' but never 'buzzerbox'."""
    return bool(
        v["type"] == "lib_symbol_issues"
        and v["severity"] == "warning"
        and v["description"].startswith(LIBRARY_NOT_CONFIGURED)
        and v["description"].endswith(("'buzzerbox'", "'power'"))
    )


@slow
@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_kicads_netlist_of_the_schematic_is_the_netlist(build: Path, kicad_cli: KicadCli) -> None:
    net = netlist.build(load_pad_map(build / "pads.toml"))
    sch = (build / "schematic.kicad_sch").read_text(encoding="utf-8")
    files = kicad_cli.run(
        ["sch", "export", "netlist", "--format", "kicadsexpr", "-o", "s.net", "s.kicad_sch"],
        {"s.kicad_sch": sch},
    )
    assert kicad_nets(files["s.net"]) == ours(net)
    parts = {ref: p.value for ref, p in net.parts.items() if not ref.startswith("#")}
    assert kicad_parts(files["s.net"]) == parts


@slow
@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_kicads_erc_finds_nothing_but_the_embedded_libraries(
    build: Path, kicad_cli: KicadCli
) -> None:
    sch = (build / "schematic.kicad_sch").read_text(encoding="utf-8")
    findings = erc_findings(kicad_cli, sch)
    assert findings, "kicad-cli's ERC ran on no symbol"
    assert [v for v in findings if not explained(v)] == []


@slow
def test_a_pin_left_unwired_fails_kicads_erc(kicad_cli: KicadCli) -> None:
    net = netlist.build(load_pad_map(TWINIT / "pads.toml"))
    net.disconnect("A1", 7)  # s0-slap's GPIO4: the Pi's input pin, wired to nothing
    findings = [
        v for v in erc_findings(kicad_cli, kicad.schematic(net, title="t")) if not explained(v)
    ]
    unwired = [v for v in findings if v["type"] == "pin_not_connected"]
    assert len(unwired) == 1 and "GPIO4" in unwired[0]["items"][0]["description"], findings
    # an input nothing drives, and the label of its net (A1.7) that KiCad finds dangling
    assert {v["type"] for v in findings} == {"pin_not_connected", "pin_not_driven",
                                             "label_dangling"}  # fmt: skip


@slow
def test_a_ground_cut_fails_the_comparison(kicad_cli: KicadCli) -> None:
    """The comparison can fail: a switch's GND moved to a net of its own in the
    schematic is a net the netlist does not have."""
    net = netlist.build(load_pad_map(TWINIT / "pads.toml"))
    net.move("cut", ("SW1", 2))
    files = kicad_cli.run(
        ["sch", "export", "netlist", "--format", "kicadsexpr", "-o", "s.net", "s.kicad_sch"],
        {"s.kicad_sch": kicad.schematic(net, title="t")},
    )
    whole = ours(netlist.build(load_pad_map(TWINIT / "pads.toml")))
    assert kicad_nets(files["s.net"]) != whole


Box = tuple[float, float, float, float]
CHAR = 1.0
"""About the mean width of a character of KiCad's 1.27 mm font in these labels (mm;
schematizer spaces the parts by 1.016 a character and 2 mm more)."""


def label_box(label: Any) -> Box:
    """Where a net label's text lies (x0, y0, x1, y1; sheet mm, y down): from its
    anchor along its angle, one character high."""
    fields = {item[0]: item[1:] for item in label[2:] if isinstance(item, list)}
    x, y, angle = (float(v) for v in fields["at"])
    length, high = CHAR * len(str(label[1])), 1.27
    return {
        0: (x, y - high, x + length, y),
        180: (x - length, y - high, x, y),
        90: (x - high, y - length, x, y),
        270: (x - high, y, x, y + length),
    }[int(angle)]


def body_boxes(sch: Any) -> list[Box]:
    """Each placed symbol's box (its lib symbol's rectangle where it stands)."""
    rects = {}
    for lib in sch.search("/kicad_sch/lib_symbols/symbol"):
        for rect in lib.search("/symbol/symbol/rectangle"):
            fields = {item[0]: item[1:] for item in rect[1:]}
            (x0, y0), (x1, y1) = fields["start"], fields["end"]
            rects[str(lib[1])] = (float(x0), float(y0), float(x1), float(y1))
    out = []
    for sym in sch.search("/kicad_sch/symbol"):
        fields = {item[0]: item[1:] for item in sym[1:] if isinstance(item, list)}
        rect = rects.get(str(fields["lib_id"][0]))
        if rect is None:
            continue
        x, y = float(fields["at"][0]), float(fields["at"][1])
        xs, ys = (x + rect[0], x + rect[2]), (y - rect[1], y - rect[3])
        out.append((min(xs), min(ys), max(xs), max(ys)))
    return out


def overlap(a: Box, b: Box) -> bool:
    gap = 0.05
    return a[0] < b[2] - gap and b[0] < a[2] - gap and a[1] < b[3] - gap and b[1] < a[3] - gap


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_no_label_overlaps_another_or_a_part(build: Path) -> None:
    sch = Sexp((build / "schematic.kicad_sch").read_text(encoding="utf-8"))
    labels = [(str(lb[1]), label_box(lb)) for lb in sch.search("/kicad_sch/label")]
    bodies = body_boxes(sch)
    assert len(labels) > 50 and len(bodies) > 50
    clashes = [
        (a, b) for i, (a, box) in enumerate(labels) for b, other in labels[i + 1 :]
        if overlap(box, other)
    ]  # fmt: skip
    clashes += [(a, "a part") for a, box in labels for body in bodies if overlap(box, body)]
    assert clashes == []


def test_the_overlap_check_finds_a_label_on_a_part_or_on_another() -> None:
    text = (TWINIT / "schematic.kicad_sch").read_text(encoding="utf-8")
    first = '(label "3V3_PI"\n    (at 27.94 34.29 180)'
    assert first in text
    on_the_pi = Sexp(text.replace(first, '(label "3V3_PI"\n    (at 71.12 58.42 180)'))
    box = label_box(on_the_pi.search("/kicad_sch/label")[0])
    assert any(overlap(box, body) for body in body_boxes(on_the_pi))
    on_5v = Sexp(text.replace(first, '(label "3V3_PI"\n    (at 27.94 36.83 180)'))
    three, five = on_5v.search("/kicad_sch/label")[:2]
    assert overlap(label_box(three), label_box(five))


def test_the_schematic_is_the_same_bytes_every_time_and_from_the_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    committed = (TWINIT / "schematic.kicad_sch").read_text(encoding="utf-8")
    net = netlist.build(load_pad_map(TWINIT / "pads.toml"))
    assert kicad.schematic(net, title="twinit-gpio/pads.toml") == committed
    assert main(["hardware", "kicad", str(TWINIT / "pads.toml")]) == 0
    assert capsys.readouterr().out == committed
    assert "(date " not in committed and kicad.MADE_FROM in committed


def test_without_schematizer_the_commands_say_what_to_install(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "schematizer", None)  # import schematizer fails
    assert main(["hardware", "kicad", str(TWINIT / "pads.toml")]) == 2
    assert "needs schematizer: pip install schematizer" in capsys.readouterr().err
    assert main(["hardware", "docs", "--check", str(TWINIT)]) == 2
    assert "needs schematizer: pip install schematizer" in capsys.readouterr().err
