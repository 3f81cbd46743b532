"""What the benches do to a real box: start `buzzerbox serve` (a subprocess), log in as
the table's phone (the admin) and start a game, and make pad events, by POST or as
contacts on two fake pad boards (tests/faults/boardproc.py), reading back from the
log which seq each contact got. Used by tests/bench/phones.py, footprint.py, stages.py
and soak.py."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from tests.bench.confine import Confinement
from tests.faults.boardproc import BoardProcess

PLAYERS = ["Ann", "Ben", "Cem", "Dan"]
PIN = "2468"
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


def board_events(
    admin: Admin, boards: BoardProcess, n: int, game: int, wait_s: float = 10.0
) -> Any:
    """The n contacts made: [(seq, true contact time)], from the log of the game whose
    id (its first seq) is `game` and the boards' true times. The log is read again for
    up to `wait_s` until it holds them all: on a loaded machine the last contacts can
    reach it seconds late (a phone that had them late counts them late or missed)."""
    deadline = time.monotonic() + wait_s
    while True:
        admin.until("playing")
        out, logged, unmatched = logged_contacts(admin, boards, game)
        if len(out) == n:
            return out
        if time.monotonic() > deadline:
            sent = sum(len(edges) for edges in boards.sent().values())
            raise SystemExit(
                f"FAIL: {len(out)} of {n} contacts logged ({logged} presses and releases "
                f"in the log, {sent} edges sent by the boards; not in the log, as (seat, pile, "
                f"pressed): true µs: {unmatched})"
            )
        time.sleep(0.25)


def logged_contacts(
    admin: Admin, boards: BoardProcess, game: int
) -> tuple[list[tuple[int, float]], int, dict[tuple[int, int, int], list[int]]]:
    """The contacts logged so far, [(seq, true contact time)] of those matched to an
    edge the boards sent; how many presses and releases the log holds; and the edges
    sent that no logged one matched, by (seat, pile, pressed)."""
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
    return out, len(logged), {k: v for k, v in truths.items() if v}
