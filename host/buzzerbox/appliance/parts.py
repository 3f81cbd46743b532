"""The parts a pad map implies: how many of each counted part a build needs.

A build's parts list (`parts.csv`) is written by hand (what to buy, examples,
notes), but every quantity that follows from the pad map is counted here and
rewritten by `buzzerbox hardware docs`, so that the list cannot drift from the
map: entry and series resistors, pull-ups, ESD arrays, connectors at both ends of
every pad cable, fuses, lamp drivers, sync-wire and test-line parts. PURE: no I/O.

Every lamp has its own driver (an AO3400A N-MOSFET on a SOT-23-6 adapter, with a
100 Ω gate resistor and a 100 kΩ gate pull-down), and its own +5 V wire in the
cable fed through its own resettable fuse (MF-R010) and 82 Ω feed resistor
(hardware/pads.md, "Lamps"; circuit.py draws the same parts).

Cables: a pile pad has one cable for its zones (pile cables carry no power:
RJ45). Every other pad shares one cable per seat and controller with the
seat's other pads there; a cable that carries a lamp's +5 V (one fused wire
per lamp, fused at the controller) has GX16 aviation connectors, which no RJ45 plug fits,
so a pile pad can never be plugged into a jack with 5 V on it.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass

from buzzerbox.appliance import wiring
from buzzerbox.pads.padmap import Pad, PadMap

ESD_LINES = 4
"""Lines per ESD array (TPD4E001DBV)."""


@dataclass(frozen=True, slots=True)
class Cable:
    """One pad cable: from `controller` (``"pi"`` or a board's name) to its pads."""

    controller: str
    pads: tuple[Pad, ...]

    @property
    def is_pile(self) -> bool:
        return self.pads[0].role == "pile"

    @property
    def has_5v(self) -> bool:
        """Whether it carries a lamp's +5 V."""
        return any(p.light != "-" for p in self.pads)


def cables(pad_map: PadMap) -> list[Cable]:
    """Every pad cable: one per pile (and controller), one per seat (and controller)."""
    groups: dict[tuple[str, str, int], list[Pad]] = {}
    for pad in pad_map.pads:
        controller = wiring.PI if pad.is_gpio else pad_map.board_name(pad.board)
        key = ("pile", pad.pile) if pad.pile is not None else ("seat", pad.seat)
        groups.setdefault((controller, *key), []).append(pad)
    return [Cable(key[0], tuple(pads)) for key, pads in groups.items()]


def quantities(pad_map: PadMap) -> dict[str, int]:
    """The counted parts, by the item names the builds' parts.csv use."""
    all_wires = wiring.wires(pad_map)
    inputs = Counter(w.controller for w in all_wires if w.kind == "input")
    lights = Counter(w.controller for w in all_wires if w.kind == "light")
    syncs = sum(1 for w in all_wires if w.kind == "sync" and w.controller != wiring.PI)
    test = [w for w in all_wires if w.kind == "test" and not w.is_out]
    test_boards = sum(1 for w in test if w.controller != wiring.PI)
    roles = Counter(p.role for p in pad_map.pads)
    all_cables = cables(pad_map)
    powered = sum(1 for c in all_cables if c.has_5v)
    plain = len(all_cables) - powered
    boards = len(pad_map.boards)
    lamps = sum(lights.values())
    esd = sum(-(-n // ESD_LINES) for n in inputs.values())
    return {
        "pico": boards,
        "usb": boards,
        "slap": roles["slap"],
        "stop": roles["stop"],
        "pile": pad_map.piles,
        "plate": pad_map.piles,
        "tape": roles["pile"],
        "pullup": sum(inputs.values()) + syncs + test_boards,
        "entry": sum(inputs.values()),
        "series": sum(inputs.values()),
        "esd": esd,
        "esd-cap": esd,
        "mosfet": lamps,
        "sot-adapter": lamps + esd,
        "gate-r": lamps,
        "gate-pulldown": lamps,
        "feed-r": lamps,
        "fuse": lamps,
        "jack": 2 * plain,
        "gx-socket": 2 * powered,
        "gx-plug": 2 * powered,
        "cable-pile": sum(1 for c in all_cables if c.is_pile),
        "cable-pad": sum(1 for c in all_cables if not c.is_pile),
        "sync-r": syncs,
        "sync-cable": syncs,
        "sync-terminal": 2 * syncs,
        "test-r": len(test),
    }


NEW_ROWS = {
    "test-r": (
        "resistor 330 Ω 0.25 W",
        "Yageo MFR-25FBF52-330R (1 % metal film; any 0.25 W resistor of this value)",
        "the self-test line (hardware/self-test.md): one per branch, at the Pi (a star): "
        "to each board's test input and to the Pi's own test input",
    ),
}
"""Rows a map can need that a build's list may lack: added when the map counts them."""


def rewrite(parts_csv: str, pad_map: PadMap) -> str:
    """`parts_csv` with every counted quantity set from the pad map, and a row added for
    a part the map needs that the list lacks (`NEW_ROWS`); the rest as it is."""
    counted = quantities(pad_map)
    rows = list(csv.reader(io.StringIO(parts_csv)))
    if not rows or rows[0][:2] != ["item", "quantity"]:
        raise ValueError("a parts list starts with the header item,quantity,part,example,note")
    for row in rows[1:]:
        if row and row[0] in counted:
            row[1] = str(counted[row[0]])
    have = {row[0] for row in rows[1:] if row}
    for item, (part, example, note) in NEW_ROWS.items():
        if counted[item] and item not in have:
            rows.append([item, str(counted[item]), part, example, note])
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()
