"""A Pi's CPU and memory for the box under bench: one core, a CPU quota, a memory limit.

`Confinement` makes a cgroup (v1, as on this VM: /sys/fs/cgroup/cpu and /memory, whose
cgroup2 mount has no controllers; systemd-run needs a running systemd), pins the
box to one CPU (sched_setaffinity, as `taskset -c`) and puts it in the group from its
own process before it execs (`preexec`), so every thread it starts is confined. Needs
root. Used by tests/bench/phones.py's `--confine`.

What a quota models and what it does not: `quota` of one core in every `period` is
one core that gets `quota/period` of this VM's CPU time, in slices: within a slice it
runs at this VM's speed, then it waits for the next period. A Pi core is slower all
the time instead, and its caches, memory bandwidth and branch prediction are not this
VM's (an in-order Cortex-A53 loses more on interpreted Python than on a benchmark
score). The short period (5-10 ms) keeps the slices short against the latencies
measured. A Pi's other 3 cores are not modelled: the kernel's part of the sends, which
runs without the GIL, would get them there; here it shares the one quota'd core.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

V1 = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class Pi:
    """A Pi as a share of one of this VM's cores (r: how much slower per core)."""

    name: str
    r: float  # tests/bench/README.md's ratio model
    period_us: int

    @property
    def quota_us(self) -> int:
        return round(self.period_us / self.r)


PIS = {
    "pi4": Pi("Pi 4", 5.0, 5_000),  # 1 ms of CPU every 5 ms
    "zero2w": Pi("Pi Zero 2 W", 10.0, 10_000),  # 1 ms every 10 ms (v1's least quota: 1 ms)
}


class Confinement:
    """One cgroup for the box: a CPU quota on one CPU, and a memory limit."""

    def __init__(self, pi: Pi | None, memory_mb: int | None, name: str = "bb-bench") -> None:
        self.pi, self.memory_mb = pi, memory_mb
        self.name = f"{name}-{os.getpid()}"
        self.dirs: list[Path] = []
        if pi is not None:
            self._make("cpu", {"cpu.cfs_period_us": pi.period_us, "cpu.cfs_quota_us": pi.quota_us})
        if memory_mb is not None:
            limit = memory_mb * 1024 * 1024
            self._make("memory", {"memory.limit_in_bytes": limit})

    def _make(self, controller: str, settings: dict[str, int]) -> None:
        folder = V1 / controller / self.name
        if not (V1 / controller / "tasks").exists():
            raise SystemExit(f"FAIL: no cgroup v1 {controller} controller here (needs root)")
        folder.mkdir(exist_ok=True)
        for key, value in settings.items():
            (folder / key).write_text(str(value))
        self.dirs.append(folder)

    def preexec(self) -> None:
        """In the box's process, before it execs: one CPU, and into the groups."""
        if self.pi is not None:
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        for folder in self.dirs:
            (folder / "cgroup.procs").write_text(str(os.getpid()))

    def peak_mb(self) -> float | None:
        """The group's peak memory use (the box's RSS and its page cache), MB."""
        for folder in self.dirs:
            peak = folder / "memory.max_usage_in_bytes"
            if peak.exists():
                return int(peak.read_text()) / 1024 / 1024
        return None

    def throttled_s(self) -> float | None:
        """How long the quota held the box back, in all (cpu.stat's throttled_time)."""
        for folder in self.dirs:
            stat = folder / "cpu.stat"
            if stat.exists():
                for line in stat.read_text().splitlines():
                    key, value = line.split()
                    if key == "throttled_time":
                        return int(value) / 1e9
        return None

    def describe(self) -> str:
        parts = []
        if self.pi is not None:
            p = self.pi
            parts.append(f"{p.name}: 1 CPU, {p.quota_us} of every {p.period_us} µs (1/{p.r:g})")
        if self.memory_mb is not None:
            parts.append(f"memory {self.memory_mb} MB")
        return ", ".join(parts) or "none"

    def close(self) -> None:
        for folder in self.dirs:
            with contextlib.suppress(OSError):
                folder.rmdir()  # empty once the box has ended
