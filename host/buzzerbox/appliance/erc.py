"""The electrical-rules check of a netlist (netlist.py), by SKiDL's ERC.

Each part becomes a SKiDL part of its own (no KiCad library needed) with its pins'
types, each net a SKiDL net, and SKiDL's ERC (skidl.erc: unconnected pins, a pin
marked not connected that is, pins whose types conflict, a power input or an input
on a net nothing drives) says what is wrong, in its words. Nothing of ours decides
what passes: the messages are SKiDL's.

SKiDL is a test tool here (tests/check installs it, `pip install skidl` for a maker
who wants `buzzerbox hardware erc`); the box never imports this module.
"""

from __future__ import annotations

import io
import logging
from typing import Any

from buzzerbox.appliance.netlist import Netlist

_TYPES = {
    "input": "INPUT",
    "output": "OUTPUT",
    "passive": "PASSIVE",
    "pwrin": "PWRIN",
    "pwrout": "PWROUT",
    "nc": "NOCONNECT",
}


def run(net: Netlist) -> list[str]:
    """SKiDL's ERC messages for `net` (warnings and errors); empty when it passes."""
    import skidl

    sk: Any = skidl
    circuit = sk.Circuit()
    circuit.no_files = True
    templates: dict[tuple[str, tuple[tuple[int, str, str], ...]], Any] = {}
    parts: dict[str, Any] = {}
    for ref, part in net.parts.items():
        sig = tuple((p.num, p.name, p.type) for p in part.pins.values())
        key = (part.kind, sig)
        if key not in templates:
            pins = [
                sk.Pin(num=p.num, name=p.name, func=getattr(sk.Pin.types, _TYPES[p.type]))
                for p in part.pins.values()
            ]
            templates[key] = sk.Part(
                tool=sk.SKIDL, name=part.kind, dest=sk.TEMPLATE, pins=pins, circuit=circuit
            )
        parts[ref] = templates[key](ref=ref, value=part.value, circuit=circuit)
    for name, nodes in net.nets.items():
        n = sk.Net(name, circuit=circuit)
        for ref, pin in nodes:
            n += parts[ref][pin]
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setLevel(logging.WARNING)
    logger = sk.erc_logger
    saved = logger.handlers[:]
    for h in saved:
        logger.removeHandler(h)
    logger.addHandler(handler)
    try:
        circuit.ERC()
    finally:
        logger.removeHandler(handler)
        for h in saved:
            logger.addHandler(h)
    return [line for line in out.getvalue().splitlines() if line.strip()]
