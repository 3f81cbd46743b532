"""What a server process has used so far, from /proc (Linux): its CPU time, its peak
memory, and the CPU of the threads that write the phones' sockets (tests/bench/phones.py)."""

from __future__ import annotations

import os
from pathlib import Path

FANOUT = "bb-fanout"  # live/fanout.py's THREAD_NAME: its threads are bb-fanout-1, ...


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory so far (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def cpu_s(pid: int) -> float:
    """The process's CPU time so far (user + system, all threads), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fanout_cpu_s(pid: int) -> tuple[float, float]:
    """(user, system) CPU time so far of the server's fanout threads (those that write
    the phones' sockets: live/fanout.py names them bb-fanout-1, ...), summed, in seconds;
    (0, 0) before they run."""
    user = system = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            if not (task / "comm").read_text().startswith(FANOUT):
                continue
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        user, system = user + int(fields[11]), system + int(fields[12])
    tick = os.sysconf("SC_CLK_TCK")
    return user / tick, system / tick


def sender_cpu(pid: int, limit: bool) -> tuple[float, int]:
    """(on-CPU seconds, context switches) so far of the threads that write the phones'
    sockets, summed: the box's fanout threads (bb-fanout-1, ...), or every thread of the
    limit server (it has one). From /proc/<pid>/task/<tid>/schedstat, the scheduler's own
    count in ns (not /proc's stat, sampled in 10 ms ticks, whose split into user and
    system time follows where the tick fell)."""
    ns = switches = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            if not limit and not (task / "comm").read_text().startswith(FANOUT):
                continue
            on_cpu, _, slices = (task / "schedstat").read_text().split()
        except (OSError, ValueError):
            continue
        ns, switches = ns + int(on_cpu), switches + int(slices)
    return ns / 1e9, switches
