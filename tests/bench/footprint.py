"""The box's footprint beside the one-send C server (limit.c), in one run (issue 40):

    at rest     the server's CPU a second with no event: two fake pad boards ticking
                (the box), no phone; then a TV's stream and 10 phones open (keepalives)
    per phone   its resident memory with 100, then 1,000 (and `--phones`) streams open,
                and the growth per phone; its threads
    at the door how long 1,000 phones take to open their streams, `--window` (64) at a
                time, until each has its first state; and the server's CPU for it,
                µs a phone (the load on a shared machine stretches the time, much
                less the CPU)
    per event   the fixed CPU of a pad event, 0 phones: the process's over the events
                less the same span at rest (the box: a fake board's contact through
                the board link, arbitration, the rules, the log and the delta), each
                of `--repeat` repetitions and their median, and each thread's share

    python tests/bench/footprint.py [--servers box limit aiohttp gevent]
                                    [--phones 100 1000 2000]
                                    [--rest-s 10] [--events 300] [--repeat 3]
                                    [--window 64]
                                    [--figures rest phones event] [--tick-ms 10]
                                    [--idle-tick-ms 90]
                                    [--host OTHER_CHECKOUT/host]

`--figures` runs some of the figures only; `--tick-ms` sets the fake boards' TICK after
an EDGE, `--idle-tick-ms` their idle TICK (90, as the firmware's; 10: a board of before);
`--host` runs the box from another checkout's host/ folder (before and after, taken in
the same minutes: tests/bench/README.md, "Issue 40").

CPU is the scheduler's own count, in ns, summed over the process's threads
(/proc/<pid>/task/<tid>/schedstat), not /proc's 10 ms ticks; it depends on the
machine's load much less than a latency does. At rest it also prints, per thread name,
how often each ran a second (its time slices: one a wake-up, nearly), and the threads
that ran at all. Memory is VmRSS. One JSON line per server, then a table side by side.
`--servers box limit aiohttp gevent` adds the comparison servers (tests/bench/peers.py:
this repository's own minimal aiohttp and Flask-on-gevent servers written to issue 40's
description, not the issue filer's harness; run in a venv of their own made on first
use): an event is a line on their stdin, as limit.c's, so their "pad event" has no board
link, rules or log, as in the issue's table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.boxdrive import PAD_MAP, PLAYERS, Admin, board_contacts, start_server
from tests.bench.limit import limit_events, start_limit
from tests.bench.peers import SERVERS, start_peer
from tests.bench.procstat import cpu_s
from tests.bench.streams import Phones
from tests.faults.boardproc import BoardProcess


def tasks(pid: int) -> dict[int, tuple[str, int, int]]:
    """Each live thread of `pid`: (its name, on-CPU ns so far, time slices so far)."""
    out: dict[int, tuple[str, int, int]] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            on_cpu, _, slices = (task / "schedstat").read_text().split()
        except (OSError, ValueError):
            continue
        out[int(task.name)] = (name, int(on_cpu), int(slices))
    return out


def cpu_ns(pid: int) -> int:
    return sum(t[1] for t in tasks(pid).values())


def status(pid: int, key: str) -> int:
    """A number of /proc/<pid>/status (VmRSS in KB, Threads)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return -1


def base_name(name: str) -> str:
    """A thread's name without its number (bb-link-1 -> bb-link)."""
    head, _, tail = name.rpartition("-")
    return head if head and tail.isdigit() else name


