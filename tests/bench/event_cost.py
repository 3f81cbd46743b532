"""The fixed server CPU of one pad event, in-process, and where it goes.

    python3 tests/bench/event_cost.py [--events 400] [--data DIR] [--sync behind|commit]
                                      [--repeat 3] [--profile]

A `Box` with its SQLite log on the real disk and the web app's live stream (its
`StateView`: the public state, the delta, one message for every phone) plays a
4-player Ligretto Twist round; pad edges (presses and releases of pile pads, in turn)
come in as a pad board's do (`Box.pad_edge`). The log is `buzzerbox serve`'s: WAL,
synced behind its commits by its own thread (`--sync behind`, store/behind.py; the
event waits for that fsync up to 20 ms); `--sync commit` is synchronous=FULL, the
fsync in the commit. It prints, per event, the median of `--repeat` runs of the CPU
of the whole process (the fsync thread's included) and of the thread playing, the
wall time (the fsync's wait included), the delta's size, and the CPU of each part on
the playing thread (thread time, timed around each call in a run of its own): the
rules applying the event, the log's append, the state object, the view, the delta and
the stream's message; `--profile` adds cProfile's top functions (its overhead falls on
Python's calls, not C's: shares, not times). What the pads layer adds in a real serve
(the board's line, the arbiter, the pad feed's thread) is not here: tests/bench/
footprint.py's `--figures event` gives each thread's share there. No phone is
connected: the per-phone cost is tests/bench/phones.py's. Goal: <= 1 ms of CPU per
event (the whole serve's).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import platformdirs
from buzzerbox.box import Box
from buzzerbox.box import core as box_core
from buzzerbox.box.checks import table_entry
from buzzerbox.live import livestate
from buzzerbox.pads.fakes.edges import pad_edge
from buzzerbox.pads.padmap import parse_pad_map
from buzzerbox.rules import engine as rules_engine
from buzzerbox.store import eventlog
from buzzerbox.store.eventlog import EventLog
from buzzerbox.testing import ManualClock
from buzzerbox.web import create_app

GOAL_MS = 1.0
PAD_MAP = "seats = 4\npiles = 4\n" + "".join(
    f'[[pad]]\nid = "s{s}p{p}"\nrole = "pile"\nseat = {s}\npile = {p}\ngpio = {2 + 4 * s + p}\n'
    for s in range(4)
    for p in range(4)
)
#: the parts timed: (label, the object, its function's name); nested ones are in theirs
PARTS = [
    ("the rules apply the event", rules_engine.Engine, "apply"),
    ("the log's append (SQLite; its fsync's wait is no CPU)", eventlog.EventLog, "append"),
    (
        "after it: the state, the lit pads, the live stream (view, delta, message)",
        box_core.Box,
        "_changed",
    ),
    ("  of it the state object (the rules' to_json, the box's part)", box_core.Box, "state"),
    ("  of it the delta", livestate, "diff"),
    ("  of it the delta's JSON", livestate, "dumps"),
]


@contextmanager
def timed(spent: Counter[str]) -> Iterator[None]:
    """Each of PARTS timed on the calling thread (thread time, ns) into `spent`."""
    saved = [(owner, name, getattr(owner, name)) for _, owner, name in PARTS]
    for (label, owner, name), (_, _, fn) in zip(PARTS, saved, strict=True):
        setattr(owner, name, _timer(fn, label, spent))
    try:
        yield
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)


def _timer(fn: Callable[..., object], label: str, spent: Counter[str]) -> Callable[..., object]:
    def call(*args: object, **kwargs: object) -> object:
        t = time.thread_time_ns()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[label] += time.thread_time_ns() - t

    return call


def game(folder: Path, sync: str = "behind") -> tuple[Box, ManualClock, object]:
    clock = ManualClock()
    log = EventLog(folder / "buzzerbox.db", sync="behind" if sync == "behind" else "commit")
    box = Box(log, clock=clock, pads=parse_pad_map(PAD_MAP))
    app = create_app(box, {"SECRET_KEY": b"k" * 32, "URLS": ["http://box.local/"]})
    box.new_game({"game": "twist", "players": ["Ann", "Ben", "Cem", "Dan"]})
    box.submit(table_entry({"type": "round"}))
    clock.advance(box.countdown_us)
    assert box.state()["phase"] == "playing"
    return box, clock, app.extensions["buzzerbox"]["live"]


def play(box: Box, clock: ManualClock, start: int, n: int) -> None:
    for i in range(start, start + n):
        clock.advance(5_000)
        seat, pile = (i // 2) % 4, (i // 8) % 4
        box.pad_edge(pad_edge(f"s{seat}p{pile}", i % 2 == 0, clock.now))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", default=platformdirs.user_cache_dir("buzzerbox-bench"))
    parser.add_argument("--sync", choices=["behind", "commit"], default="behind")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    Path(args.data).mkdir(parents=True, exist_ok=True)
    print(f"# python {sys.version.split()[0]} ({platform.python_implementation()}), "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; log in {args.data} "
          f"(sync={args.sync})")  # fmt: skip
    n = args.events
    with tempfile.TemporaryDirectory(dir=args.data) as tmp:
        box, clock, hub = game(Path(tmp), args.sync)
        play(box, clock, 0, 40)  # warm
        at = 40
        runs: list[tuple[float, float, float]] = []
        for _ in range(args.repeat):
            seq = box.seq
            p0, c0, w0 = time.process_time(), time.thread_time(), time.perf_counter()
            play(box, clock, at, n)
            box.log.wait_durable(box.seq, 5.0)  # the last fsync's CPU in the span
            runs.append((time.process_time() - p0, time.thread_time() - c0,
                         time.perf_counter() - w0))  # fmt: skip
            assert box.seq == seq + n, "an edge was refused"
            at += n
        process_ms, thread_ms, wall_ms = (
            statistics.median(r[i] for r in runs) * 1000 / n for i in range(3)
        )
        sizes = [len(m) for _, m in list(hub._ring)[-32:]]  # type: ignore[attr-defined]
        verdict = "meets" if process_ms <= GOAL_MS else "misses"
        print(f"CPU per pad event {process_ms:.3f} ms, the process's (goal <= {GOAL_MS} ms, "
              f"with no pads layer: {verdict}; runs "
              f"{', '.join(f'{r[0] * 1000 / n:.3f}' for r in runs)}); "
              f"the thread playing {thread_ms:.3f} ms; wall {wall_ms:.3f} ms "
              f"(the fsync's wait included); delta {min(sizes)}-{max(sizes)} B")  # fmt: skip
        spent: Counter[str] = Counter()
        with timed(spent):
            play(box, clock, at, n)
        at += n
        for label, _, _ in PARTS:
            print(f"  {label}: {spent[label] / n / 1e3:.0f} µs")
        if args.profile:
            profile = cProfile.Profile(time.thread_time)  # CPU, not the fsync's wait
            profile.runcall(play, box, clock, at, n)
            pstats.Stats(profile).sort_stats("tottime").print_stats(20)
        box.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
