"""A real `buzzerbox serve`: kill -9 at any moment loses nothing acknowledged and
doubles nothing; the live stream (the fanout under waitress) follows the game."""

from __future__ import annotations

import http.client
import json
import queue
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonpatch
import pytest

from .web_fakes import Admin

PIN = "2580"
START_TIMEOUT_S = 30


@dataclass
class Served:
    process: subprocess.Popen[str]
    port: int = 0
    lines: queue.Queue[str] = field(default_factory=queue.Queue)
    reader: threading.Thread | None = None

    def kill(self) -> None:
        """kill -9, and tidy up after it."""
        self.process.kill()
        self.process.wait(10)
        if self.reader is not None:
            self.reader.join(10)
        if self.process.stdout is not None:
            self.process.stdout.close()


#: `python -c` as `python -m buzzerbox`, on a machine where live/_sendall.c was not built
WITHOUT_C_LOOP = (
    "import sys; sys.modules['buzzerbox.live._sendall'] = None; "
    "from buzzerbox.cli import main; sys.exit(main())"
)


def serve(data: Path, without_c_loop: bool = False) -> Served:
    """`buzzerbox serve` (its stderr too in `lines` if `without_c_loop`)."""
    config = data / "box.toml"
    config.write_text("countdown_s = 0.05\n")
    run = ["-c", WITHOUT_C_LOOP] if without_c_loop else ["-m", "buzzerbox"]
    command = [sys.executable, *run, "serve", "--config", str(config),
               "--host", "127.0.0.1", "--port", "0", "--data", str(data), "--pin", PIN,
               "--max-phones", "20"]  # fmt: skip
    stderr = subprocess.STDOUT if without_c_loop else None
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True)
    served = Served(process)

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            served.lines.put(line)
        served.lines.put("")

    served.reader = threading.Thread(target=read, daemon=True)
    served.reader.start()
    while True:
        line = served.lines.get(timeout=START_TIMEOUT_S)
        assert line, "buzzerbox serve ended before it printed its address"
        if found := re.search(r"open http://127\.0\.0\.1:(\d+)/", line):
            served.port = int(found.group(1))
        if f"admin PIN {PIN}" in line:
            return served