def rest(pid: int, seconds: float) -> dict[str, Any]:
    """The process's CPU ms a second over `seconds` with nothing happening, and per
    thread name: how many threads ran, their runs a second, their CPU ms a second; and
    the same total from /proc's stat (10 ms ticks, but with the CPU of threads that
    ended in the span, which no live thread's schedstat holds)."""
    before, stat_before = tasks(pid), cpu_s(pid)
    time.sleep(seconds)
    after, stat_after = tasks(pid), cpu_s(pid)
    runs: Counter[str] = Counter()
    cpu: Counter[str] = Counter()
    ran: Counter[str] = Counter()
    for tid, (name, on_cpu, slices) in after.items():
        was = before.get(tid, (name, 0, 0))
        if slices > was[2]:
            key = base_name(name)
            ran[key] += 1
            runs[key] += slices - was[2]
            cpu[key] += on_cpu - was[1]
    total = sum(cpu.values())
    return {
        "cpu_ms_per_s": round(total / 1e6 / seconds, 2),
        "cpu_ms_per_s_stat": round((stat_after - stat_before) * 1e3 / seconds, 2),
        "threads": len(after),
        "ran": {
            k: {"threads": ran[k], "runs_per_s": round(runs[k] / seconds, 1),
                "cpu_ms_per_s": round(cpu[k] / 1e6 / seconds, 2)}
            for k in sorted(ran, key=lambda k: -cpu[k])
        },
    }  # fmt: skip


def open_phones(phones: Phones, n: int, window: int, timeout: float = 120.0) -> float:
    """Open `n` more streams, at most `window` waiting for their first state at a time;
    the seconds until every one has it."""
    start = time.monotonic()
    deadline = start + timeout
    had = len(phones.latest)
    target = had + n
    opened = 0
    while len(phones.latest) < target:
        if time.monotonic() > deadline:
            raise SystemExit(f"FAIL: only {len(phones.latest) - had} of {n} phones got the state")
        if opened < n and opened - (len(phones.latest) - had) < window:
            phones.connect()
            opened += 1
        else:
            time.sleep(0.0005)
    return time.monotonic() - start


class Server:
    """The box (`buzzerbox serve` with two fake boards ticking every `tick_ms`; its code
    from `host`, another checkout's host/ folder, if given), the limit server or a
    comparison server (tests/bench/peers.py: aiohttp, gevent)."""

    def __init__(
        self,
        kind: str,
        folder: Path,
        max_phones: int,
        tick_ms: int = 10,
        host: str = "",
        idle_tick_ms: int = 90,
    ) -> None:
        self.kind = kind
        self.boards: BoardProcess | None = None
        if kind == "limit":
            self.proc, self.port = start_limit(folder)
        elif kind in SERVERS:
            self.proc, self.port = start_peer(kind)
        else:
            self.boards = BoardProcess(
                "pico-a:pty", "pico-b:pty", tick_ms=tick_ms, idle_tick_ms=idle_tick_ms
            )
            pads = PAD_MAP.format(**{b: self.boards.urls[f"pico-{b}"] for b in "ab"})
            env = {"PYTHONPATH": host} if host else None
            self.proc, self.port = start_server(folder, max_phones, pads, env=env)
        self.pid = self.proc.pid

    def start_game(self) -> None:
        if self.kind == "box":
            admin = Admin(self.port)
            admin.call("POST", "/api/game", {"game": "twist", "players": PLAYERS})
            admin.call("POST", "/api/event", {"type": "round"})
            admin.until("playing")

    def events(self, n: int, rate: float) -> None:
        if self.boards is not None:
            board_contacts(self.boards, n, rate)
        else:
            limit_events(self.proc, n, rate)
            time.sleep(0.2)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        if self.boards is not None:
            self.boards.close()


def reading(server: Server) -> tuple[Phones, threading.Thread]:
    phones = Phones(server.port)
    reader = threading.Thread(target=phones.run, daemon=True)
    reader.start()
    return phones, reader


def at_rest(server: Server, args: argparse.Namespace, out: dict[str, Any]) -> None:
    """Two boards ticking, no phone; then a TV's stream and 10 phones (keepalives)."""
    out["rest"] = rest(server.pid, args.rest_s)
    phones, _ = reading(server)
    try:
        open_phones(phones, 11, args.window)
        out["rest_11_streams"] = rest(server.pid, args.rest_s)
    finally:
        phones.close()
    time.sleep(1.0)  # the 11 are gone


