"""How fast a press at a table reaches the event's leaderboard: N boxes, one hub.

Starts a mosquitto of its own (loopback, a free port), a real `buzzerbox hub`
(a subprocess) and one live stream to it (the TV: SSE, read by this process). The
boxes run in `--workers` processes (each box a `Box` with its SQLite log and its
`Publisher`, as `buzzerbox serve --mqtt` runs them); every table plays Ligretto
Kids (3 rounds, then a new game): every `--interval` s a round, the start signal
after a 20 ms countdown, a stop press after a random reaction, the cards left. For every stop
press it takes the time from just before `box.press()` to the moment the hub's
stream delivers that table with the press's log seq (time.monotonic, one clock for
every process), and prints p50, p95, p99 and max per table count, and the CPU per
race (user + system) of the box processes together, of the hub, of mosquitto and of
this script's own stream reader (the TV): on a shared machine the latencies follow
the load, the CPU per race far less.

    python tests/bench/events.py --tables 100 [--seconds 20] [--interval 1.0]
    python tests/bench/events.py --tables 20 --seconds 10 --profile /tmp/prof

--profile FILE writes cProfile (on CPU time, every thread) of each box process to
FILE.<first table> and of the hub to FILE.hub (read with `python -m pstats`).

The logs go to the real disk (the user's cache folder, as a box's log is on its SD
card; --data DIR for another place, e.g. /dev/shm to leave the disk out): every
press waits for its fsync, shared by all N boxes on one disk. Not collected by
pytest; it prints figures. Loopback only, bounded in count and time.
"""

from __future__ import annotations

import argparse
import bisect
import cProfile
import heapq
import http.client
import json
import os
import pstats
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import platformdirs
from buzzerbox.box.checks import table_entry
from buzzerbox.rules.eventjson import parse_edge

GOAL_P95_MS = 100.0
COUNTDOWN_US = 20_000
WARMUP_S = 2.0
PLAYERS = ["Ann", "Ben", "Cem", "Dan"]


# -- one worker: some of the boxes ----------------------------------------------------


def worker(args: argparse.Namespace) -> int:
    """Play the tables `--first` .. `--first + --count - 1`; print one JSON line per
    stop press: {"box", "seq", "t0"}."""
    from buzzerbox.box import Box
    from buzzerbox.mqtt import attach
    from buzzerbox.store.eventlog import EventLog

    profile = Profiles() if args.profile else None
    rng = random.Random(args.first)
    boxes: list[Box] = []
    publishers = []
    for n in range(args.first, args.first + args.count):
        folder = Path(args.data) / f"t{n:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        box = Box(EventLog(folder / "buzzerbox.db"), countdown_us=COUNTDOWN_US)
        publishers.append(attach(box, args.broker, f"t{n:03d}", folder))
        boxes.append(box)
    for p in publishers:
        p.wait_connected(10)
    cpu0 = os.times()
    start = time.monotonic()
    end = start + args.seconds
    # one race per table every `interval` s: the rounds start on a fixed beat per table
    # (a random phase each), the stop press comes a random reaction after the signal
    beat = {i: start + rng.uniform(0, args.interval) for i in range(len(boxes))}
    due: list[tuple[float, int]] = [(beat[i], i) for i in range(len(boxes))]
    heapq.heapify(due)
    out = []
    while due:
        when, i = heapq.heappop(due)
        if when > end:
            break
        wait = when - time.monotonic()
        if wait > 0:
            time.sleep(wait)  # the schedule of the simulated players
        box = boxes[i]
        phase = box.state()["phase"]
        if phase in ("idle", "finished"):
            box.new_game({"game": "kids", "players": PLAYERS})
            phase = "lobby"
        if phase in ("lobby", "scored"):
            box.submit(table_entry({"type": "round"}))
            beat[i] += args.interval
            reaction = rng.uniform(0.05, min(0.5, args.interval / 2))
            heapq.heappush(due, (time.monotonic() + COUNTDOWN_US / 1e6 + reaction, i))
            continue
        if phase != "playing":  # the start signal is late: try again soon
            heapq.heappush(due, (time.monotonic() + 0.005, i))
            continue
        seat = rng.randrange(len(PLAYERS))
        t0 = time.monotonic()
        box.play(parse_edge(True, seat, "stop", box.now_us()))
        out.append({"box": f"t{i + args.first:03d}", "seq": box.seq, "t0": t0})
        left = {name: 0 if s == seat else rng.randint(1, 30) for s, name in enumerate(PLAYERS)}
        box.submit(table_entry({"type": "left", "counts": left}))
        heapq.heappush(due, (max(beat[i], time.monotonic()), i))
    for p, box in zip(publishers, boxes, strict=True):
        p.wait_published(box.seq, 30)
    cpu1 = os.times()
    for press in out:
        print(json.dumps(press))
    cpu = cpu1.user + cpu1.system - cpu0.user - cpu0.system
    print(json.dumps({"cpu_s": cpu, "races": len(out)}))
    sys.stdout.flush()
    for p, box in zip(publishers, boxes, strict=True):
        p.close()
        box.close()
    if profile is not None:  # every thread has ended: their profiles are complete
        profile.dump(f"{args.profile}.{args.first}")
    return 0


