"""The pad board firmware's timing on the real MicroPython build for the Pico,
run in rp2040js (tests/firmware/emu/): the v1.1 promises, in emulated time.

- SYNC stamp latency: the board's stamp minus the emulated moment the SYNC
  line's "\\n" reached it (the runner knows it), over `--syncs` SYNCs sent
  `--gap-ms` apart to an idle board; goal p95 <= 50 us.
- EDGE latency: from the contact (a pad driven at a known emulated time) to the
  moment its EDGE line left the board, over `--presses` single presses; goal
  <= 1 ms.
- edges/s without LOST: `--rates` edges/s round 23 pads for `--seconds` each:
  edges sent, LOST, the EDGE latency under that load (and apart, that of the
  pads still pressed at the end, released at one instant) and the widest TICK
  gap; goal 2,000/s for 2 s with LOST 0.

    python tests/bench/firmware.py [--syncs 40] [--presses 20] [--rates 1000 2000] [--seconds 2]

Needs what `bash tests/check` installs (node, `npm ci` in tests/firmware/emu,
littlefs-python). Emulated time runs uncapped (no host clock is involved), at
~0.1-0.2x real time: about two minutes with the defaults.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout: tests.*

from tests.firmware import emuscenes as sc
from tests.firmware.emulator import PicoEmulator


def spread(values: list[int]) -> str:
    v = sorted(values)
    p95 = v[min(len(v) - 1, round(0.95 * (len(v) - 1)))]
    return f"min {v[0]}  p50 {statistics.median(v):.0f}  p95 {p95}  max {v[-1]}  (n={len(v)})"


def edge_latencies(emu: PicoEmulator, presses: int) -> list[int]:
    offset = sc.calibrate(emu)
    got = []
    for i in range(presses):
        gpio = sc.PAD_GPIOS[i % 20]
        since = len(emu.lines)
        base = emu.drive([(0, gpio, 0), (8_000, gpio, None)], after=3_000 + 137 * i)
        emu.wait("in", "EDGE", sc.TIMEOUT, since)
        edge = sc.edges(emu.lines[since:])[0]
        got.append(edge.sent - (edge.t + offset))
        assert abs(edge.t + offset - base) <= 1, "the stamp is not the contact"
        sc.wait_tick(emu, edge.t + 20_000)
    return got


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--syncs", type=int, default=40)
    parser.add_argument("--gap-ms", type=int, default=12)
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--rates", type=int, nargs="+", default=[1000, 2000])
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        emu = PicoEmulator(Path(tmp))
        try:
            wall = time.monotonic()
            emu.boot()
            emu.ratio(0)
            print(f"booted MicroPython v1.28.0 + firmware/ in {time.monotonic() - wall:.1f} s wall")
            host = sc.HostSocket(emu)
            try:
                sync = sc.sync_latencies(emu, host, args.syncs, args.gap_ms * 1000)
            finally:
                host.close()
            print(f"SYNC stamp latency, us (goal p95 <= 50):  {spread(sync)}")
            edge = edge_latencies(emu, args.presses)
            print(f"EDGE latency at idle, us (goal <= 1000):  {spread(edge)}")
            offset = sc.calibrate(emu)
            for rate in args.rates:
                n, lines, edges = sc.train(emu, rate, args.seconds)
                lost = sum(int(x.fields[2]) for x in lines if x.text.startswith("LOST"))
                ticks = [int(x.fields[2]) for x in lines if x.text.startswith("TICK")]
                # the train ends with the pads still pressed released at one instant
                end = max(e.t for e in edges) if edges else 0
                burst = [e.sent - (e.t + offset) for e in edges if e.t == end]
                late = [e.sent - (e.t + offset) for e in edges if e.t != end]
                print(
                    f"{rate} edges/s for {args.seconds} s: {len(edges)}/{n} EDGEs sent, "
                    f"LOST {lost}, widest TICK gap {max(b - a for a, b in pairwise(ticks))} us; "
                    f"EDGE latency us {spread(late) if late else '-'}; then {len(burst)} pads "
                    f"released at one instant: out after {min(burst, default=0)}-"
                    f"{max(burst, default=0)} us"
                )
            print(f"wall time {time.monotonic() - wall:.0f} s")
        finally:
            emu.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
