"""Power cuts at many moments (issue 43, item 4), in the real-stack tier's VM.

The tier (tests/realstack/test_booted.py) cuts twice: in the first second of the box's
first start at the VM's first boot, and while a table plays. This cuts more often, on
one VM booted from the tier's cached installed disk (tests/realstack/images.py builds
it if it is not there): `--first-start N` cuts of a first start (the box's data folder
removed, the box started, the power cut 0-1000 ms after its log file appeared), then
`--playing N` cuts at random moments (5-60 s) of a table's play. Each cut is qemu
killed with its disk opened without this machine's cache (vm.py: cache=none); each is
followed by a boot that must bring the box back by itself, with the same PIN, every
event it had answered as saved still in its log unchanged, and no trouble in its
journal (tests/realstack/powercut.py), or the run stops there with the reason.

    .venv/bin/python tests/bench/powercuts.py --first-start 5 --playing 5 [--seed 4304]

Prints a line per cut and the totals: cuts, boots back, events answered as saved and
kept. A boot costs 1-5 minutes of software emulation here (its load).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout: tests.*

from tests.realstack.appliance import new_vm
from tests.realstack.images import installed_box, installed_pin
from tests.realstack.powercut import Appliance


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--first-start", type=int, default=3, help="cuts of a first start")
    parser.add_argument("--playing", type=int, default=3, help="cuts while a table plays")
    parser.add_argument("--seed", type=int, default=4304)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="buzzerbox-powercuts-"))
    appliance = Appliance(new_vm(installed_box(), folder), installed_pin())
    print(f"the VM's files (its console log): {folder}", flush=True)
    start = time.monotonic()
    try:
        for _ in range(args.first_start):
            delay_ms = rng.randrange(0, 1000, 10)
            t0 = time.monotonic()
            appliance.first_start_cut(delay_ms)
            print(f"{appliance.cuts[-1]}: back ({time.monotonic() - t0:.0f} s)", flush=True)
        for _ in range(args.playing):
            t0 = time.monotonic()
            play = appliance.play_cut(rng, rng.uniform(5, 60))
            print(
                f"{appliance.cuts[-1]}: back with the {appliance.saved} events answered as "
                f"saved ({time.monotonic() - t0:.0f} s)",
                flush=True,
            )
            assert play.answers > 0, "the table had no answer before the cut"
    finally:
        appliance.vm.cut()
    print(
        f"{len(appliance.cuts)} cuts, {appliance.vm.boots} boots, the box back after every "
        f"cut; {appliance.saved} events answered as saved, all kept; "
        f"{time.monotonic() - start:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
