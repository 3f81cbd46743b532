"""Where the time goes from a fake board's contact to the first phone: a per-stage
breakdown of the fixed path, in one process.

Runs the real `buzzerbox serve` (its `run_serve`, in this process's main thread, with
two fake pad boards on ptys in a process of their own, as tests/bench/phones.py's
board mode does) and times each stage of every pad event by wrapping the box's own
methods (nothing in the product is changed for it):

    contact      the board's true time of the contact (the boards' process)
    link         the link thread read the EDGE's bytes (its stamp)
    arbiter      the frame decoded and mapped, the edge given to the arbiter
    final        the arbiter let it go: the box's pad_edge begins
    rules        the rules took it: the log's append begins
    logged       append returned (SQLite, its fsync included)
    diffed       the live stream's delta is made (StateView.publish returned)
    sent         the fanout thread begins its round (first send)
    phone        the first of `--phones` phones (read in this process) has it

It prints the median and p95 of each stage's share (ms), and of contact -> first
phone. The phones are read in this process, so they share its GIL with the box:
keep them few (default 1).

    python tests/bench/stages.py [--events 100] [--rate 10] [--phones 1] [--no-ask]

`--no-ask`: the pad sources do not ask the boards for their watermark (the path as it
was before: an edge waits for both boards' next idle TICK, every 10 ms).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from buzzerbox.box.core import Box
from buzzerbox.clock import monotonic_us
from buzzerbox.live.fanout import Fanout
from buzzerbox.live.livestate import StateView
from buzzerbox.pads.sources import PadSources
from buzzerbox.pads.timeline.arbiter import Arbiter, Edge
from buzzerbox.serve import main as serve_main
from buzzerbox.store.eventlog import EventLog

from tests.bench.boxdrive import PAD_MAP, PLAYERS, Admin
from tests.bench.phones import percentile
from tests.bench.streams import Phones
from tests.faults.boardproc import BoardProcess

STAGES = ["link", "arbiter", "final", "rules", "logged", "diffed", "sent", "phone"]
marks: dict[int, dict[str, float]] = {}  # edge time (µs) -> stage -> monotonic µs
by_version: dict[int, int] = {}
by_seq: dict[int, int] = {}
local = threading.local()


def instrument(ask: bool) -> None:
    """Wrap the methods whose times make the stages (in this process only)."""
    edge, pad_edge, append = Arbiter.edge, Box.pad_edge, EventLog.append
    publish, send_all, init = StateView.publish, Fanout.send_all, PadSources.__init__

    def sources_init(self: PadSources, *a: Any, **kw: Any) -> None:
        init(self, *a, **kw)
        self.asks_watermarks = ask

    def arb_edge(self: Arbiter, e: Any, now_us: int, **kw: Any) -> None:
        marks.setdefault(e.t_us, {}).update(link=now_us, arbiter=monotonic_us())
        edge(self, e, now_us, **kw)

    def box_pad_edge(self: Box, e: Edge) -> Any:
        marks.setdefault(e.t_us, {})["final"] = monotonic_us()
        local.key = e.t_us
        try:
            return pad_edge(self, e)
        finally:
            local.key = None

    def log_append(self: EventLog, *a: Any, **kw: Any) -> int:
        key = getattr(local, "key", None)
        if key is not None:
            marks[key]["rules"] = monotonic_us()
        seq = append(self, *a, **kw)
        if key is not None:
            marks[key]["logged"] = monotonic_us()
            by_seq[seq] = key
        return seq

    def hub_publish(self: StateView[Any], state: Any) -> None:
        publish(self, state)
        key = getattr(local, "key", None)
        if key is not None and "diffed" not in marks[key] and "logged" in marks[key]:
            marks[key]["diffed"] = monotonic_us()
            by_version[self.stream.version] = key

    def fanout_send_all(self: Fanout, shard: Any, before: int, latest: int) -> None:
        now = monotonic_us()
        for v in range(before + 1, latest + 1):
            if v in by_version:
                marks[by_version[v]].setdefault("sent", now)
        send_all(self, shard, before, latest)

    PadSources.__init__ = sources_init  # type: ignore[method-assign]
    Arbiter.edge = arb_edge  # type: ignore[method-assign,assignment]
    Box.pad_edge = box_pad_edge  # type: ignore[method-assign,assignment]
    EventLog.append = log_append  # type: ignore[method-assign]
    StateView.publish = hub_publish  # type: ignore[method-assign]
    Fanout.send_all = fanout_send_all  # type: ignore[method-assign]


def drive(args: argparse.Namespace, folder: Path, boards: BoardProcess, out: list[Any]) -> None:
    """The bench's thread: phones, a game, the contacts; then it ends the server."""
    try:
        port = 0
        deadline = time.monotonic() + 20
        while not port and time.monotonic() < deadline:
            text = (folder / "out.txt").read_text() if (folder / "out.txt").exists() else ""
            port = next((int(w.rsplit(":", 1)[1].strip("/")) for w in text.split()
                         if w.startswith("http://127.0.0.1:")), 0)  # fmt: skip
            time.sleep(0.05)
        phones = Phones(port)
        threading.Thread(target=phones.run, daemon=True).start()
        phones.open(args.phones)
        admin = Admin(port)
        admin.call("POST", "/api/game", {"game": "twist", "players": PLAYERS})
        admin.call("POST", "/api/event", {"type": "round"})
        admin.until("playing")
        time.sleep(0.5)
        marks.clear()
        gap_us = int(1e6 / args.rate)
        for i in range(0, args.events, 2):
            seat, pile = (i // 2) % 4, (i // 8) % 4
            board, ch = f"pico-{'ab'[seat // 2]}", 4 * (seat % 2) + pile
            boards.at(50_000 + i * gap_us + (i * 7919) % 3000, board, ch, 1)
            boards.at(50_000 + (i + 1) * gap_us + (i * 104729) % 3000, board, ch, 0)
        boards.flush()
        time.sleep(0.05 + args.events / args.rate + 0.5)
        truth = sorted(t for edges in boards.sent().values() for _, _, t in edges)
        for seq, key in by_seq.items():
            m = marks[key]
            m["contact"] = min(truth, key=lambda t: abs(t - key))
            first = min(
                (t for fd in phones.tail if (t := phones.arrival(fd, seq)) is not None),
                default=None,
            )
            if first is not None:
                m["phone"] = first * 1e6
        out.append([m for m in marks.values() if all(s in m for s in ["contact", *STAGES])])
        phones.close()
    finally:
        os.kill(os.getpid(), signal.SIGTERM)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--rate", type=float, default=10.0)
    parser.add_argument("--phones", type=int, default=1)
    parser.add_argument("--no-ask", action="store_true", help="wait for the boards' TICKs")
    args = parser.parse_args()
    instrument(ask=not args.no_ask)
    boards = BoardProcess("pico-a:pty", "pico-b:pty")
    out: list[Any] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "pads.toml").write_text(
            PAD_MAP.format(**{b: boards.urls[f"pico-{b}"] for b in "ab"})
        )
        (folder / "box.toml").write_text('countdown_s = 0.2\n[pads]\nmap = "pads.toml"\n')
        threading.Thread(target=drive, args=(args, folder, boards, out), daemon=True).start()
        stdout = sys.stdout
        with open(folder / "out.txt", "w") as sys.stdout:  # serve's addresses, for drive()
            cfg, data = str(folder / "box.toml"), str(folder / "data")
            serve_main(["serve", "--config", cfg, "--host", "127.0.0.1", "--port", "0",
                        "--data", data, "--pin", "2468"])  # fmt: skip
        sys.stdout = stdout
        boards.close()
    rows = out[0] if out else []
    if not rows:
        print("FAIL: no event went all the way")
        return 1
    order = ["contact", *STAGES]
    result: dict[str, Any] = {"events": len(rows), "ask": not args.no_ask, "phones": args.phones}
    for a, b in itertools.pairwise(order):
        share = [(m[b] - m[a]) / 1000 for m in rows]
        result[b] = [round(statistics.median(share), 2), round(percentile(share, 0.95), 2)]
    total = [(m["phone"] - m["contact"]) / 1000 for m in rows]
    result["contact_to_first_phone"] = [
        round(statistics.median(total), 2),
        round(percentile(total, 0.95), 2),
    ]
    result["load"] = Path("/proc/loadavg").read_text().split()[0]
    print("# each stage: [median, p95] ms of its share; from the contact to the first phone")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