def per_phone(server: Server, args: argparse.Namespace, out: dict[str, Any]) -> None:
    """Phones opened `window` at a time up to each count: the time from none, the RSS
    and the threads at each count, and the RSS's growth per phone."""
    phones, _ = reading(server)
    rss: dict[str, int] = {}
    threads: dict[str, int] = {}
    opened: dict[str, float] = {}
    cpu_us: dict[str, float] = {}
    spent = 0.0  # opening, from none to each count (the pauses between left out)
    used = 0  # the server's CPU ns over the same spans
    try:
        for n in sorted(args.phones):
            before = cpu_ns(server.pid)
            spent += open_phones(phones, n - len(phones.latest), args.window)
            used += cpu_ns(server.pid) - before
            opened[str(n)] = round(spent, 3)
            cpu_us[str(n)] = round(used / 1e3 / n, 1)
            time.sleep(0.5)
            rss[str(n)] = status(server.pid, "VmRSS")
            threads[str(n)] = status(server.pid, "Threads")
    finally:
        phones.close()
    counts = sorted(args.phones)
    out["rss_kb"], out["threads"], out["open_s"] = rss, threads, opened
    out["open_cpu_us_per_phone"] = cpu_us
    if len(counts) > 1:
        grown = rss[str(counts[-1])] - rss[str(counts[0])]
        out["kb_per_phone"] = round(grown / (counts[-1] - counts[0]), 2)
    time.sleep(1.0)


