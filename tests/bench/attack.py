"""A guest on the Wi-Fi attacks the box: the admin's latency while it lasts, and the
time to guess the admin PIN at the rate the box allows.

1. Slow clients: a real `buzzerbox serve` (--max-phones 1000, its default) on
   127.0.0.1; `--hostile` connections (1,100) from other loopback addresses
   (127.0.1.x, at most 25 each, under the per-address cap) each send a request line,
   then a header line every 20 s, and reconnect at once when the box drops them.
   Meanwhile the admin (127.0.0.1, logged in) asks for GET /api/state on a new
   connection every 0.2 s. Prints the admin's p50 / p95 / max and the failures.
2. Big bodies (issue 28, item 1): 16 parallel 4 MiB JSON bodies to /api/phones/press,
   no login, three rounds: the box's peak RSS (VmHWM) is printed (goal < 150 MB).
3. The guess time: the login limiter's own code (server/auth.py, on a driven clock)
   for one address over a simulated month gives the tries an address gets a day;
   with `--addresses` (254: a whole IPv4 /24) the expected time to find the default
   PIN (half its space) is printed in years.

    python3 tests/bench/attack.py [--seconds 40] [--hostile 1100] [--streams 0]

4. The backlog (issue 28, item 6): `--silent` (3,000) connections from 127.0.4.x (25
   each: 120 addresses) that send nothing and reconnect when dropped; the admin's
   p50 / p95 as in 1 (goal p95 < 200 ms). The file limit (ulimit -n) is printed.

`--seconds 0` runs the guess time and the big bodies only.

5. Mid-size bodies (issue 39, item 3): `--mid-bodies` (4,000) connections from 125
   addresses (127.0.6.x, 32 each), each a 15 KiB head to /api/event and a 16 KiB body
   but its last byte, the last byte 9 s later, reopened when the box closes or answers
   them (crowd.py); the admin's p50 / p95 as in 1 and the box's peak RSS (the issue's:
   228 MB, admin p95 917 ms; idle 48.5 MB).

6. A crowd takes the live views (issue 39, item 2): `--only streams` (stream_crowd.py):
   125 addresses x 8 never-reading streams on the box, then the seated player's, the
   paired TV's, the admin's and 20 new viewers' streams; 13 addresses x 8 screens on
   the hub, then 20 new screens.

`--streams 1000 --hostile 100`: the box's 1,000 live-stream slots held by viewers
(8 per address) and 100 slow clients besides. `--broker`: a stranger on the broker
against the hub (500 made-up retained names, 5,000 race names: broker_attack.py).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from buzzerbox.server.auth import guess_days
from crowd import Crowd, mid_bodies  # type: ignore[import-not-found]  # this folder
from procstat import cpu_s, peak_rss_mb  # type: ignore[import-not-found]  # this folder

PIN = "20251130"
PER_ADDRESS = 25


def start_box(folder: Path) -> tuple[subprocess.Popen[str], int]:
    command = [sys.executable, "-m", "buzzerbox", "serve", "--host", "127.0.0.1",
               "--port", "0", "--data", str(folder), "--pin", PIN]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        if found := re.search(r"open http://127\.0\.0\.1:(\d+)/", line):
            port = int(found.group(1))
        if "admin PIN" in line:
            threading.Thread(target=lambda: [*process.stdout], daemon=True).start()  # type: ignore[misc]
            return process, port
    raise RuntimeError("serve did not start")


def admin_cookie(port: int) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request(
        "POST", "/api/login", json.dumps({"pin": PIN}), {"Content-Type": "application/json"}
    )
    response = conn.getresponse()
    response.read()
    assert response.status == 200, response.status
    cookie = (response.getheader("Set-Cookie") or "").split(";", 1)[0]
    conn.close()
    return cookie


def admin_requests(port: int, cookie: str, seconds: float) -> tuple[list[float], Counter[str]]:
    """GET /api/state as the admin on a new connection every 0.2 s: (latencies, failures
    by what they were)."""
    latencies: list[float] = []
    failures: Counter[str] = Counter()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.perf_counter()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/api/state", headers={"Cookie": cookie})
            response = conn.getresponse()
            body = json.loads(response.read())
            conn.close()
            if response.status == 200 and body["box"]["admin"] is True:
                latencies.append(time.perf_counter() - t0)
            else:
                failures[str(response.status)] += 1
        except (OSError, http.client.HTTPException, ValueError) as error:
            failures[type(error).__name__] += 1
        time.sleep(0.2)
    return latencies, failures


def open_streams(port: int, n: int) -> list[socket.socket]:
    """`n` live streams, 8 per address (the most one address may hold) from 127.0.2.x,
    that never read (the box skips them)."""
    socks = []
    for i in range(n):
        sock = socket.socket()
        sock.bind((f"127.0.{2 + i // 2000}.{1 + (i % 2000) // 8}", 0))
        sock.connect(("127.0.0.1", port))
        sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: box\r\n\r\n")
        socks.append(sock)
    return socks


def slow_clients(seconds: float, hostile: int, streams: int, *, silent: bool = False) -> None:
    raise_file_limit(hostile + streams)
    with tempfile.TemporaryDirectory() as folder:
        process, port = start_box(Path(folder))
        try:
            cookie = admin_cookie(port)
            held = open_streams(port, streams)
            # a request line, then a header line every 20 s; or nothing at all
            script = [(0.0, b"" if silent else b"GET / HTTP/1.1\r\n")]
            script += [] if silent else [(20.0 * k, b"X-Slow: 1\r\n") for k in range(1, 60)]
            net = "127.0.4" if silent else "127.0.1"
            attack = Crowd(port, hostile, script, net=net, per=PER_ADDRESS)
            attack.start()  # its own process: the admin's client shares no GIL with it
            time.sleep(3)  # the connections are open
            latencies, failures = admin_requests(port, cookie, seconds)
            attack.finish()
            for sock in held:
                sock.close()
        finally:
            process.terminate()
            process.wait(10)
    kind = "silent" if silent else "slow"
    print(
        f"admin GET /api/state with {streams} streams and {hostile} {kind} connections open "
        f"for {seconds:g} s: {summary(latencies, failures)}; the box dropped "
        f"{attack.reopened.value:,} of them ({load()}) "
        f"(goal: p95 <= {200 if silent else 100} ms, none failed)"
    )


def crowd_bodies(seconds: float, n: int) -> None:
    raise_file_limit(n)
    with tempfile.TemporaryDirectory() as folder:
        process, port = start_box(Path(folder))
        try:
            idle = peak_rss_mb(process.pid)
            cookie = admin_cookie(port)
            crowd = Crowd(port, n, mid_bodies())
            crowd.start()
            time.sleep(3)  # the connections are open
            before = cpu_s(process.pid)
            latencies, failures = admin_requests(port, cookie, seconds)
            spent = cpu_s(process.pid) - before
            peak = peak_rss_mb(process.pid)
            crowd.finish()
        finally:
            process.terminate()
            process.wait(10)
    print(
        f"admin GET /api/state with {n} connections from {-(-n // 32)} addresses each holding "
        f"a 15 KiB head and a 16 KiB body but its last byte (9 s later), for {seconds:g} s: "
        f"{summary(latencies, failures)}; the box's peak RSS {idle:.0f} MB idle, {peak:.0f} MB "
        f"under it, its CPU {spent / seconds:.2f} of a core; the box closed or answered "
        f"{crowd.reopened.value:,} of them ({load()}) (issue 39's: 228 MB, admin p95 917 ms; "
        "goal: one budget for what connections hold)"
    )


def summary(latencies: list[float], failures: Counter[str]) -> str:
    ms = sorted(t * 1000 for t in latencies)
    failed = f"{failures.total()} failed" + (f" ({dict(failures)})" if failures else "")
    if not ms:
        return f"none answered, {failed}"
    p95 = statistics.quantiles(ms, n=20, method="inclusive")[-1]
    return (
        f"{len(ms)} answered, {failed}; p50 {statistics.median(ms):.1f} ms, "
        f"p95 {p95:.1f} ms, max {ms[-1]:.1f} ms"
    )


def load() -> str:
    """The machine's load averages (1, 5, 15 min), to say with every figure."""
    return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def raise_file_limit(connections: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = max(soft, min(hard, connections + 1024))
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    print(f"file limit (ulimit -n): {soft} soft, {hard} hard; raised to "
          f"{resource.getrlimit(resource.RLIMIT_NOFILE)[0]} for the clients")  # fmt: skip


def big_bodies(parallel: int = 16, size: int = 4 * 1024 * 1024) -> None:
    """`parallel` clients each POST `size` bytes of `[0,0,...]` to /api/phones/press at
    once, three rounds, no login: the box's peak RSS before and after (goal < 150 MB)."""
    body = b"[" + b"0," * (size // 2 - 1) + b"0]"
    with tempfile.TemporaryDirectory() as folder:
        process, port = start_box(Path(folder))
        try:
            before = peak_rss_mb(process.pid)
            statuses: list[int] = []

            def send(i: int) -> None:
                sock = socket.socket()
                sock.bind((f"127.0.3.{1 + i}", 0))
                sock.settimeout(30)
                try:
                    sock.connect(("127.0.0.1", port))
                    head = (
                        "POST /api/phones/press HTTP/1.1\r\nHost: box\r\n"
                        "Content-Type: application/json\r\n"
                        f"Content-Length: {len(body)}\r\n\r\n"
                    )
                    sock.sendall(head.encode())
                    with contextlib.suppress(OSError):
                        sock.sendall(body)  # the box may close before it is all sent
                    answer = sock.recv(4096)
                    statuses.append(int(answer.split()[1]) if answer else 0)
                except OSError:
                    statuses.append(0)
                finally:
                    sock.close()

            for _round in range(3):
                workers = [threading.Thread(target=send, args=(i,)) for i in range(parallel)]
                for worker in workers:
                    worker.start()
                for worker in workers:
                    worker.join()
            peak = peak_rss_mb(process.pid)
        finally:
            process.terminate()
            process.wait(10)
    print(
        f"{parallel} parallel {size / 2**20:g} MiB bodies of [0,0,...] to /api/phones/press, "
        f"3 rounds, no login: the box's peak RSS {before:.0f} MB before, {peak:.0f} MB after; "
        f"answers {sorted(set(statuses))} (goal: peak < 150 MB, 413s)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--hostile", type=int, default=1100)
    parser.add_argument("--streams", type=int, default=0, help="live streams held open too")
    parser.add_argument("--addresses", type=int, default=254)
    parser.add_argument(
        "--broker", action="store_true", help="the broker attacks on the hub (broker_attack.py)"
    )
    parser.add_argument("--silent", type=int, default=3000, help="the backlog attack (0: none)")
    parser.add_argument(
        "--mid-bodies", type=int, default=4000, help="connections holding mid-size bodies (0: none)"
    )
    parser.add_argument(
        "--only", choices=["mid-bodies", "silent", "streams"], help="this attack alone"
    )
    parser.add_argument(
        "--flood", type=float, default=0, help="junk floods the hub for FLOOD s (broker_flood.py)"
    )
    args = parser.parse_args()
    if args.flood:
        from broker_flood import flood  # type: ignore[import-not-found]  # this folder

        flood(args.flood)
        return 0
    if args.broker:
        from broker_attack import broker_attacks  # type: ignore[import-not-found]  # this folder

        broker_attacks()
        return 0
    if args.only == "mid-bodies":
        crowd_bodies(args.seconds, args.mid_bodies)
        return 0
    if args.only == "streams":
        from stream_crowd import stream_crowds  # type: ignore[import-not-found]  # this folder

        stream_crowds()
        return 0
    if args.only == "silent":
        slow_clients(args.seconds, args.silent, 0, silent=True)
        return 0
    days = guess_days(args.addresses)
    print(
        f"guessing the default PIN from {args.addresses} addresses at the allowed rate: "
        f"{days / 365.25:.1f} years on average (goal >= 1 year)"
    )
    big_bodies()
    if args.seconds > 0:
        slow_clients(args.seconds, args.hostile, args.streams)
        if args.silent:  # 3,000 connections that send nothing, 25 from each 127.0.4.x
            slow_clients(args.seconds, args.silent, 0, silent=True)
        if args.mid_bodies:
            crowd_bodies(args.seconds, args.mid_bodies)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