class Profiles:
    """cProfile, on CPU time (time.thread_time), in this thread and in every thread
    started from now on (the publishers' and paho's); `dump` merges them."""

    def __init__(self) -> None:
        self.profiles: list[cProfile.Profile] = []
        self._lock = threading.Lock()
        threading.setprofile(self._begin)
        self._begin()

    def _begin(self, *args: Any) -> None:
        profile = cProfile.Profile(time.thread_time)
        with self._lock:
            self.profiles.append(profile)
        profile.enable()  # replaces this hook in this thread

    def dump(self, path: str) -> None:
        threading.setprofile(None)
        self.profiles[0].disable()
        pstats.Stats(*self.profiles).dump_stats(path)


def hub_profiled(path: str, argv: list[str]) -> int:
    """`buzzerbox hub ARGV`, profiled; SIGTERM ends it as Ctrl-C does, then the dump."""
    import signal

    from buzzerbox.cli import main as buzzerbox

    def interrupt(*args: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    profile = Profiles()
    try:
        return buzzerbox(argv)
    finally:
        profile.dump(path)


# -- the bench: broker, hub, stream, workers --------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_broker(folder: Path) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    config = folder / "mosquitto.conf"
    config.write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 100000\n"
        "log_dest stderr\nlog_type error\nlog_type information\n"
        + ("user root\n" if os.geteuid() == 0 else "")
    )
    mosquitto = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    process = subprocess.Popen(
        [mosquitto, "-c", str(config)], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    )
    assert process.stderr is not None
    for line in process.stderr:
        if " running" in line:
            break
    threading.Thread(target=lambda: [None for _ in process.stderr or []], daemon=True).start()
    return process, f"mqtt://127.0.0.1:{port}"


