"""The GX16 faces (issue 42, item 2): which pin is where, seen from the solder side.

Every view's pins come from the one table (gx16.FRONT), each solder side is drawn as the
mirror of its own front and the plug's front as the mirror of the socket's front (read
back from the drawing, not from the code's flags); each pin says what the netlist puts
on it, for every connector of its row; the build READMEs and pads.md point to the
drawing. A drawing broken on purpose (a view not mirrored, a pin moved) fails the check.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from buzzerbox.appliance import gx16, netlist
from buzzerbox.pads.padmap import load_pad_map

ROOT = Path(__file__).resolve().parents[2]
HARDWARE = ROOT / "hardware"
BUILDS = sorted(p.parent for p in HARDWARE.glob("builds/*/pads.toml"))
SVG = "{http://www.w3.org/2000/svg}"
NET_KIND = {"contact": "pad", "lamp+": "+5 V", "lamp-": "lamp −"}


def views(svg: str) -> list[tuple[str, str, dict[int, tuple[float, float]]]]:
    """Each view drawn, in order: (the kind of its row, its id, its pins' places on a
    unit circle, key up, read from the circles' centres)."""
    root = ET.fromstring(svg)
    out = []
    for g in root.iter(f"{SVG}g"):
        if not g.get("data-view"):
            continue
        cx, cy = float(g.get("data-cx", 0)), float(g.get("data-cy", 0))
        scale = gx16.VIEW_R - 20
        pins = {
            int(c.get("data-pin", 0)): (
                round((float(c.get("cx", 0)) - cx) / scale, 3),
                round((float(c.get("cy", 0)) - cy) / scale, 3),
            )
            for c in g.iter(f"{SVG}circle")
            if c.get("data-pin")
        }
        out.append((str(g.get("data-kind")), str(g.get("data-view")), pins))
    return out


def mirrored(pins: dict[int, tuple[float, float]]) -> dict[int, tuple[float, float]]:
    return {pin: (round(-x, 3) + 0.0, y) for pin, (x, y) in pins.items()}


def same(a: dict[int, tuple[float, float]], b: dict[int, tuple[float, float]]) -> bool:
    """The same pins at the same places, to the drawing's 0.1 px (0.0024 of the radius)."""
    return a.keys() == b.keys() and all(
        abs(a[p][0] - b[p][0]) < 0.005 and abs(a[p][1] - b[p][1]) < 0.005 for p in a
    )


def face_problems(svg: str) -> list[str]:
    """What is wrong with the faces drawn: a view not where the table and the mirror
    say (the socket's front is the table; its solder side and the plug's front are its
    mirror; the plug's solder side is the socket's front)."""
    problems = []
    drawn = views(svg)
    for i in range(0, len(drawn), len(gx16.VIEWS)):
        row = {name: pins for _, name, pins in drawn[i : i + len(gx16.VIEWS)]}
        kind = drawn[i][0]
        table = {p: (round(x, 3) + 0.0, round(y, 3)) for p, (x, y) in gx16.FRONT[kind].items()}
        want = {
            "socket-front": table,
            "socket-solder": mirrored(table),
            "plug-front": mirrored(table),
            "plug-solder": table,
        }
        for name, pins in row.items():
            if not same(pins, want[name]):
                problems.append(f"{kind} {name}: {pins} is not {want[name]}")
    return problems


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_every_face_is_the_one_table_or_its_mirror(build: Path) -> None:
    svg = (build / "gx16.svg").read_text(encoding="utf-8")
    assert views(svg)  # the build has GX16 cables, and they are drawn
    assert face_problems(svg) == []
    for kind, pins in gx16.FRONT.items():  # the mirror moves pins: the check can tell
        assert not same(mirrored(dict(pins)), dict(pins)), kind


def test_a_face_drawn_unmirrored_or_a_pin_moved_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    pad_map = load_pad_map(HARDWARE / "builds" / "twinit-gpio" / "pads.toml")
    plain = [(name, caption, False) for name, caption, _ in gx16.VIEWS]
    monkeypatch.setattr(gx16, "VIEWS", tuple(plain))  # the plug's front copied from a photo
    problems = face_problems(gx16.draw(pad_map))
    assert [p.split(":")[0] for p in problems] == ["GX16-8 socket-solder", "GX16-8 plug-front"]
    monkeypatch.undo()
    # pins 1 and 2 swapped in the drawing only
    drawn = gx16.draw(pad_map).replace('data-pin="1"', 'data-pin="x"')
    drawn = drawn.replace('data-pin="2"', 'data-pin="1"').replace('data-pin="x"', 'data-pin="2"')
    assert len(face_problems(drawn)) == 4


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_each_pin_says_what_the_netlist_puts_on_it(build: Path) -> None:
    pad_map = load_pad_map(build / "pads.toml")
    net = netlist.build(pad_map)
    root = ET.fromstring((build / "gx16.svg").read_text(encoding="utf-8"))
    said = {
        (t.get("data-kind"), int(t.get("data-pin", 0))): t.text or ""
        for t in root.iter(f"{SVG}text")
        if t.get("data-pin")
    }
    rows = gx16.connectors(pad_map)
    assert rows
    for kind, refs, pins in rows:
        assert sorted(pins) == [p for p in gx16.FRONT[kind] if p in pins]
        for ref in refs:  # every connector of the row: one pin order per row
            assert net.parts[ref].value == kind
            for pin in gx16.FRONT[kind]:
                on = net.net_of(ref, pin)
                want = "nc" if on is None else "GND" if on == "GND" else NET_KIND[on.split(".")[1]]
                assert pins.get(pin, ("nc", ""))[0] == want, (ref, pin, on)
                assert said[(kind, pin)].startswith(f"{pin} · "), said[(kind, pin)]
                if on is not None and on != "GND":
                    pad = on.split(".")[0]
                    role = next(p.role for p in pad_map.pads if p.id == pad)
                    assert role in said[(kind, pin)], (ref, pin, said[(kind, pin)])


def test_the_mirror_pairs_are_the_pins_a_mirrored_plug_puts_together() -> None:
    for kind, table in gx16.FRONT.items():
        for a, b in gx16.mirror_pairs(kind):
            assert gx16.place(kind, a, True) == pytest.approx(table[b])
            assert gx16.place(kind, b, True) == pytest.approx(table[a])
        paired = {p for pair in gx16.mirror_pairs(kind) for p in pair}
        for pin in set(table) - paired:  # on the axis: the mirror keeps it
            assert table[pin][0] == pytest.approx(0.0)


def test_the_docs_point_to_the_faces() -> None:
    pads = (HARDWARE / "pads.md").read_text(encoding="utf-8")
    assert "gx16.svg" in pads and "buzzerbox hardware gx16" in pads
    for build in BUILDS:
        readme = (build / "README.md").read_text(encoding="utf-8")
        assert "(gx16.svg)" in readme, build.name
