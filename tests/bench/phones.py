"""How fast and at what cost a pad event reaches every phone: N live streams on loopback.

Starts a real `buzzerbox serve` (a subprocess), opens N Server-Sent Events streams as
browsers do (HTTP/1.1, chunked; one thread with non-blocking sockets reads them all:
the phones), starts a 4-player Ligretto Twist game, and then makes pad events
(presses and releases of pile pads, in turn) open-loop: at `--rate` events/s on a
fixed schedule, whether or not the phones have the last one yet (they overlap).

    python tests/bench/phones.py --phones 0 100 1000 [--rate 10] [--seconds 10]
    python tests/bench/phones.py --mode board --phones 100 1000
    python tests/bench/phones.py --mode board aiohttp gevent limit --phones 100 1000 \
        --seconds 8 --repeat 2

Modes:
- `http` (default): a simulated box; each event is a POST /api/pads/press|release
  on the admin's connection. Latency: from the event's scheduled time to the moment
  each phone has a message with its log seq.
- `limit`: not the box: tests/bench/limit.c, a minimal C epoll server doing one
  send() of a ~500 B message to every phone per event (the one-send limit); an event
  is a line on its stdin, counted from when it was due.
- `aiohttp`, `gevent`: not the box: this repository's own minimal aiohttp and
  Flask-on-gevent SSE servers (tests/bench/peers.py, written to issue 40's description,
  not the issue filer's harness), doing what limit.c does (its message, its trigger, one
  send a phone an event) in a venv of their own made on first use.
- `board`: the box reads two fake pad boards (protocol v1 on ptys, in a process of
  their own, as real boards); each event is a contact on a board. Latency: from the
  contact's true host time through the board link, arbitration, the rules, the log
  (fsync) and the stream, to each phone.

With several modes, each phone count is measured with each in turn (`--repeat` runs the
whole series again: interleaved repetitions), and a table at the end holds them side by
side, with the box's p50 over each other server's, repetition by repetition.

For each phone count it prints one JSON line: latency p50/p95/p99/max over every
(event, phone) pair, events missed, the server's CPU per event (its /proc utime +
stime over the events, minus the same span of quiet, measured just before and just
after: keepalives and the boards' ticks are not counted; that quiet's own CPU, ms a
second, is `idle_cpu_ms_per_s`, and by the live threads' schedstat, in ns rather than
10 ms ticks, `idle_cpu_ms_per_s_sched`) and the bytes each phone got per event. With 0
phones the CPU is the fixed cost of an event; the growth per phone is printed at the
end. The server's own CPU per phone per event (P in
tests/bench/README.md's "Which Pi") is its fanout threads' (those that write the phones' sockets,
found by their names, bb-fanout-1 ..., in /proc/<pid>/task: their sum), user and
system time apart; the phones are read in this process, so none of their Python is
counted. On loopback the kernel hands a segment to the receiving socket inside the
sender's send(): the system time of a send holds the phone's end of TCP too (the
phones' ACKs, in turn, are handled in their reader's time), so the user time is the
part that is all the box's.
`round_ms` is the wall time of one fanout round, from its first send to its last (the
box writes each round's times to the file BUZZERBOX_FANOUT_ROUNDS names), median and
p95 over the events; `--threads` sets the box's fanout threads (serve's
fanout_threads). Not collected by pytest. Loopback only, bounded in count and time (about --seconds
plus set-up per phone count).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.boxdrive import (
    PAD_MAP,
    PLAYERS,
    Admin,
    board_contacts,
    board_events,
    http_events,
    start_server,
)
from tests.bench.confine import PIS, Confinement
from tests.bench.limit import limit_events, start_limit
from tests.bench.peers import PINS, SERVERS, start_peer
from tests.bench.procstat import cpu_s, fanout_cpu_s, peak_rss_mb, sender_cpu
from tests.bench.sdcard import fsync_env
from tests.bench.streams import Phones
from tests.faults.boardproc import BoardProcess

#: the comparison servers: not the box, each a process that sends every phone each
#: event's message when a line on its stdin says so, on one thread (all its CPU counted)
PEERS = ("limit", *SERVERS)


def round_walls(rounds: Path, since: float, until: float) -> list[float]:
    """The wall time of each fanout round between `since` and `until` (monotonic): from
    its first send to its last, over all the fanout's threads (live/fanout.py writes
    each thread's round to the file BUZZERBOX_FANOUT_ROUNDS names), in ms."""
    spans: dict[int, tuple[float, float]] = {}
    for line in rounds.read_text().splitlines():
        version, _, first, last, _ = line.split()
        t0, t1 = float(first), float(last)
        if since <= t0 <= until:
            was = spans.get(int(version), (t0, t1))
            spans[int(version)] = (min(was[0], t0), max(was[1], t1))
    return [(t1 - t0) * 1000 for t0, t1 in spans.values()]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench(n: int, mode: str, args: argparse.Namespace) -> dict[str, Any]:
    boards = BoardProcess("pico-a:pty", "pico-b:pty") if mode == "board" else None
    with tempfile.TemporaryDirectory() as tmp:
        pads = PAD_MAP.format(**{b: boards.urls[f"pico-{b}"] for b in "ab"}) if boards else None
        confine = Confinement(PIS.get(args.confine or ""), args.memory_mb)
        env = fsync_env(args.sd, Path(tmp)) if args.sd else None
        if mode == "limit":  # the one-send limit (limit.c), not the box
            proc, port = start_limit(Path(tmp), confine.preexec)
        elif mode in SERVERS:  # a comparison server (peers.py), not the box
            proc, port = start_peer(mode, confine.preexec)
        else:
            proc, port = start_server(Path(tmp), max(n, 10), pads, args.threads, confine, env)
        phones = Phones(port)
        phones.nap = args.nap
        reader = threading.Thread(target=phones.run, daemon=True)
        reader.start()
        try:
            t_open = time.monotonic()
            phones.open(n)
            opened_s = time.monotonic() - t_open
            peer = mode in PEERS
            if not peer:
                admin = Admin(port)
                game = admin.call("POST", "/api/game", {"game": "twist", "players": PLAYERS})
                admin.call("POST", "/api/event", {"type": "round"})
                admin.until("playing")
            events = int(args.rate * args.seconds)
            quiet_s = min(3.0, args.seconds)
            c0, f0 = cpu_s(proc.pid), fanout_cpu_s(proc.pid)
            a0 = sender_cpu(proc.pid, True)[0]  # every live thread's, by schedstat
            time.sleep(quiet_s)  # the same box, phones and boards, no events
            c1, f1, s1 = cpu_s(proc.pid), fanout_cpu_s(proc.pid), sender_cpu(proc.pid, peer)
            a1 = sender_cpu(proc.pid, True)[0]
            b0, w0 = phones.bytes, time.monotonic()
            if peer:
                sent = limit_events(proc, events, args.rate)
                last = events
            elif boards is None:
                sent = http_events(admin, events, args.rate)
                last = max(seq for seq, _ in sent)
            else:
                board_contacts(boards, events, args.rate)
                last = game["box"]["seq"] + 2 + events  # game, round, go, the contacts
            deadline = time.monotonic() + 5
            while n and min(phones.latest.values()) < last and time.monotonic() < deadline:
                time.sleep(0.01)
            c2, f2, w1, b1 = cpu_s(proc.pid), fanout_cpu_s(proc.pid), time.monotonic(), phones.bytes
            a2 = sender_cpu(proc.pid, True)[0]
            s2 = sender_cpu(proc.pid, peer)
            rounds = Path(tmp) / "rounds.txt"
            walls = (round_walls(rounds, w0, w1) if n and rounds.exists() else []) or [float("nan")]
            time.sleep(quiet_s)  # quiet again: the mean of both spans is subtracted
            c3, f3 = cpu_s(proc.pid), fanout_cpu_s(proc.pid)
            a3 = sender_cpu(proc.pid, True)[0]
            rss_mb = peak_rss_mb(proc.pid)
            if boards is not None:  # the log is read after the CPU is
                sent = board_events(admin, boards, events, game["box"]["seq"])
            quiet_cpu = (c1 - c0 + c3 - c2) / (2 * quiet_s) * (w1 - w0)
            fanout = [  # (user, system) of the fanout threads over the events, quiet subtracted
                f2[k] - f1[k] - (f1[k] - f0[k] + f3[k] - f2[k]) / (2 * quiet_s) * (w1 - w0)
                for k in (0, 1)
            ]
            # (on-CPU s, switches) of the sending threads over the events, nothing taken
            # off: the box sends no keepalive while changes come, so the quiet's (a
            # round to every phone every 2 s) would be taken off what the events did not do
            sender = [s2[k] - s1[k] for k in (0, 1)]
            latencies: list[float] = []
            missed = 0
            for seq, t0 in sent:
                for fd in phones.tail:
                    t = phones.arrival(fd, seq)
                    if t is None:
                        missed += 1
                    else:
                        latencies.append((t - t0) * 1000)
        finally:
            phones.close()
            proc.terminate()
            proc.wait(10)
            if boards is not None:
                boards.close()
            peak_mb, throttled = confine.peak_mb(), confine.throttled_s()
            confine.close()
    lat = latencies or [float("nan")]
    return {
        "mode": mode,
        "phones": n,
        "events": len(sent),
        "rate": args.rate,
        "open_s": round(opened_s, 2),
        "p50_ms": round(statistics.median(lat), 1),
        "p95_ms": round(percentile(lat, 0.95), 1),
        "p99_ms": round(percentile(lat, 0.99), 1),
        "max_ms": round(max(lat), 1),
        "missed": missed,
        "cpu_ms_per_event": round((c2 - c1 - quiet_cpu) * 1000 / len(sent), 3),
        # the server's CPU with no event (ms per s): the boards' ticks, keepalives, timers
        "idle_cpu_ms_per_s": round((c1 - c0 + c3 - c2) / (2 * quiet_s) * 1000, 1),
        # the same from the live threads' schedstat (ns, not 10 ms ticks)
        "idle_cpu_ms_per_s_sched": round((a1 - a0 + a3 - a2) / (2 * quiet_s) * 1000, 2),
        # the whole server's CPU per phone per event (the box: its fixed cost too)
        "cpu_us_per_phone_event": round((c2 - c1 - quiet_cpu) * 1e6 / len(sent) / n, 2)
        if n
        else None,
        # the server's own CPU per phone per event: its fanout threads', user and system
        # (on loopback the system time holds the phone's end of TCP too, see --help)
        "fanout_us_per_phone_event": round(sum(fanout) * 1e6 / len(sent) / n, 2) if n else None,
        "fanout_user_us": round(fanout[0] * 1e6 / len(sent) / n, 2) if n else None,
        "fanout_system_us": round(fanout[1] * 1e6 / len(sent) / n, 2) if n else None,
        # the same from the scheduler's ns count, the box's fanout threads or the whole
        # limit server (one thread): the figure to hold them side by side (issue 29)
        "sender_us_per_phone_event": round(sender[0] * 1e6 / len(sent) / n, 2) if n else None,
        "sender_switches_per_event": round(sender[1] / len(sent), 1),
        "bytes_per_event_per_phone": round((b1 - b0) / len(sent) / n) if n else None,
        "fanout_threads": args.threads,
        # one fanout round (a change to every phone), first send to last: median, p95
        "round_ms": round(statistics.median(walls), 2),
        "round_p95_ms": round(percentile(walls, 0.95), 2),
        "load": Path("/proc/loadavg").read_text().split()[0],
        "rss_mb": rss_mb,  # the box's peak resident memory (VmHWM)
        "confined": confine.describe(),
        "cgroup_peak_mb": None if peak_mb is None else round(peak_mb, 1),
        "throttled_s": None if throttled is None else round(throttled, 2),
        "sd": args.sd,
    }


