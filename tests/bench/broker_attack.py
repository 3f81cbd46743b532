"""A stranger on the venue's (open) broker attacks the hub: `attack.py --broker`.

A real mosquitto and a real `buzzerbox hub` (with the event's key, then with
--insecure-open-broker) on 127.0.0.1; one real table `t1` publishes a signed state
and result. Then a client without the key publishes `--names` (500) retained
state + online messages under made-up box names, a forged result of t1 ("Mallory",
a higher seq), and `--races` (5,000) race messages each with a new player's name.
Prints what the hub shows afterwards (tables, tournament rows, refused), its peak
RSS (VmHWM) and the CPU it spent on the attack (utime + stime of /proc/PID/stat).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from buzzerbox.mqtt.sign import Signer
from paho.mqtt.enums import CallbackAPIVersion

KEY = "bench-event-key-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def message(**fields: Any) -> bytes:
    return json.dumps({"v": 1, "at": time.time(), **fields}, separators=(",", ":")).encode()


def state(box: str, seq: int) -> bytes:
    players = [{"name": "Ann", "total": 3}, {"name": "Ben", "total": 1}]
    game = {"game": "kids", "title": "Ligretto Kids", "round": 1, "players": players}
    return message(id=f"{box}/1/{seq}", box=box, game_id=1, seq=seq, phase="scored", state=game)


def result(box: str, seq: int, winner: str) -> bytes:
    return message(
        id=f"{box}/1/{seq}", box=box, game_id=1, seq=seq, finished=True, title="Kids",
        high_wins=False, players=[{"name": winner, "total": 999}], winners=[winner], stats={},
    )  # fmt: skip


def race(box: str, seq: int, first: str) -> bytes:
    return message(
        id=f"{box}/1/{seq}", box=box, game_id=1, seq=seq, key=f"1/1/{seq}/0", title="Kids",
        round=1, first=first, pad="stop", reaction_us=1000, lead_us=10, presses=[], late=[],
    )  # fmt: skip


def publish(port: int, messages: list[tuple[str, bytes, bool]]) -> None:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"stranger-{os.getpid()}")
    client.max_inflight_messages_set(1000)
    client.connect("127.0.0.1", port)
    client.loop_start()
    infos = [client.publish(t, p, qos=1, retain=r) for t, p, r in messages]
    for info in infos:
        info.wait_for_publish(30)
    client.disconnect()
    client.loop_stop()


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_mb(pid: int) -> float:
    found = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return int(found.group(1)) / 1024 if found else float("nan")


def board(port: int) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/api/board")
    data: dict[str, Any] = json.load(conn.getresponse())
    conn.close()
    return data


def start(
    folder: Path, secure: bool, broker_conf: str = "max_queued_messages 100000\n"
) -> tuple[subprocess.Popen[bytes], subprocess.Popen[str], int]:
    """mosquitto (anonymous, no persistence, `broker_conf` besides) and `buzzerbox hub`
    (with the key if `secure`) on `folder`: (broker, hub, the broker's port)."""
    port = free_port()
    (folder / "m.conf").write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
        "max_inflight_messages 1000\n" + broker_conf
    )
    broker = subprocess.Popen(
        [shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c", str(folder / "m.conf")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(0.5)  # a bench: mosquitto's start
    return broker, start_hub(folder, port, secure), port


def start_hub(folder: Path, port: int, secure: bool) -> subprocess.Popen[str]:
    """`buzzerbox hub` on the broker at `port`, its data in folder/hub; its web port is
    read from its first lines (`web_port`)."""
    command = [sys.executable, "-m", "buzzerbox", "hub", "--broker", f"mqtt://127.0.0.1:{port}",
               "--host", "127.0.0.1", "--port", "0", "--data", str(folder / "hub")]  # fmt: skip
    if not secure:
        command.append("--insecure-open-broker")
    env = {**os.environ, "BUZZERBOX_MQTT_SECRET": KEY}
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )


def web_port(hub: subprocess.Popen[str]) -> int:
    assert hub.stdout is not None
    while True:
        line = hub.stdout.readline()
        if not line:
            raise SystemExit("buzzerbox hub ended")
        if found := re.search(r"open http://127\.0\.0\.1:(\d+)/", line):
            return int(found.group(1))


def run_one(secure: bool, names: int, races: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="buzzerbox-broker-attack-"))
    broker, hub, port = start(folder, secure)
    try:
        web = web_port(hub)
        signer = Signer(KEY.encode())
        real = [
            (topic, signer.sign(topic, payload), True)
            for topic, payload in [
                ("buzzerbox/t1/state", state("t1", 5)),
                ("buzzerbox/t1/games/1", result("t1", 6, "Ann")),
            ]
        ]
        publish(port, real)
        time.sleep(1.0)
        before = cpu_s(hub.pid)
        began = time.monotonic()
        hostile: list[tuple[str, bytes, bool]] = []
        for n in range(names):
            hostile.append((f"buzzerbox/fake{n}/state", state(f"fake{n}", 1), True))
            hostile.append((f"buzzerbox/fake{n}/status", b"online", True))
        hostile.append(("buzzerbox/t1/games/1", result("t1", 10**6, "Mallory"), True))
        hostile += [
            ("buzzerbox/t1/race", race("t1", 100 + n, f"racer{n}"), False) for n in range(races)
        ]
        publish(port, hostile)
        total = len(hostile)
        while True:  # until the hub has taken in the attack (or 120 s)
            shown = board(web)
            if (secure and shown["refused"] >= total - names) or time.monotonic() - began > 120:
                break
            if not secure and time.monotonic() - began > 5:
                break
            time.sleep(0.5)
        spent = cpu_s(hub.pid) - before
        tables = [t["box"] for t in shown["tables"]]
        tournament = [r["name"] for r in shown["tournament"]]
        print(
            f"hub {'with the key' if secure else '--insecure-open-broker'}: {total} hostile "
            f"messages ({names} names, {races} races): tables {len(tables)} "
            f"(t1 {'kept' if 't1' in tables else 'LOST'}), tournament rows {len(tournament)} "
            f"({'Mallory SHOWN' if 'Mallory' in tournament else 'no Mallory'}), refused "
            f"{shown['refused']}, dropped {shown['dropped']}; hub CPU {spent:.1f} s, peak RSS "
            f"{peak_mb(hub.pid):.0f} MB, /api/board {len(json.dumps(shown)) / 1024:.0f} KiB"
        )
    finally:
        hub.terminate()
        hub.wait(30)
        broker.terminate()
        broker.wait(30)
        shutil.rmtree(folder, ignore_errors=True)


def broker_attacks(names: int = 500, races: int = 5000) -> None:
    run_one(True, names, races)
    run_one(False, names, races)
