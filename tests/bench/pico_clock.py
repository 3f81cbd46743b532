"""Where the emulated Pico's 2 ms comes from (issue 36, item 4): `doctor --fairness`
on the real firmware in rp2040js, every pulse traced on one clock, the emulated one
(tests/firmware/emutrace.py): when the host asked for the test line's fall, when the
emulator applied it, the board's stamp of the edge, the host's mapped time; and
every SYNC round trip: when the host wrote its "\\n", when that reached the board, the
board's stamp, when the answer left, when the host read it (the board's hold, and what
is left of it in the host's midpoint).

    python tests/bench/pico_clock.py [--pulses 10] [--wire]

`--wire`: the host pulses the board's sync wire too (its clock mapped by the wire,
not by SYNC round trips). Needs what `bash tests/check` installs (node, `npm ci` in
tests/firmware/emu, littlefs-python); about a minute (emulated time runs at 0.03x).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout: tests.*

from buzzerbox.pads.padmap import parse_pad_map

from tests.firmware import emutrace
from tests.firmware.emulator import RATIO, PicoEmulator


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pulses", type=int, default=10)
    parser.add_argument("--wire", action="store_true")

    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        emu = PicoEmulator(Path(tmp), clock=True)
        try:
            wall = time.monotonic()
            emu.boot()
            pad_map = parse_pad_map(emutrace.pad_map_text(wire=args.wire))
            trace = emutrace.run(emu, pad_map, args.pulses, wire=args.wire)
            # what a host on RATIO x wall time (the harness before) took for the emulated
            # clock: its offset at each pin the emulator set moves when the emulator slips
            drift = [round(RATIO * p.w) - p.t for p in emu.pins]
        finally:
            emu.close()
    print("\n".join(emutrace.table(trace)))
    print("\n".join(trace.report.lines()))
    held = [s.held for s in trace.syncs]
    late = [p.mapped - p.applied for p in trace.pulses]
    if held and late:
        print(
            f"median: SYNC held {emutrace.median(held):.0f} µs (half: "
            f"{emutrace.median(held) / 2:.0f}); mapped - applied {emutrace.median(late):.0f} µs"
        )
    if drift:
        print(
            f"RATIO x wall minus emulated time over {len(drift)} pin changes: moved by "
            f"{max(drift) - min(drift)} µs (a host on that clock is off by as much)"
        )
    print(f"wall time {time.monotonic() - wall:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