def live(port: int, last_id: int | None = None) -> Iterator[dict[str, Any]]:
    """The states of a live stream (HTTP/1.1, chunked: as a browser reads it): the full
    state, then each delta applied to it (JSON Patch, by the `jsonpatch` package)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    head = "GET /api/events HTTP/1.1\r\nHost: box\r\nAccept: text/event-stream\r\n"
    if last_id is not None:
        head += f"Last-Event-ID: {last_id}\r\n"
    sock.sendall((head + "\r\n").encode())
    reader = sock.makefile("rb")
    state: dict[str, Any] = {}
    event = b""
    try:
        while True:
            line = reader.readline()
            assert line, "the stream ended"
            if line.startswith(b"event: "):
                event = line[7:].strip()
            elif line.startswith(b"data: ") and event != b"keepalive":
                data = json.loads(line[6:])
                state = data if event == b"state" else jsonpatch.apply_patch(state, data)
                yield state
    finally:
        reader.close()
        sock.close()


def until(stream: Iterator[dict[str, Any]], phase: str) -> dict[str, Any]:
    return next(state for state in stream if state["phase"] == phase)


def caller(stream: Iterator[dict[str, Any]]) -> str:
    """The first caller the stream shows (the box's own part, e.g. its phones, may change
    in a state between the round's and the caller's)."""
    return str(next(state for state in stream if state["caller"] is not None)["caller"])


def game_of(state: dict[str, Any]) -> dict[str, Any]:
    """The state without what changes with time and session."""
    return {k: v for k, v in state.items() if k != "box"}


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
def tidy() -> Iterator[list[Any]]:
    """What a test opened (boxes, admins, streams), closed or killed at its end."""
    opened: list[Any] = []
    yield opened
    for thing in reversed(opened):
        if isinstance(thing, Served):
            thing.kill()
        else:
            thing.close()


def test_kill_9_loses_nothing_acknowledged_and_doubles_nothing(data: Path, tidy: list[Any]) -> None:
    served = serve(data)
    admin = Admin(served.port, PIN)
    stream = live(served.port)
    tidy += [served, admin, stream]
    admin.post("/api/game", {"game": "twist", "players": ["Ann", "Ben", "Cem"]})
    admin.post("/api/event", {"type": "round"})
    until(stream, "playing")
    acked: list[int] = []
    for i in range(40):
        path = "/api/pads/press" if i % 2 == 0 else "/api/pads/release"
        acked.append(admin.post(path, {"seat": 1, "pad": "pile", "pile": 3})["seq"])
    quiet = admin.state()
    served.kill()  # kill -9 with the game at rest

    served = serve(data)
    admin = Admin(served.port, PIN)
    tidy += [served, admin]
    again = admin.state()
    assert game_of(again) == game_of(quiet)
    assert again["box"]["seq"] == acked[-1]
    assert again["players"][1]["laid"] == 20

    # kill -9 again, while presses are in flight
    stop = threading.Event()
    in_flight: list[int] = []

    def press() -> None:
        try:
            for i in range(10_000):
                path = "/api/pads/press" if i % 2 == 0 else "/api/pads/release"
                reply = admin.post(path, {"seat": 0, "pad": "pile", "pile": 1})
                in_flight.append(reply["seq"])
                if len(in_flight) == 25:
                    stop.set()
        except (OSError, http.client.HTTPException, ValueError):
            pass  # the box died under us

    presser = threading.Thread(target=press)
    presser.start()
    assert stop.wait(30)
    served.kill()
    presser.join(30)

    served = serve(data)
    admin = Admin(served.port, PIN)
    tidy += [served, admin]
    after = admin.state()
    assert after["box"]["seq"] >= in_flight[-1]  # every acknowledged event is there
    admin.conn.request("GET", "/api/export/log")
    lines = [json.loads(x) for x in admin.conn.getresponse().read().decode().splitlines()]
    edges = [e for e in lines if e["type"] in ("press", "release")]
    pads = [(e["type"], e["seat"], e["t_us"]) for e in edges]
    assert len(pads) == len(set(pads))  # nothing doubled
    laid = sum(1 for kind, seat, _ in pads if kind == "press" and seat == 0)
    assert after["players"][0]["laid"] == laid >= 13


def test_the_live_stream_of_a_real_box_follows_and_resumes(data: Path, tidy: list[Any]) -> None:
    served = serve(data)
    admin = Admin(served.port, PIN)
    viewer = live(served.port)
    tidy += [served, admin, viewer]
    assert next(viewer)["phase"] == "idle"
    admin.post("/api/game", {"game": "kids", "players": ["Ann", "Ben"]})
    assert next(viewer)["phase"] == "lobby"
    admin.post("/api/event", {"type": "round"})
    playing = until(viewer, "playing")
    assert playing["box"]["admin"] is False
    seq = admin.post("/api/pads/press", {"seat": 1, "pad": "stop"})["seq"]
    assert caller(viewer) == "Ben"
    resumed = live(served.port, last_id=seq - 1)  # a phone back from sleep
    tidy.append(resumed)
    assert next(resumed)["box"]["seq"] == seq


def test_a_box_without_its_c_loop_says_so_and_its_phones_follow(
    data: Path, tidy: list[Any]
) -> None:
    """A machine with no C compiler installs the box without live/_sendall.c: it says
    so when it starts, and the Python loop writes every phone instead."""
    served = serve(data, without_c_loop=True)
    admin = Admin(served.port, PIN)
    phones = [live(served.port) for _ in range(3)]
    tidy += [served, admin, *phones]
    notes = [served.lines.get(timeout=START_TIMEOUT_S) for _ in range(2)]  # the PIN's first
    note = next((n for n in notes if "Python loop" in n), f"no such note: {notes}")
    assert "buzzerbox serve: note: the phones are written by the Python loop" in note
    assert "apt install gcc python3-dev" in note
    for phone in phones:
        assert next(phone)["phase"] == "idle"
    admin.post("/api/game", {"game": "kids", "players": ["Ann", "Ben"]})
    admin.post("/api/event", {"type": "round"})
    for phone in phones:
        until(phone, "playing")
    admin.post("/api/pads/press", {"seat": 0, "pad": "stop"})
    assert [caller(phone) for phone in phones] == ["Ann"] * 3
