"""Benchmark of the pad path. A script (not collected by pytest); prints figures.

    python tests/bench/pads.py [--edges 200000] [--presses 200]

1. Throughput on one core: EDGE frames of two boards through framing (decoder,
   CRC) -> clock map -> arbitration, all in this thread, each chunk handed in at the
   host time its last edge happened (as a real board's bytes arrive). Goal >= 50,000
   edges/s. Fails if any edge is lost, doubled or decided out of order. Printed per
   second of wall time and per second of this thread's CPU time (on a shared machine
   the wall time holds other programs' turns; the CPU time does not).
2. Latency: two fake boards on ptys, TICK every 10 ms, read by `PadSources`;
   from a press (its true host time) to `poll()` handing it out. Goal p95 <= 25 ms.
   Fails if any press or release is not reported.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time

from buzzerbox.clock import monotonic_us
from buzzerbox.pads.board.session import BoardSession
from buzzerbox.pads.fakes.padboard import BoardClock, FakeBoard
from buzzerbox.pads.fakes.port import FakeBoardPort
from buzzerbox.pads.fakes.wires import Wire
from buzzerbox.pads.sources import PadSources
from buzzerbox.pads.timeline.arbiter import Arbiter, Edge
from buzzerbox.testing import START_US, ManualClock


def throughput(n_edges: int) -> tuple[float, float]:
    """(edges/s of wall time, edges/s of this thread's CPU time)."""
    clock = ManualClock(START_US)
    arbiter = Arbiter()
    streams: list[tuple[BoardSession, list[tuple[bytes, int]]]] = []
    start_us = clock()
    for i, board_id in enumerate(("pico-a", "pico-b")):
        clock.now = start_us  # both boards cover the same stretch of time
        board = FakeBoard(board_id, clock=BoardClock(clock, offset_us=1_000_000 * (i + 1)))
        board.boot()
        wire = Wire(clock, board, BoardSession(f"bench://{board_id}", arbiter))
        wire.open()
        chunks: list[tuple[bytes, int]] = []  # (bytes, the host time they are all out)
        chunk = bytearray()
        for k in range(n_edges // 2):
            clock.advance(3)
            chunk += board.edge(k % 8, 1 - (k // 8) % 2)  # each channel: press, release, ...
            if k % 8 == 7:
                chunk += board.tick()
            if len(chunk) > 4000:
                chunks.append((bytes(chunk), clock()))
                chunk.clear()
        chunks.append((bytes(chunk) + board.tick(), clock()))
        streams.append((wire.session, chunks))
    edges: list[Edge] = []
    (sa, ca), (sb, cb) = streams
    start, cpu = time.perf_counter(), time.thread_time()
    for (da, ta), (db, tb) in zip(ca, cb, strict=False):
        sa.received(da, ta)
        sb.received(db, tb)
        edges += (e for e in arbiter.advance(max(ta, tb)) if isinstance(e, Edge))
    edges += (e for e in arbiter.flush() if isinstance(e, Edge))
    elapsed, cpu = time.perf_counter() - start, time.thread_time() - cpu
    if len(edges) != n_edges // 2 * 2:
        raise SystemExit(f"FAIL: {len(edges):,} of {n_edges // 2 * 2:,} edges decided")
    times = [(e.t_us, e.board, e.ch) for e in edges]
    if times != sorted(times) or len(set(times)) != len(times):
        raise SystemExit("FAIL: edges decided out of order, or doubled")
    return n_edges / elapsed, n_edges / cpu


def latency(n_presses: int) -> list[float]:
    rnd = random.Random(1)
    boards = [
        FakeBoard("pico-a", clock=BoardClock(offset_us=5_000_000, drift_ppm=40.0)),
        FakeBoard("pico-b", clock=BoardClock(offset_us=90_000_000, drift_ppm=-35.0)),
    ]
    ports = [FakeBoardPort(b, tick_us=10_000).start() for b in boards]
    reported: dict[tuple[str, int, int, int], int] = {}
    try:
        with PadSources(boards=[port.url for port in ports]) as src:
            online: set[str] = set()
            while len(online) < 2:
                online |= {e.board for e in src.poll(0.01) if getattr(e, "status", "") == "online"}
            start = monotonic_us() + 300_000  # after the first SYNC burst
            for i in range(n_presses):
                port = ports[i % 2]
                at = start + i * 20_000 + rnd.randint(0, 15_000) - monotonic_us()
                port.press(i % 8, after_us=at)
                port.release(i % 8, after_us=at + 5_000)
            deadline = time.monotonic() + n_presses * 0.02 + 5
            while len(reported) < 2 * n_presses and time.monotonic() < deadline:
                for ev in src.poll(0.005):
                    if isinstance(ev, Edge):
                        reported[(ev.board, ev.ch, ev.state, ev.t_us)] = monotonic_us()
    finally:
        for port in ports:
            port.close()
    n_sent = sum(len(board.sent) for board in boards)
    if len(reported) != n_sent:
        raise SystemExit(f"FAIL: {len(reported)} of {n_sent} presses and releases reported")
    out = []
    for board in boards:
        sent = [e for e in board.sent if e.state == 1]
        got = sorted((k[3], t) for k, t in reported.items() if k[0] == board.board_id and k[2] == 1)
        for e, (_, t_seen) in zip(sent, got, strict=False):
            out.append((t_seen - e.host_us) / 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--edges", type=int, default=200_000)
    ap.add_argument("--presses", type=int, default=200)
    args = ap.parse_args()
    print(f"# python {sys.version.split()[0]} ({platform.python_implementation()}), "
          f"{os.cpu_count()} cores")  # fmt: skip
    rate, cpu_rate = throughput(args.edges)
    print(
        f"throughput: {rate:,.0f} edges/s of wall time, {cpu_rate:,.0f} of CPU time "
        f"(framing -> clock map -> arbitration, one core; goal >= 50,000; load "
        f"{os.getloadavg()[0]:.1f})"
    )
    lat = sorted(latency(args.presses))
    p50 = statistics.median(lat)
    p95 = lat[int(0.95 * (len(lat) - 1))]
    print(
        f"latency press -> report: p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {lat[-1]:.1f} ms "
        f"over {len(lat)} presses, 2 boards on ptys ticking every 10 ms (goal p95 <= 25 ms)"
    )


if __name__ == "__main__":
    main()
