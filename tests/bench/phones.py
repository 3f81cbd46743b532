"""How fast and at what cost a pad event reaches every phone: N live streams on loopback.

Starts a real `buzzerbox serve` (a subprocess), opens N Server-Sent Events streams as
browsers do (HTTP/1.1, chunked; one thread with non-blocking sockets reads them all:
the phones), starts a 4-player Ligretto Twist game, and then makes pad events
(presses and releases of pile pads, in turn) open-loop: at `--rate` events/s on a
fixed schedule, whether or not the phones have the last one yet (they overlap).

    python tests/bench/phones.py --phones 0 100 1000 [--rate 10] [--seconds 10]
    python tests/bench/phones.py --mode board --phones 100 1000

Modes:
- `http` (default): a simulated box; each event is a POST /api/pads/press|release
  on the admin's connection. Latency: from the event's scheduled time to the moment
  each phone has a message with its log seq.
- `limit`: not the box: tests/bench/limit.c, a minimal C epoll server doing one
  send() of a ~500 B message to every phone per event (the one-send limit); an event
  is a line on its stdin, counted from when it was due.
- `board`: the box reads two fake pad boards (protocol v1 on ptys, in a process of
  their own, as real boards); each event is a contact on a board. Latency: from the
  contact's true host time through the board link, arbitration, the rules, the log
  (fsync) and the stream, to each phone.

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
import http.client
import json
import os
import platform
import re
import resource
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.confine import PIS, Confinement
from tests.bench.limit import limit_events, start_limit
from tests.bench.procstat import cpu_s, fanout_cpu_s, peak_rss_mb, sender_cpu
from tests.bench.sdcard import fsync_env
from tests.faults.boardproc import BoardProcess

PLAYERS = ["Ann", "Ben", "Cem", "Dan"]
PIN = "2468"
#: what a phone's recv() asks for: 16 KB, as a browser's socket reads do. 256 KB made the
#: allocator map and unmap the buffer on every call (25 µs a recv against 5 µs), and the
#: simulated phones then took the CPU of the box they measure on the same 2 cores
READ_BYTES = 16384
#: board mode: seats 0-1 on pico-a, 2-3 on pico-b; channel = 4 * (seat % 2) + pile
# No release hold on the piles (the pad map's [release_ms], 120 ms by default): it holds
# a lifted hand back on purpose (a flickering pile is one card), and with a press and a
# release every 100 ms it would delay nearly every event; this bench measures the path.
PAD_MAP = "seats = 4\npiles = 4\n[release_ms]\npile = 0\n" + "".join(
    f'[[board]]\nid = "pico-{b}"\nurl = "{{{b}}}"\n' for b in "ab"
) + "".join(
    f'[[pad]]\nrole = "pile"\nseat = {s}\npile = {p}\nboard = "pico-{"ab"[s // 2]}"\n'
    f"ch = {4 * (s % 2) + p}\n"
    for s in range(4)
    for p in range(4)
)  # fmt: skip


class Phones:
    """N SSE streams read by one thread: when each first has each seq, bytes read."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sel = selectors.DefaultSelector()
        self.socks: list[socket.socket] = []
        self.tail: dict[int, bytes] = {}
        self.latest: dict[int, int] = {}
        self.arrivals: dict[int, list[tuple[int, float]]] = {}  # fd -> [(seq, time)]
        self.bytes = 0
        self.lock = threading.Lock()  # held while phones are added (soak.py: re-added)
        self.stop = False
        self.nap = 0.0

    def open(self, n: int, timeout: float = 60.0) -> None:
        request = (
            b"GET /api/events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n"
            b"Cache-Control: no-cache\r\n\r\n"
        )
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", self.port))
            s.sendall(request)
            s.setblocking(False)
            with self.lock:
                self.socks.append(s)
                self.tail[s.fileno()] = b""
                self.sel.register(s, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while len(self.latest) < n:
            if time.monotonic() > deadline:
                raise SystemExit(f"FAIL: only {len(self.latest)} of {n} phones got the state")
            time.sleep(0.05)

    def arrival(self, fd: int, seq: int) -> float | None:
        """When phone `fd` first had a message with `seq` (or a later one)."""
        return next((t for s, t in self.arrivals.get(fd, []) if s >= seq), None)

    def run(self) -> None:
        """Read every phone; note when each first has each seq. Kept lean: this thread
        shares two cores with the box it measures."""
        latest, arrivals, tail = self.latest, self.arrivals, self.tail
        while not self.stop:
            ready = self.sel.select(0.1)
            now = time.monotonic()
            for key, _ in ready:
                sock: socket.socket = key.fileobj  # type: ignore[assignment]
                fd = key.fd
                try:
                    data = sock.recv(READ_BYTES)
                except BlockingIOError:
                    continue
                if not data:
                    self.sel.unregister(sock)
                    continue
                self.bytes += len(data)
                data = tail[fd] + data
                at = data.rfind(b"id: ")
                end = data.find(b".", at)
                if at < 0 or end < 0:
                    tail[fd] = data[-48:]
                    continue
                tail[fd] = data[end:][-48:]
                top = int(data[at + 4 : end])
                if top > latest.get(fd, -1):
                    latest[fd] = top
                    arrivals.setdefault(fd, []).append((top, now))
            if self.nap:
                time.sleep(self.nap)  # let many phones' data gather: fewer wake-ups

    def close(self) -> None:
        self.stop = True
        for s in self.socks:
            s.close()


class Admin:
    """The table's phone: logged in, one keep-alive connection."""

    def __init__(self, port: int, pin: str = PIN) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers: dict[str, str] = {"Content-Type": "application/json"}
        self.conn.request("POST", "/api/login", json.dumps({"pin": pin}), self.headers)
        response = self.conn.getresponse()
        reply = json.loads(response.read())
        self.headers["Cookie"] = (response.getheader("Set-Cookie") or "").split(";", 1)[0]
        self.headers["X-CSRF-Token"] = reply["csrf"]

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        payload = None if body is None else json.dumps(body)
        try:
            self.conn.request(method, path, payload, self.headers)
            response = self.conn.getresponse()
        except (http.client.RemoteDisconnected, ConnectionError):
            # the box closes a keep-alive connection idle for 30 s (server/guard.py), as
            # during a long run of board contacts: a new one, as a phone would
            self.conn.close()
            self.conn.connect()
            self.conn.request(method, path, payload, self.headers)
            response = self.conn.getresponse()
        data = response.read()
        if response.status != 200:
            raise SystemExit(f"FAIL: {path}: {response.status} {data[:200]!r}")
        json_ = response.getheader("Content-Type", "").startswith("application/json")
        return json.loads(data) if json_ else data

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self.call("POST", path, body)

    def until(self, phase: str) -> dict[str, Any]:
        deadline = time.monotonic() + 10
        while (state := self.call("GET", "/api/state"))["phase"] != phase:
            if time.monotonic() > deadline:
                raise SystemExit(f"FAIL: the game never reached {phase}: {state['phase']}")
            time.sleep(0.02)
        return dict(state)


def start_server(
    folder: Path,
    max_phones: int,
    pads: str | None,
    threads: int = 1,
    confine: Confinement | None = None,
    env: dict[str, str] | None = None,
) -> tuple[Any, int]:
    config = folder / "box.toml"
    head = f"countdown_s = 0.2\nfanout_threads = {threads}\n"
    config.write_text(head + ('[pads]\nmap = "pads.toml"\n' if pads else ""))
    if pads:
        (folder / "pads.toml").write_text(pads)
    cmd = [sys.executable, "-m", "buzzerbox", "serve", "--config", str(config),
           "--host", "127.0.0.1", "--port", "0", "--data", str(folder / "data"), "--pin", PIN,
           "--max-phones", str(max_phones)]  # fmt: skip
    env = {**os.environ, "BUZZERBOX_FANOUT_ROUNDS": str(folder / "rounds.txt"), **(env or {})}
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        preexec_fn=confine.preexec if confine else None,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if found := re.search(r"open http://127\.0\.0\.1:(\d+)/", line):
            threading.Thread(target=lambda: [None for _ in proc.stdout or []], daemon=True).start()
            return proc, int(found.group(1))
    raise SystemExit("FAIL: the server did not start")


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


def http_events(admin: Admin, n: int, rate: float) -> list[tuple[int, float]]:
    """n pad events by POST at `rate`/s on a fixed schedule: [(seq, scheduled time)]."""
    out = []
    start = time.monotonic() + 0.05
    for i in range(n):
        due = start + i / rate
        if (wait := due - time.monotonic()) > 0:
            time.sleep(wait)  # the schedule: a late POST is counted from when it was due
        kind = "press" if i % 2 == 0 else "release"
        body = {"seat": (i // 2) % 4, "pad": "pile", "pile": (i // 8) % 4}
        reply = admin.call("POST", f"/api/pads/{kind}", body)
        out.append((int(reply["seq"]), due))
    return out


def board_contacts(boards: BoardProcess, n: int, rate: float) -> None:
    """n contacts on the boards at `rate`/s (scheduled, then waited for)."""
    gap_us = int(1e6 / rate)
    for i in range(0, n, 2):  # a press, and its release one gap later
        seat, pile = (i // 2) % 4, (i // 8) % 4
        board, ch = f"pico-{'ab'[seat // 2]}", 4 * (seat % 2) + pile
        boards.at(50_000 + i * gap_us, board, ch, 1)
        boards.at(50_000 + (i + 1) * gap_us, board, ch, 0)
    boards.flush()
    time.sleep(0.05 + n / rate + 0.2)


def board_events(admin: Admin, boards: BoardProcess, n: int, game: int) -> Any:
    """The n contacts made: [(seq, true contact time)], from the log of the game whose
    id (its first seq) is `game` and the boards' true times."""
    admin.until("playing")
    lines = [json.loads(x) for x in admin.call("GET", "/api/export/log").decode().splitlines()]
    logged = [(game + i, e) for i, e in enumerate(lines) if e["type"] in ("press", "release")]
    truths: dict[tuple[int, int, int], list[int]] = {}
    for board, edges in boards.sent().items():
        for ch, state, t_us in edges:
            seat = 2 * "ab".index(board[-1]) + ch // 4
            truths.setdefault((seat, ch % 4, state), []).append(t_us)
    out = []
    for seq, e in logged:
        times = truths.get((e["seat"], e["pile"], int(e["type"] == "press")))
        if times:
            out.append((seq, times.pop(0) / 1e6))
    if len(out) != n:
        raise SystemExit(f"FAIL: {len(out)} of {n} contacts logged")
    return out


def bench(n: int, args: argparse.Namespace) -> dict[str, Any]:
    boards = BoardProcess("pico-a:pty", "pico-b:pty") if args.mode == "board" else None
    with tempfile.TemporaryDirectory() as tmp:
        pads = PAD_MAP.format(**{b: boards.urls[f"pico-{b}"] for b in "ab"}) if boards else None
        confine = Confinement(PIS.get(args.confine or ""), args.memory_mb)
        env = fsync_env(args.sd, Path(tmp)) if args.sd else None
        if args.mode == "limit":  # the one-send limit (limit.c), not the box
            proc, port = start_limit(Path(tmp), confine.preexec)
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
            if args.mode != "limit":
                admin = Admin(port)
                game = admin.call("POST", "/api/game", {"game": "twist", "players": PLAYERS})
                admin.call("POST", "/api/event", {"type": "round"})
                admin.until("playing")
            events = int(args.rate * args.seconds)
            quiet_s = min(3.0, args.seconds)
            limit = args.mode == "limit"
            c0, f0 = cpu_s(proc.pid), fanout_cpu_s(proc.pid)
            a0 = sender_cpu(proc.pid, True)[0]  # every live thread's, by schedstat
            time.sleep(quiet_s)  # the same box, phones and boards, no events
            c1, f1, s1 = cpu_s(proc.pid), fanout_cpu_s(proc.pid), sender_cpu(proc.pid, limit)
            a1 = sender_cpu(proc.pid, True)[0]
            b0, w0 = phones.bytes, time.monotonic()
            if args.mode == "limit":
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
            s2 = sender_cpu(proc.pid, limit)
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
        "mode": args.mode,
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phones", type=int, nargs="+", default=[0, 100, 1000])
    parser.add_argument("--mode", choices=["http", "board", "limit"], default="http")
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
    rows = []
    for n in args.phones:
        rows.append(bench(n, args))
        print(json.dumps(rows[-1]), flush=True)
    zero = next((r for r in rows if r["phones"] == 0), None)
    for r in rows:
        if zero is not None and r["phones"]:
            per = (r["cpu_ms_per_event"] - zero["cpu_ms_per_event"]) / r["phones"] * 1000
            print(f"# {r['phones']} phones: {per:.1f} µs of server CPU per phone per event "
                  f"(the process's growth over 0 phones); the fanout threads': "
                  f"{r['fanout_us_per_phone_event']} µs ({r['fanout_user_us']} user, "
                  f"{r['fanout_system_us']} system)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
