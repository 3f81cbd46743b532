"""`buzzerbox hardware diagram|schematic|table|check MAP`: the wiring docs, from the pad map.

    buzzerbox hardware diagram hardware/builds/twinit-gpio/pads.toml > wiring.svg
    buzzerbox hardware schematic MAP > schematic.svg    every resistor, ESD line,
                                      lamp driver and fuse (--internal-pullups: the
                                      chips' own pull-ups, no 4.7 kΩ)
    buzzerbox hardware table MAP      the Markdown wiring table of the build's README
    buzzerbox hardware check MAP      does it fit: pins per controller, pins to avoid
    buzzerbox hardware zone ZONE_TOML the force that closes a pile zone (hardware/zone.toml)
    buzzerbox hardware netlist MAP    every part, pin and net of the circuit (netlist.py)
    buzzerbox hardware erc MAP        SKiDL's electrical-rules check of that netlist
    buzzerbox hardware kicad MAP > schematic.kicad_sch
                                      that netlist as a KiCad 9 schematic (kicad.py;
                                      needs: pip install schematizer)
    buzzerbox hardware gx16 MAP       the GX16 connectors' faces: each pin's place and
                                      signal, front and solder side (gx16.py)
    buzzerbox hardware docs DIR...    rewrite a build folder's wiring.svg, schematic.svg,
                                      schematic.kicad_sch, gx16.svg, the wiring table in
                                      its README.md and the counted quantities of its
                                      parts.csv from its pads.toml (--check: only say
                                      which are stale, exit 1 if any)

The map is read with the box's own loader (`buzzerbox.pads.padmap`), so a map
these commands draw is a map the box runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from buzzerbox.errors import BuzzerboxError, ConfigError


def add_hardware_command(sub: argparse._SubParsersAction[Any]) -> None:
    hw = sub.add_parser(
        "hardware",
        help="wiring diagram (SVG), wiring table and pin check from a pad map",
        description="Wiring documents made from the pad map the box loads.",
    )
    what = hw.add_subparsers(dest="what", metavar="WHAT", required=True)
    for name, text in (
        ("diagram", "print the wiring diagram as SVG"),
        ("table", "print the wiring table as Markdown"),
        ("check", "check that the map fits the Pi and the Pico boards; exit 1 if not"),
        ("netlist", "print the circuit's netlist: every part, pin and net"),
        ("erc", "the netlist's electrical-rules check by SKiDL (pip install skidl); exit 1 if not"),
        ("gx16", "print the GX16 connectors' faces as SVG: each pin's place and signal"),
        ("kicad", "print the netlist as a KiCad 9 schematic (.kicad_sch; pip install schematizer)"),
    ):
        p = what.add_parser(name, help=text, description=text)
        p.add_argument("map", metavar="MAP", help="the pad map (TOML)")
        p.set_defaults(func=run_hardware)
    p = what.add_parser(
        "schematic",
        help="print the schematic as SVG: resistors, ESD, pull-ups, lamp drivers, fuses",
        description="Print the schematic (SVG) of the pad map, drawn with schemdraw.",
    )
    p.add_argument("map", metavar="MAP", help="the pad map (TOML)")
    p.add_argument(
        "--internal-pullups",
        action="store_true",
        help="the build uses the chips' own pull-ups (no 4.7 kΩ to 3V3)",
    )
    p.set_defaults(func=run_hardware)
    p = what.add_parser(
        "zone",
        help="the force that closes a pile pad's seat zone, from its numbers (hardware/zone.toml)",
        description="The force model of a pile pad's seat zone (hardware/pads.md).",
    )
    p.add_argument("zone", metavar="ZONE_TOML", help="the zone's numbers: hardware/zone.toml")
    p.set_defaults(func=run_zone)
    docs = what.add_parser(
        "docs",
        help="rewrite the wiring diagram and table of build folders from their pads.toml",
        description="Rewrite DIR/wiring.svg and the wiring table in DIR/README.md.",
    )
    docs.add_argument("dirs", metavar="DIR", nargs="+", type=Path, help="a build folder")
    docs.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    docs.set_defaults(func=run_docs)


BEGIN = "<!-- wiring: made from pads.toml by `buzzerbox hardware docs`; do not edit -->"
END = "<!-- end of wiring -->"


def build_docs(folder: Path) -> dict[Path, str]:
    """What a build folder's generated files should hold: wiring.svg, schematic.svg,
    schematic.kicad_sch, README.md and, if it has one, parts.csv."""
    from buzzerbox.appliance import circuit, diagram, gx16, kicad, netlist, parts, schematic, wiring
    from buzzerbox.pads.padmap import load_pad_map

    pad_map = load_pad_map(folder / "pads.toml")
    svg = diagram.draw(pad_map, title=f"{folder.resolve().name}/pads.toml")
    readme = folder / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.exists() else f"{BEGIN}\n{END}\n"
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ConfigError(f"{readme} has no place for the wiring: put {BEGIN} and {END} in it")
    budget = "".join(f"- {line}\n" for line in wiring.budget(pad_map))
    lamps = circuit.lamp_table(pad_map)
    lamps = f"{lamps}\n" if lamps else ""
    body = f"{BEGIN}\n\n{wiring.table(pad_map)}\n{lamps}{budget}\n"
    out = {folder / "wiring.svg": svg, readme: text[:start] + body + text[end:]}
    title = f"{folder.resolve().name}/pads.toml"
    out[folder / "schematic.svg"] = schematic.draw(pad_map, title=title)
    out[folder / "schematic.kicad_sch"] = kicad.schematic(netlist.build(pad_map), title=title)
    if gx16.connectors(pad_map):
        out[folder / "gx16.svg"] = gx16.draw(pad_map, title=title)
    parts_csv = folder / "parts.csv"
    if parts_csv.exists():
        out[parts_csv] = parts.rewrite(parts_csv.read_text(encoding="utf-8"), pad_map)
    return out


def run_zone(args: argparse.Namespace) -> int:
    import tomllib

    from buzzerbox.appliance import zone

    try:
        design = zone.load_zone(args.zone)
    except (OSError, KeyError, ValueError, tomllib.TOMLDecodeError) as exc:
        print(f"buzzerbox hardware zone: {args.zone}: {exc!r}", file=sys.stderr)
        return 2
    for line in zone.report(design):
        print(line)
    return 0


def run_docs(args: argparse.Namespace) -> int:
    stale: list[Path] = []
    for folder in args.dirs:
        try:
            files = build_docs(folder)
        except (OSError, ValueError, BuzzerboxError) as exc:
            print(f"buzzerbox hardware docs: {exc}", file=sys.stderr)
            return 2
        except ImportError as exc:
            print(f"buzzerbox hardware docs: needs {exc.name}: pip install {exc.name}",
                  file=sys.stderr)  # fmt: skip
            return 2
        for path, text in files.items():
            old = path.read_text(encoding="utf-8") if path.exists() else None
            if old == text:
                continue
            stale.append(path)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"{'stale' if args.check else 'wrote'}: {path}")
    return 1 if args.check and stale else 0


def run_hardware(args: argparse.Namespace) -> int:
    from buzzerbox.appliance import diagram, wiring
    from buzzerbox.pads.padmap import load_pad_map

    try:
        pad_map = load_pad_map(args.map)
    except BuzzerboxError as exc:
        print(f"buzzerbox hardware: {exc}", file=sys.stderr)
        return 2
    if args.what == "diagram":
        path = Path(args.map).resolve()
        sys.stdout.write(diagram.draw(pad_map, title=f"{path.parent.name}/{path.name}"))
        return 0
    if args.what == "schematic":
        from buzzerbox.appliance import schematic

        path = Path(args.map).resolve()
        title = f"{path.parent.name}/{path.name}"
        sys.stdout.write(
            schematic.draw(pad_map, title=title, external_pullups=not args.internal_pullups)
        )
        return 0
    if args.what == "table":
        sys.stdout.write(wiring.table(pad_map))
        return 0
    if args.what == "gx16":
        from buzzerbox.appliance import gx16

        path = Path(args.map).resolve()
        sys.stdout.write(gx16.draw(pad_map, title=f"{path.parent.name}/{path.name}"))
        return 0
    if args.what == "kicad":
        from buzzerbox.appliance import kicad, netlist

        path = Path(args.map).resolve()
        try:
            text = kicad.schematic(netlist.build(pad_map), title=f"{path.parent.name}/{path.name}")
        except ImportError:
            print("buzzerbox hardware kicad: needs schematizer: pip install schematizer",
                  file=sys.stderr)  # fmt: skip
            return 2
        sys.stdout.write(text)
        return 0
    if args.what in ("netlist", "erc"):
        from buzzerbox.appliance import netlist

        net = netlist.build(pad_map)
        if args.what == "netlist":
            sys.stdout.write(netlist.text(net))
            return 0
        try:
            from buzzerbox.appliance import erc

            messages = erc.run(net)
        except ImportError:
            print("buzzerbox hardware erc: needs SKiDL: pip install skidl", file=sys.stderr)
            return 2
        for line in messages:
            print(f"erc: {line}")
        print("erc: FAIL" if messages else "erc: PASS (SKiDL's ERC: no warning, no error)")
        return 1 if messages else 0
    for line in wiring.budget(pad_map):
        print(line)
    problems = wiring.check(pad_map)
    for problem in problems:
        print(f"problem: {problem}")
    if not problems:
        print("fits: every pad and light has a pin of its own")
    return 1 if problems else 0
