"""Power cuts (issue 43, item 4): qemu killed, its disk opened without this machine's
cache (vm.py: cache=none), so what the guest had not flushed to its disk is gone, as
when a Pi's plug is pulled. The box must always come back, and nothing it answered as
saved may be lost (powercut.py says how each is checked).

test_booted cut the first second of the box's first start at the VM's first boot, and
a table's play; here more moments of a first start (the box's data folder removed, the
box started: the same first start without the boot around it), timed from its log
file's appearing (guest/log-made.path, by inotify in the VM), then more cuts at random
moments of a table's play. BUZZERBOX_POWER_CUTS=N adds N of each (a longer run, by
hand: tests/bench/README.md has its figures).
"""

from __future__ import annotations

import os
import random

import pytest

from .powercut import Appliance

pytestmark = [pytest.mark.realstack, pytest.mark.timeout(7200)]

MORE = int(os.environ.get("BUZZERBOX_POWER_CUTS", "0"))
SEED = 4304
FIRST_START_CUTS_MS = [40, *random.Random(SEED).sample(range(0, 1000, 10), MORE)]


@pytest.mark.parametrize("delay_ms", FIRST_START_CUTS_MS)
def test_a_cut_in_the_first_second_of_a_first_start(appliance: Appliance, delay_ms: int) -> None:
    appliance.first_start_cut(delay_ms)


@pytest.mark.parametrize("n", range(MORE))
def test_a_cut_while_a_table_plays(appliance: Appliance, n: int) -> None:
    rng = random.Random(SEED + n)
    play = appliance.play_cut(rng, rng.uniform(5, 60))
    assert play.answers > 0