class Spans:
    """The process's CPU ns by thread name between samples, from each thread's schedstat;
    a thread gone between two samples keeps what it had at the first (its last run's
    CPU is lost: the box's threads live as long as it does, so none should go)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.seen: dict[int, tuple[str, int, int]] = tasks(pid)
        self.gone = 0

    def take(self) -> Counter[str]:
        """CPU ns by thread name since the last take."""
        now = tasks(self.pid)
        out: Counter[str] = Counter()
        for tid, (name, on_cpu, _) in now.items():
            out[base_name(name)] += on_cpu - self.seen.get(tid, (name, 0, 0))[1]
        self.gone += len(self.seen.keys() - now.keys())
        self.seen = now
        return out


def per_event(server: Server, args: argparse.Namespace, out: dict[str, Any]) -> None:
    """The process's CPU over `events` pad events, 0 phones, less the same span at rest
    (the mean of the quiet before and after), `--repeat` times; and, per thread name,
    its share of a pad event (its CPU over the events less its rate at rest)."""
    server.start_game()
    quiet = min(3.0, args.events / args.rate)
    spans = Spans(server.pid)
    time.sleep(quiet)
    rest_before = spans.take()
    s0, ws0 = cpu_s(server.pid), time.monotonic()  # /proc's ticks: threads gone counted
    fixed: list[float] = []
    rest_ns = 0.0  # the quiet spans' CPU a second (schedstat), summed over them
    by_thread: Counter[str] = Counter()
    for _ in range(args.repeat):
        w0 = time.monotonic()
        server.events(args.events, args.rate)
        w1 = time.monotonic()
        busy = spans.take()
        time.sleep(quiet)
        rest_after = spans.take()
        for name in busy.keys() | rest_before.keys() | rest_after.keys():
            at_rest = (rest_before[name] + rest_after[name]) / (2 * quiet)  # ns a second
            by_thread[name] += busy[name] - at_rest * (w1 - w0)
        at_rest = (sum(rest_before.values()) + sum(rest_after.values())) / (2 * quiet)
        fixed.append((sum(busy.values()) - at_rest * (w1 - w0)) / args.events / 1e6)
        rest_before = rest_after
        rest_ns += at_rest
    total = args.events * args.repeat
    out["event_fixed_ms"] = round(statistics.median(fixed), 3)
    out["event_runs_ms"] = [round(f, 3) for f in fixed]
    out["event_by_thread_ms"] = {
        k: round(v / total / 1e6, 3) for k, v in sorted(by_thread.items(), key=lambda kv: -kv[1])
    }
    out["event_threads_gone"] = spans.gone
    # all of it from /proc/<pid>/stat (10 ms ticks, but the threads gone counted: a
    # timer's thread lives a moment), less the quiet's rate (schedstat's) over the span
    stat_s = cpu_s(server.pid) - s0 - rest_ns / args.repeat / 1e9 * (time.monotonic() - ws0)
    out["event_fixed_ms_stat"] = round(stat_s / total * 1e3, 3)


FIGURES = {"rest": at_rest, "phones": per_phone, "event": per_event}


def measure(kind: str, args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"server": kind, "figures": args.figures, "tick_ms": args.tick_ms}
    out["host"], out["idle_tick_ms"] = args.host, args.idle_tick_ms
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(
            kind, Path(tmp), max(args.phones) + 11, args.tick_ms, args.host, args.idle_tick_ms
        )
        try:
            time.sleep(args.settle_s)  # the boards say HELLO and map their clocks
            for figure in args.figures:
                FIGURES[figure](server, args, out)
        finally:
            server.close()
    out["load"] = os.getloadavg()[0]
    return out


def table(rows: list[dict[str, Any]], phones: list[int]) -> None:
    lo, hi = min(phones), max(phones)
    lines: list[tuple[str, str, Callable[[dict[str, Any]], Any]]] = [
        ("CPU at rest, ms a second", "rest", lambda r: r["rest"]["cpu_ms_per_s"]),
        ("  the same from /proc's stat", "rest", lambda r: r["rest"]["cpu_ms_per_s_stat"]),
        ("  with a TV and 10 phones open", "rest", lambda r: r["rest_11_streams"]["cpu_ms_per_s"]),
        (f"memory per phone, KB ({lo} -> {hi})", "phones", lambda r: r.get("kb_per_phone")),
        (f"threads at {hi} phones", "phones", lambda r: r["threads"][str(hi)]),
        (f"{hi} phones connected, s", "phones", lambda r: r["open_s"][str(hi)]),
        (
            "  the server's CPU for it, µs a phone",
            "phones",
            lambda r: r["open_cpu_us_per_phone"][str(hi)],
        ),
        ("fixed CPU of a pad event, ms (median)", "event", lambda r: r["event_fixed_ms"]),
        ("  each repetition", "event", lambda r: r["event_runs_ms"]),
    ]
    print("| figure | " + " | ".join(r["server"] for r in rows) + " |")
    print("|---|" + "---|" * len(rows))
    for label, figure, get in lines:
        if figure in rows[0]["figures"]:
            print(f"| {label} | " + " | ".join(str(get(r)) for r in rows) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--servers", nargs="+", choices=["box", "limit", *SERVERS], default=["box", "limit"]
    )
    parser.add_argument("--phones", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--window", type=int, default=64, help="phones opening at a time")
    parser.add_argument("--rest-s", type=float, default=10.0)
    parser.add_argument("--settle-s", type=float, default=3.0)
    parser.add_argument("--events", type=int, default=300, help="pad events a repetition")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions of the events")
    parser.add_argument("--rate", type=float, default=10.0)
    parser.add_argument(
        "--figures", nargs="+", choices=sorted(FIGURES), default=["rest", "phones", "event"]
    )
    parser.add_argument("--tick-ms", type=int, default=10, help="the boards' TICK after an EDGE")
    parser.add_argument("--idle-tick-ms", type=int, default=90, help="the boards' idle TICK")
    parser.add_argument(
        "--host", default="", help="run the box from this host/ folder (another checkout's)"
    )
    args = parser.parse_args()
    print(f"# {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}", flush=True)
    rows = []
    for kind in args.servers:
        rows.append(measure(kind, args))
        print(json.dumps(rows[-1]), flush=True)
    table(rows, args.phones)
    return 0


if __name__ == "__main__":
    sys.exit(main())
