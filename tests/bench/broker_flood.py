"""Junk floods the hub (issue 39, item 5): `attack.py --flood [SECONDS]`.

A real mosquitto (2.0, its defaults but for an anonymous listener) and a real
`buzzerbox hub` with the event's key on 127.0.0.1. JUNKERS processes publish unsigned
states (QoS 0) under made-up box names as fast as they can for SECONDS; meanwhile table
t1 publishes a signed state every second (QoS 1) and a reader polls /api/board every
50 ms for it. Prints the junk sent, when each signed state showed after it was sent
(p50, max) and how long the broker took to take it, the hub's CPU over the flood; then
the same at RATE junk messages a second; then a restart of the hub behind RETAINED retained junk
states (how long until it shows t1). The issue's figures (the hub of main then) are
printed beside.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from broker_attack import (  # type: ignore[import-not-found]  # this folder
    KEY,
    board,
    cpu_s,
    publish,
    start,
    start_hub,
    state,
    web_port,
)
from buzzerbox.mqtt.sign import Signer

JUNKERS = 3
RATE = 10_000
RETAINED = 20_000

#: one junk publisher: QoS 0 states as fast as it can (or `rate` a second) for `s` s
JUNKER = """
import sys, time, paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
port, name, seconds, rate = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=name)
c.connect("127.0.0.1", port)
c.loop_start()
payload = b'{"v":1,"seq":1,"game_id":1,"phase":"playing","state":{"players":[]}}'
n, t0 = 0, time.monotonic()
while (now := time.monotonic()) - t0 < seconds:
    if rate and n >= (now - t0) * rate:
        time.sleep(0.001)
        continue
    c.publish(f"buzzerbox/{name}-{n % 500}/state", payload, qos=0)
    n += 1
c.loop_stop()
print(n)
"""


class Shown:
    """When each seq of t1's state first showed on the hub's /api/board (monotonic s)."""

    def __init__(self, web: int) -> None:
        self.web = web
        self.at: dict[int, float] = {}
        self.stop = threading.Event()
        threading.Thread(target=self.poll, daemon=True).start()

    def poll(self) -> None:
        while not self.stop.is_set():
            try:
                tables = board(self.web)["tables"]
            except OSError:
                continue
            now = time.monotonic()
            for table in tables:
                if table["box"] == "t1" and table["seq"] is not None:
                    self.at.setdefault(int(table["seq"]), now)
            self.stop.wait(0.05)

    def when(self, seq: int) -> float | None:
        seen = [t for s, t in self.at.items() if s >= seq]
        return min(seen) if seen else None


def junkers(port: int, seconds: float, rate: float = 0.0, n: int = JUNKERS) -> list[Any]:
    return [
        subprocess.Popen(
            [sys.executable, "-c", JUNKER, str(port), f"junk{i}", str(seconds), str(rate / n)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(n)
    ]


def flood(seconds: float = 30.0) -> None:
    folder = Path(tempfile.mkdtemp(prefix="buzzerbox-broker-flood-"))
    broker, hub, port = start(folder, True, broker_conf="")
    signer = Signer(KEY.encode())
    try:
        web = web_port(hub)
        shown = Shown(web)
        topic = "buzzerbox/t1/state"
        publish(port, [(topic, signer.sign(topic, state("t1", 1)), True)])
        # as fast as the junkers can, then at RATE a second
        runs = (("as fast as it goes", 0.0, seconds), (f"{RATE:,}/s", RATE, 15.0))
        for label, rate, length in runs:
            sent: dict[int, float] = {}
            acked: list[float] = []  # how long the broker took to take each signed state
            before, began = cpu_s(hub.pid), time.monotonic()
            procs = junkers(port, length, rate)
            seq = 10 * len(shown.at) + 100
            while time.monotonic() - began < length:
                seq += 1
                sent[seq] = time.monotonic()
                publish(port, [(topic, signer.sign(topic, state("t1", seq)), True)])
                acked.append(time.monotonic() - sent[seq])
                time.sleep(1.0)
            junk = sum(int((p.communicate()[0] or "0").strip() or 0) for p in procs)
            flood_s = time.monotonic() - began
            deadline = time.monotonic() + 60
            while shown.when(seq) is None and time.monotonic() < deadline:
                time.sleep(0.1)
            spent = cpu_s(hub.pid) - before
            late = [(shown.when(s) or deadline) - t for s, t in sent.items()]
            print(
                f"hub flooded {label}: {junk:,} junk messages in {flood_s:.0f} s; a signed state "
                f"showed after p50 {statistics.median(late):.2f} s, max {max(late):.2f} s "
                f"({sum(x >= 60 for x in late)} never; the broker took it after p50 "
                f"{statistics.median(acked):.2f} s); hub CPU {spent:.1f} s "
                f"({spent / max(flood_s, 1e-9):.2f} of a core, {spent / max(junk, 1) * 1e6:.0f} "
                "µs a junk message)"
            )
        shown.stop.set()
        hub.terminate()
        hub.wait(30)
        old = [(f"buzzerbox/old{n}/state", state(f"old{n}", 1), True) for n in range(RETAINED)]
        publish(port, old)
        began = time.monotonic()
        hub = start_hub(folder, port, True)
        web = web_port(hub)
        while not any(t["box"] == "t1" for t in board(web)["tables"]):
            time.sleep(0.05)
        print(
            f"hub restarted behind {RETAINED:,} retained junk states: t1 shown after "
            f"{time.monotonic() - began:.2f} s (from the process's start)"
        )
    finally:
        hub.terminate()
        hub.wait(30)
        broker.terminate()
        broker.wait(30)
        shutil.rmtree(folder, ignore_errors=True)
    print(
        "issue 39's figures (main before): ~3.4 million junk in 30 s: 79 s hub CPU, signed "
        "results after p50 16 s to over 30 s; 10,000/s: 0.9 of a core; 20,000 retained "
        "junk: a restarted hub 4.1 s late"
    )
