"""How fast a pad press reaches every phone: N live streams on loopback.

Starts a real `buzzerbox serve` (a subprocess, simulated box), opens N Server-Sent
Events streams (one thread, non-blocking sockets: the phones), logs in as the admin,
starts a Ligretto Twist game, and then presses and releases a virtual pile pad
`--presses` times. For each press it takes the time from just before the POST to the
moment each phone has received the state with that press's log seq, and prints p50,
p95, p99 and max over all (press, phone) pairs.

    python tests/bench/phones.py --phones 100 1000

Not collected by pytest; it prints figures. Loopback only, bounded in count and time.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
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


class Phones:
    """N SSE streams read by one thread; records when each first sees each seq."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sel = selectors.DefaultSelector()
        self.socks: list[socket.socket] = []
        self.tail: dict[int, bytes] = {}
        self.latest: dict[int, int] = {}
        self.arrivals: dict[int, list[tuple[int, float]]] = {}  # fd -> [(seq, time)]
        self.lock = threading.Lock()
        self.stop = False
        self.closed = 0
        self.nap = 0.0

    def open(self, n: int, timeout: float = 60.0) -> None:
        request = b"GET /api/events HTTP/1.0\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n"
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
                raise RuntimeError(f"only {len(self.latest)} of {n} phones got the state")
            time.sleep(0.05)

    def have(self, seq: int) -> int:
        """How many phones have the state with `seq` (or newer)."""
        return sum(1 for top in list(self.latest.values()) if top >= seq)

    def arrival(self, fd: int, seq: int) -> float | None:
        """When phone `fd` first had the state with `seq` (or newer)."""
        return next((t for s, t in self.arrivals.get(fd, []) if s >= seq), None)

    def run(self) -> None:
        """Read every phone; note when each first has each seq. Kept lean: this thread
        shares two cores with the box it measures."""
        latest, arrivals, tail = self.latest, self.arrivals, self.tail
        while not self.stop:
            ready = self.sel.select(0.1)
            now = time.perf_counter()
            for key, _ in ready:
                sock: socket.socket = key.fileobj  # type: ignore[assignment]
                fd = key.fd
                try:
                    data = sock.recv(262144)
                except BlockingIOError:
                    continue
                if not data:
                    self.sel.unregister(sock)
                    self.closed += 1
                    continue
                data = tail[fd] + data
                at = data.rfind(b"id: ")
                end = data.find(b"\n", at)
                if at < 0 or end < 0:
                    tail[fd] = data[-32:]
                    continue
                tail[fd] = data[end:][-32:]
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
    def __init__(self, port: int, pin: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers: dict[str, str] = {"Content-Type": "application/json"}
        reply, cookie = self.post("/api/login", {"pin": pin})
        self.headers["Cookie"] = cookie.split(";", 1)[0]
        self.headers["X-CSRF-Token"] = reply["csrf"]

    def post(self, path: str, body: dict[str, Any]) -> tuple[dict[str, Any], str]:
        self.conn.request("POST", path, json.dumps(body), self.headers)
        response = self.conn.getresponse()
        data = json.loads(response.read())
        if response.status != 200:
            raise RuntimeError(f"{path}: {response.status} {data}")
        return data, response.getheader("Set-Cookie") or ""


def start_server(folder: Path, max_phones: int) -> tuple[subprocess.Popen[str], int]:
    config = folder / "box.toml"
    config.write_text("countdown_s = 0.2\n")
    cmd = [sys.executable, "-m", "buzzerbox.serve", "serve", "--config", str(config),
           "--host", "127.0.0.1", "--port", "0", "--data", str(folder), "--pin", "2468",
           "--max-phones", str(max_phones)]  # fmt: skip
    if os.environ.get("BENCH_SERVER_CPU"):
        cmd = ["taskset", "-c", os.environ["BENCH_SERVER_CPU"], *cmd]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"open http://127\.0\.0\.1:(\d+)/", line)
        if found:
            threading.Thread(target=_drain, args=(proc.stdout,), daemon=True).start()
            return proc, int(found.group(1))
    raise RuntimeError("the server did not start")


def _drain(out: Any) -> None:
    for line in out:
        if os.environ.get("BENCH_VERBOSE"):
            print("server:", line.rstrip(), flush=True)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench(n: int, presses: int, gap: float, nap: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        proc, port = start_server(Path(tmp), max(n, 10))
        phones = Phones(port)
        phones.nap = nap
        reader = threading.Thread(target=phones.run, daemon=True)
        reader.start()
        try:
            t_open = time.perf_counter()
            phones.open(n)
            opened_s = time.perf_counter() - t_open
            admin = Admin(port, "2468")
            admin.post("/api/game", {"game": "twist", "players": ["Ann", "Ben", "Cem", "Dan"]})
            state, _ = admin.post("/api/event", {"type": "round"})
            deadline = time.monotonic() + 5
            while state["phase"] != "playing" and time.monotonic() < deadline:
                time.sleep(0.05)
                admin.conn.request("GET", "/api/state")
                state = json.loads(admin.conn.getresponse().read())
            sent: list[tuple[int, float]] = []
            for i in range(presses):
                path = "/api/pads/press" if i % 2 == 0 else "/api/pads/release"
                t0 = time.perf_counter()
                reply, _ = admin.post(path, {"seat": 0, "pad": "pile", "pile": 0})
                seq = int(reply["box"]["seq"])
                sent.append((seq, t0))
                if os.environ.get("BENCH_VERBOSE"):
                    print("PRESS", seq, t0, time.perf_counter(), flush=True)
                end = time.monotonic() + 5
                while phones.have(seq) < n and time.monotonic() < end:
                    time.sleep(0.002)
                time.sleep(gap)
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
    return {
        "phones": n,
        "presses": presses,
        "open_s": round(opened_s, 2),
        "p50_ms": round(statistics.median(latencies), 1),
        "p95_ms": round(percentile(latencies, 0.95), 1),
        "p99_ms": round(percentile(latencies, 0.99), 1),
        "max_ms": round(max(latencies), 1),
        "missed": missed,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phones", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--presses", type=int, default=40)
    parser.add_argument("--gap", type=float, default=0.1, help="seconds between presses")
    parser.add_argument(
        "--nap", type=float, default=0.001,
        help="the phones' reader naps this long between reads (s): on 2 shared cores a "
        "reader woken by every packet takes the CPU from the box it measures",
    )  # fmt: skip
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    print(f"# {os.cpu_count()} cores, python {sys.version.split()[0]}")
    for n in args.phones:
        print(json.dumps(bench(n, args.presses, args.gap, args.nap)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
