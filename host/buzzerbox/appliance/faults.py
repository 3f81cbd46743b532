"""What every single fault of a cable draws, worked out from the netlist's values. PURE.

A cable's fault is two of its pins shorted (a crushed cable, a stray strand, a plug
soldered mirrored: each wire that lands on another's pin is such a short). For each
pair of a connector's pins, the worst case at the controller:

- from +5 V: 5 V over the least resistance from a 5 V rail to one pin plus the least
  from the other pin to GND (a pressed pad and a lit lamp count as 0 Ω, a fuse at its
  lowest);
- into 3V3: when one pin reaches +5 V and the other an ESD array's line, the array's
  diode to VCC clamps the node: (5.0 - 3.3 - 0.6) V over the resistance between;
- into a pin: the same, through the resistance to the controller's pin (its own
  clamp diode).

`bounds()` gives each fault's three currents; hardware/pads.md quotes the largest and
tests/hardware/test_faults.py holds them. Arithmetic from the parts' values, not a
measurement.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from itertools import combinations

from buzzerbox.appliance.netlist import GND, Netlist

V5, V33, VF = 5.0, 3.3, 0.6
"""The lamp supply, the logic rail, the least forward drop of a clamp diode (V)."""


@dataclass(frozen=True, slots=True)
class Fault:
    connector: str
    pins: tuple[int, int]
    from_5v_ma: float
    into_3v3_ma: float
    into_pin_ma: float


def _is_rail(name: str) -> bool:
    return name == GND or name.startswith(("5V_", "3V3_"))


def _edges(net: Netlist) -> dict[str, list[tuple[str, float]]]:
    """Net -> (net, ohms) through every part that can carry a fault's current."""
    graph: dict[str, list[tuple[str, float]]] = {}
    for ref, part in net.parts.items():
        ends: list[tuple[int, int, float]] = []
        if part.kind in ("R", "F") and part.ohms is not None:
            ends.append((1, 2, part.ohms[0]))
        elif part.kind in ("LAMP", "PAD"):
            ends.append((1, 2, 0.0))
        elif part.kind.startswith("AO3400A"):
            ends.append((3, 5, 0.0))  # S-D, switched on
        for a, b, ohms in ends:
            na, nb = net.net_of(ref, a), net.net_of(ref, b)
            if na is None or nb is None:
                continue
            graph.setdefault(na, []).append((nb, ohms))
            graph.setdefault(nb, []).append((na, ohms))
    return graph


def _least(graph: dict[str, list[tuple[str, float]]], start: str, goal: set[str]) -> float:
    """The least resistance from `start` to any net of `goal`, not through a rail."""
    if _is_rail(start):
        return 0.0 if start in goal else float("inf")
    best = {start: 0.0}
    todo = [(0.0, start)]
    while todo:
        r, n = heapq.heappop(todo)
        if n in goal:
            return r
        if r > best.get(n, float("inf")) or _is_rail(n):
            continue
        for m, ohms in graph.get(n, ()):
            if r + ohms < best.get(m, float("inf")):
                best[m] = r + ohms
                heapq.heappush(todo, (r + ohms, m))
    return float("inf")


def bounds(net: Netlist) -> list[Fault]:
    """Every pair of pins of every cable connector, and what its short draws."""
    graph = _edges(net)
    fives = {n for n in net.nets if n.startswith("5V_")}
    clamps = {net.net_of(ref, pin) for ref, part in net.parts.items()
              for pin, d in part.pins.items()
              if part.kind == "TPD4E001DBV" and d.name.startswith("IO")}  # fmt: skip
    pins_in = {net.net_of(ref, pin) for ref, part in net.parts.items()
               for pin, d in part.pins.items()
               if part.kind in ("PI", "PICO") and d.type == "input"}  # fmt: skip
    out: list[Fault] = []
    for ref, part in net.parts.items():
        if part.kind != "CONN":
            continue
        used = [(p, net.net_of(ref, p)) for p, d in part.pins.items() if d.type != "nc"]
        for (pa, na), (pb, nb) in combinations(used, 2):
            if na is None or nb is None:
                continue
            worst = (0.0, 0.0, 0.0)
            for x, y in ((na, nb), (nb, na)):
                to5 = _least(graph, x, fives)
                i5 = V5 / (to5 + _least(graph, y, {GND})) if fives else 0.0
                ic = (V5 - V33 - VF) / (to5 + _least(graph, y, {c for c in clamps if c}))
                ip = (V5 - V33 - VF) / (to5 + _least(graph, y, {c for c in pins_in if c}))
                worst = (max(worst[0], i5), max(worst[1], ic), max(worst[2], ip))
            ma = tuple(1e3 * v if v != float("inf") else float("inf") for v in worst)
            out.append(Fault(f"{ref} {part.value}", (pa, pb), *ma))
    return out
