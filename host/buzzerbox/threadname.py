"""A thread's name in the system's lists (`top -H`, `ps -L`, /proc/<pid>/task/*/comm),
so that the box's threads can be told apart there (tests/bench/footprint.py counts each
one's wake-ups and CPU by it). Python gives its threads a name only in Python."""

from __future__ import annotations

import threading


def name_thread(name: str) -> None:
    """Give the calling thread `name` (15 characters at most) in the system's lists too
    (Linux; elsewhere nothing)."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/comm", "w") as comm:
            comm.write(name[:15])
    except OSError:
        pass