def start_hub(broker: str, data: Path, profile: str | None) -> tuple[subprocess.Popen[str], int]:
    """`buzzerbox hub` as a venue runs it: with its own record (hub.json) in `data`."""
    command = [sys.executable, "-m", "buzzerbox", "hub", "--broker", broker,
               "--host", "127.0.0.1", "--port", "0", "--name", "bench",
               "--data", str(data)]  # fmt: skip
    if profile:  # the hub in this script, profiled until it is stopped
        command[1:3] = [__file__, "--hub-profile", f"{profile}.hub"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert process.stdout is not None
    for line in process.stdout:
        if found := re.search(r"open http://127\.0\.0\.1:(\d+)/", line):
            return process, int(found.group(1))
    raise SystemExit("buzzerbox hub ended before it printed its address")


class Screen:
    """One live stream from the hub; records when each (table, seq) first arrives."""

    def __init__(self, port: int) -> None:
        self.arrivals: dict[str, list[tuple[int, float]]] = {}
        self.lock = threading.Condition()
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.conn.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        self.ready = threading.Event()
        threading.Thread(target=self.read, daemon=True).start()
        self.ready.wait(10)

    def read(self) -> None:
        event = ""
        for raw in self.response:
            now = time.monotonic()
            line = raw.decode()
            if line.startswith("event: "):
                event = line[7:].strip()
                self.ready.set()
            elif line.startswith("data: ") and event == "table":
                data = json.loads(line[6:])
                if isinstance(data.get("seq"), int):
                    with self.lock:
                        self.arrivals.setdefault(data["box"], []).append((data["seq"], now))
                        self.lock.notify_all()

    def arrival(self, box: str, seq: int) -> float | None:
        seen = self.arrivals.get(box, [])
        i = bisect.bisect_left(seen, (seq, 0.0))
        return seen[i][1] if i < len(seen) else None

    def latency(self, box: str, seq: int, t0: float, timeout: float) -> float | None:
        """Seconds from t0 until the stream had `box` at `seq` or later (waits for it)."""
        with self.lock:
            if self.lock.wait_for(lambda: self.arrival(box, seq) is not None, timeout):
                arrived = self.arrival(box, seq)
                assert arrived is not None
                return arrived - t0
            return None


def cpu_seconds(pid: int) -> float:
    """The CPU (user + system) a process has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(tables: int, args: argparse.Namespace) -> dict[str, Any]:
    Path(args.data).mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="bench-events-", dir=args.data))
    broker_process, broker = start_broker(root)
    hub, port = start_hub(broker, root / "hub", args.profile)
    workers: list[subprocess.Popen[str]] = []
    try:
        screen = Screen(port)
        per = -(-tables // args.workers)
        for first in range(0, tables, per):
            command = [sys.executable, __file__, "--worker", "--broker", broker,
                       "--data", str(root), "--first", str(first),
                       "--count", str(min(per, tables - first)),
                       "--seconds", str(args.seconds),
                       "--interval", str(args.interval)]  # fmt: skip
            if args.profile:
                command += ["--profile", args.profile]
            workers.append(subprocess.Popen(command, stdout=subprocess.PIPE, text=True))
        presses, costs = [], []
        hub_cpu, broker_cpu = cpu_seconds(hub.pid), cpu_seconds(broker_process.pid)
        own_cpu = sum(os.times()[:2])  # the screen's reader (this process's other threads wait)
        for w in workers:
            out, _ = w.communicate(timeout=args.seconds + 120)
            lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
            presses += [line for line in lines if "seq" in line]
            costs += [line for line in lines if "cpu_s" in line]
        hub_cpu = cpu_seconds(hub.pid) - hub_cpu
        broker_cpu = cpu_seconds(broker_process.pid) - broker_cpu
        own_cpu = sum(os.times()[:2]) - own_cpu
        start = min((p["t0"] for p in presses), default=0.0) + WARMUP_S
        deadline = time.monotonic() + 10
        latencies: list[float] = []
        missing = 0
        for press in presses:
            if press["t0"] < start:
                continue
            left = max(0.0, deadline - time.monotonic())  # the last may still be on their way
            value = screen.latency(press["box"], press["seq"], press["t0"], left)
            if value is None:
                missing += 1
            else:
                latencies.append(value * 1000)
        return {
            "tables": tables,
            "races": len(latencies),
            "missing": missing,
            "races_per_s": len(presses) / args.seconds,
            "p50": statistics.median(latencies) if latencies else float("nan"),
            "p95": percentile(latencies, 0.95) if latencies else float("nan"),
            "p99": percentile(latencies, 0.99) if latencies else float("nan"),
            "max": max(latencies, default=float("nan")),
            "box_ms": 1000 * sum(c["cpu_s"] for c in costs) / max(1, len(presses)),
            "hub_ms": 1000 * hub_cpu / max(1, len(presses)),
            "broker_ms": 1000 * broker_cpu / max(1, len(presses)),
            "screen_ms": 1000 * own_cpu / max(1, len(presses)),
        }
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()
        hub.terminate()
        hub.wait(10)
        broker_process.terminate()
        broker_process.wait(10)
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[10, 50])
    parser.add_argument("--seconds", type=float, default=20.0, help="play time per run")
    parser.add_argument("--interval", type=float, default=1.0, help="s between a table's races")
    parser.add_argument("--workers", type=int, default=2, help="processes for the boxes")
    default_data = platformdirs.user_cache_dir("buzzerbox-bench")  # a disk, not tmpfs
    parser.add_argument("--data", default=default_data, help="where the logs go")
    parser.add_argument(
        "--profile", metavar="FILE", help="cProfile every box process (CPU time) to FILE.<n>"
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--broker", help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    if sys.argv[1:2] == ["--hub-profile"]:
        return hub_profiled(sys.argv[2], sys.argv[3:])
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    print(
        f"{os.cpu_count()} cores; logs in {args.data}; a race every {args.interval} s per "
        f"table; {args.seconds:.0f} s per run; boxes in {args.workers} processes"
    )
    print(f"{'tables':>6} {'races':>6} {'races/s':>8} {'p50 ms':>8} {'p95 ms':>8} "
          f"{'p99 ms':>8} {'max ms':>8} {'missing':>8} "
          f"{'box CPU':>8} {'hub CPU':>8} {'mosq CPU':>8} {'TV CPU':>8}")  # fmt: skip
    worst = 0.0
    for tables in args.tables:
        r = run(tables, args)
        worst = max(worst, r["p95"])
        row = (
            f"{r['tables']:>6} {r['races']:>6} {r['races_per_s']:>8.1f} {r['p50']:>8.1f} "
            f"{r['p95']:>8.1f} {r['p99']:>8.1f} {r['max']:>8.1f} {r['missing']:>8} "
            f"{r['box_ms']:>8.2f} {r['hub_ms']:>8.2f} {r['broker_ms']:>8.2f} {r['screen_ms']:>8.2f}"
        )
        print(row, flush=True)
    print("(CPU: ms per race, of all box processes together, of the hub, of mosquitto, of the TV:")
    print(" this script's live stream reader)")
    verdict = "meets" if worst <= GOAL_P95_MS else "misses"
    print(f"goal: p95 <= {GOAL_P95_MS:.0f} ms from a press to the hub's page: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