#: the figures held side by side: (label, key of bench()'s row)
SIDE_BY_SIDE = [
    ("p50, ms", "p50_ms"),
    ("p95, ms", "p95_ms"),
    ("CPU a phone an event, µs (the box's fanout thread; a peer's whole process)",
     "sender_us_per_phone_event"),
    ("  the whole process's (/proc ticks, quiet subtracted)", "cpu_us_per_phone_event"),
    ("missed", "missed"),
    ("load", "load"),
]  # fmt: skip


def side_by_side(rows: list[dict[str, Any]], modes: list[str], counts: list[int]) -> None:
    """A table of each server's figures at each phone count, every repetition's in the
    order they ran; then the box's p50 over each other server's, repetition by repetition
    (the issue's "at 100 phones the box's p50 is at or below aiohttp's")."""
    print("| phones | figure | " + " | ".join(modes) + " |")
    print("|---|---|" + "---|" * len(modes))
    got = {  # (mode, phones) -> the rows, in the order they ran
        (m, n): [r for r in rows if r["mode"] == m and r["phones"] == n]
        for m in modes
        for n in counts
    }
    for n in counts:
        for label, key in SIDE_BY_SIDE:
            cells = [", ".join(str(r.get(key, "failed")) for r in got[m, n]) for m in modes]
            print(f"| {n} | {label} | " + " | ".join(cells) + " |")
    box = next((m for m in modes if m not in PEERS), None)
    if box is None:
        return
    for n in counts:
        for other in (m for m in modes if m != box):
            pairs = zip(got[box, n], got[other, n], strict=True)
            ratios = ", ".join(
                f"{b['p50_ms'] / o['p50_ms']:.2f}" if "p50_ms" in b and "p50_ms" in o else "-"
                for b, o in pairs
            )
            print(f"# {n} phones: the box's p50 over {other}'s, each repetition: {ratios}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phones", type=int, nargs="+", default=[0, 100, 1000])
    parser.add_argument(
        "--mode", nargs="+", choices=["http", "board", *PEERS], default=["http"],
        help="one or more: each phone count is measured with each in turn, and with more "
        "than one a table prints them side by side",
    )  # fmt: skip
    parser.add_argument(
        "--repeat", type=int, default=1,
        help="runs of the whole series, one after the other (interleaved repetitions)",
    )  # fmt: skip
    parser.add_argument("--rate", type=float, default=10.0, help="pad events per second")
    parser.add_argument("--seconds", type=float, default=10.0, help="of events per count")
    parser.add_argument(
        "--threads", type=int, default=1, help="the box's fanout threads (serve's fanout_threads)"
    )
    parser.add_argument(
        "--nap", type=float, default=0.001,
        help="the phones' reader naps this long between reads (s): on 2 shared cores a "
        "reader woken by every packet takes the CPU from the box it measures",
    )  # fmt: skip
    parser.add_argument(
        "--confine", choices=sorted(PIS),
        help="run the box on one CPU with a Pi's share of it (cgroup v1 CPU quota; root)",
    )  # fmt: skip
    parser.add_argument("--memory-mb", type=int, help="the box's cgroup memory limit (root)")
    parser.add_argument(
        "--sd", choices=["card", "stall"],
        help="every fsync of the box also waits as an SD card's does (tests/bench/sdcard.py)",
    )  # fmt: skip
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    print(f"# {os.cpu_count()} cores, python {sys.version.split()[0]} "
          f"({platform.python_implementation()}), load {os.getloadavg()[0]:.1f}")  # fmt: skip
    if set(args.mode) & set(SERVERS):
        print(f"# comparison servers on {' '.join(PINS)} (tests/bench/peers.py)")
    rows = []
    for _ in range(args.repeat):
        for n in args.phones:
            for mode in args.mode:
                try:
                    rows.append(bench(n, mode, args))
                except SystemExit as failed:  # one run's failure: the series goes on
                    if len(args.mode) == 1 and args.repeat == 1:
                        raise
                    rows.append({"mode": mode, "phones": n, "failed": str(failed)})
                print(json.dumps(rows[-1]), flush=True)
    for r in rows:
        zero = next(
            (z for z in rows if z["phones"] == 0 and z["mode"] == r["mode"] and "failed" not in z),
            None,
        )
        if zero is not None and r["phones"] and r["mode"] not in PEERS and "failed" not in r:
            per = (r["cpu_ms_per_event"] - zero["cpu_ms_per_event"]) / r["phones"] * 1000
            print(f"# {r['mode']}, {r['phones']} phones: {per:.1f} µs of server CPU a phone an "
                  f"event (the process's growth over 0 phones); the fanout threads': "
                  f"{r['fanout_us_per_phone_event']} µs ({r['fanout_user_us']} user, "
                  f"{r['fanout_system_us']} system)")  # fmt: skip
    if len(args.mode) > 1 or args.repeat > 1:
        side_by_side(rows, args.mode, [n for n in args.phones if n])
    return 0


if __name__ == "__main__":
    sys.exit(main())
