"""The one-send limit server (limit.c) for tests/bench/phones.py --mode limit: built
with the system's cc, started, and told when to send each event (a line on its stdin,
at the schedule's time; the latency counts from then)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

SOURCE = Path(__file__).with_name("limit.c")


def start_limit(folder: Path, preexec: Any = None) -> tuple[Any, int]:
    """The limit server, built into `folder` and started: (process, port)."""
    binary = folder / "limit"
    subprocess.run(["cc", "-O2", "-o", str(binary), str(SOURCE)], check=True)
    proc = subprocess.Popen(
        [str(binary), "0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=preexec,
    )
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


def limit_events(proc: Any, n: int, rate: float) -> list[tuple[int, float]]:
    """n events at `rate`/s on a fixed schedule: [(seq, scheduled time)]."""
    out = []
    start = time.monotonic() + 0.05
    for i in range(n):
        due = start + i / rate
        if (wait := due - time.monotonic()) > 0:
            time.sleep(wait)
        proc.stdin.write(f"{i + 1}\n")
        proc.stdin.flush()
        out.append((i + 1, due))
    return out
