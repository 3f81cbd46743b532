"""What web/delta.diff costs a pad event, in-process, and the bytes of its patches.

    python3 tests/bench/delta_diff.py [--edges 80]

A 4-player Ligretto Twist round played through the web app (Flask's test client, the
admin's virtual pads): /api/state after every press and release, then diff of each
state and the next, timed (the best of 5 runs). Prints µs per diff and the bytes of
all the patches as JSON.
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
import timeit
from pathlib import Path
from typing import Any

from buzzerbox.box import Box
from buzzerbox.live.delta import diff
from buzzerbox.server.auth import LoginLimiter
from buzzerbox.store.eventlog import EventLog
from buzzerbox.testing import ManualClock
from buzzerbox.web import create_app

PIN = "9731"


def states(edges: int, data: Path) -> list[dict[str, Any]]:
    clock = ManualClock(now=5_000_000)
    box = Box(EventLog(data / "box.db"), clock=clock)
    config = {"ADMIN_PIN": PIN, "SECRET_KEY": b"b" * 32, "URLS": ["http://box.local:8000/"],
              "WIFI_SSID": "Table", "LOGIN_LIMITER": LoginLimiter(free=10**9)}  # fmt: skip
    client = create_app(box, config).test_client()
    headers = {"X-CSRF-Token": client.post("/api/login", json={"pin": PIN}).json["csrf"]}  # type: ignore[index]
    players = ["Ann", "Ben", "Cem", "Dan"]
    client.post("/api/game", json={"game": "twist", "players": players}, headers=headers)
    client.post("/api/event", json={"type": "round"}, headers=headers)
    clock.advance(box.countdown_us)
    out: list[dict[str, Any]] = []
    for i in range(edges):
        clock.advance(5_000)
        body = {"seat": i // 2 % 4, "pad": "pile", "pile": i // 16 % 2}
        client.post("/api/pads/release" if i % 2 else "/api/pads/press", json=body, headers=headers)
        out.append(client.get("/api/state").json)  # type: ignore[arg-type]
    box.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=80)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        snapshots = states(args.edges, Path(data))
    pairs = list(itertools.pairwise(snapshots))
    runs = timeit.repeat(lambda: [diff(a, b) for a, b in pairs], number=5, repeat=5)
    per_diff = min(runs) / (5 * len(pairs))
    size = sum(len(json.dumps(diff(a, b), separators=(",", ":"))) for a, b in pairs)
    print(f"{len(pairs)} diffs of a 4-player Twist state: {per_diff * 1e6:.0f} µs each")
    print(f"patches: {size} bytes in all, {size / len(pairs):.0f} a diff")


if __name__ == "__main__":
    main()
