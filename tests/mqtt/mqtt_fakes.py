"""Helpers of the MQTT tests: a real mosquitto on loopback, a recorder, a clock, games.

A module of its own: test modules import from it (conftest.py holds the fixtures).
"""

from __future__ import annotations

import contextlib
import getpass
import os
import queue
import re
import shutil
import socket
import subprocess
import sys
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import paho.mqtt.client as mqtt
from buzzerbox.box import Box
from buzzerbox.box.checks import table_entry
from buzzerbox.hub.leaderboard import Leaderboard, Update
from buzzerbox.hub.messages import EventMessage
from buzzerbox.mqtt import Publisher
from buzzerbox.mqtt.connect import stop_client
from buzzerbox.rules.eventjson import parse_edge
from buzzerbox.testing import ManualClock as ManualClock
from buzzerbox.testing import Timer as Timer
from paho.mqtt.enums import CallbackAPIVersion

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
#: the `make_box` fixture: Box(name, clock)
MakeBox = Callable[[str, ManualClock], Box]
TIMEOUT_S = 15.0
COUNTDOWN_US = 1_000_000


class Closes(Protocol):
    def close(self) -> None: ...


Closing = TypeVar("Closing", bound=Closes)


def closed_after(make: Callable[..., Closing]) -> Iterator[Callable[..., Closing]]:
    """A fixture's body: `make`, and each thing it made closed once the test is over
    (in the order made)."""
    made: list[Closing] = []

    def making(*args: Any, **options: Any) -> Closing:
        thing = make(*args, **options)
        made.append(thing)
        return thing

    yield making
    for thing in made:
        thing.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Mosquitto:
    """A mosquitto of its own on a free loopback port, with persistence, restartable."""

    def __init__(self, folder: Path, *, listener: str = "", persistence: bool = True) -> None:
        """`listener`: lines for the listener (TLS files, a password file); the
        default is a plain one that lets anyone in."""
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str] = queue.Queue()
        folder.mkdir(parents=True, exist_ok=True)
        self.config = folder / "mosquitto.conf"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\n"
            + (listener or "allow_anonymous true\n")
            + f"persistence {'true' if persistence else 'false'}\n"
            f"persistence_location {folder}/\n"
            "max_queued_messages 100000\n"
            "log_dest stderr\n"
            "log_type error\nlog_type warning\nlog_type notice\nlog_type information\n"
            + (f"user {getpass.getuser()}\n" if os.geteuid() == 0 else "")
        )

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        process = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.config)],  # logs to stderr: unbuffered
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.process = process
        lines: queue.Queue[str] = queue.Queue()
        self.lines = lines

        def read() -> None:
            assert process.stderr is not None
            with contextlib.suppress(OSError, ValueError):  # closed by stop()
                for line in process.stderr:
                    lines.put(line)
            lines.put("")

        threading.Thread(target=read, daemon=True).start()
        try:
            while " running" not in (line := lines.get(timeout=TIMEOUT_S)):
                assert line, "mosquitto ended before it was running"
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """SIGTERM: mosquitto saves its retained messages and sessions, then ends."""
        if self.process is not None:
            self.process.terminate()
            self.process.wait(TIMEOUT_S)
            assert self.process.stderr is not None
            self.process.stderr.close()
            self.process = None


@dataclass
class HubProcess:
    """`buzzerbox hub` in a process of its own: its port and its admin PIN (if any)."""

    process: subprocess.Popen[str]
    port: int = 0
    pin: str = ""

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(TIMEOUT_S)
        if self.process.stdout is not None:
            self.process.stdout.close()


def run_hub(
    broker_url: str, name: str, *options: str, env: dict[str, str] | None = None
) -> HubProcess:
    """`buzzerbox hub` named `name` on `broker_url` with `options`, on a free loopback
    port, once it has said where (stopped again if it never does)."""
    command = [sys.executable, "-m", "buzzerbox", "hub", "--broker", broker_url,
               "--host", "127.0.0.1", "--port", "0", "--name", name, *options]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    hub = HubProcess(process)
    try:
        assert process.stdout is not None
        while not hub.port:
            line = process.stdout.readline()
            assert line, "buzzerbox hub ended before it printed its address"
            if found := re.search(r"admin PIN (\d+)", line):
                hub.pin = found.group(1)
            if found := re.search(r"open http://127\.0\.0\.1:(\d+)/", line):
                hub.port = int(found.group(1))
    except BaseException:
        hub.stop()
        raise
    return hub


class Recorder:
    """A client that records every message under `topics` (QoS 1, retained too)."""

    def __init__(
        self,
        url: str,
        topics: list[str],
        *,
        client_id: str = "",
        clean: bool = True,
        login: tuple[str, str] | None = None,
    ):
        port = int(url.rsplit(":", 1)[1])
        self.closed = False
        self.messages: list[mqtt.MQTTMessage] = []
        self.cond = threading.Condition()
        self.subscribed = threading.Event()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean
        )
        self.client.reconnect_delay_set(1, 1)
        if login is not None:
            self.client.username_pw_set(*login)

        def on_connect(client: mqtt.Client, *args: Any) -> None:
            client.subscribe([(t, 1) for t in topics])

        def on_subscribe(*args: Any) -> None:
            self.subscribed.set()

        def on_message(client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
            with self.cond:
                self.messages.append(message)
                self.cond.notify_all()

        self.client.on_connect = on_connect
        self.client.on_subscribe = on_subscribe
        self.client.on_message = on_message
        self.client.connect_async("127.0.0.1", port, 15)
        self.client.loop_start()
        assert self.subscribed.wait(TIMEOUT_S), "the recorder could not subscribe"

    def wait(self, predicate: Callable[[list[mqtt.MQTTMessage]], bool]) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: predicate(self.messages), TIMEOUT_S)

    def on(self, topic: str) -> list[mqtt.MQTTMessage]:
        with self.cond:
            return [m for m in self.messages if m.topic == topic]

    def close(self) -> None:
        """Once; a second call does nothing."""
        if not self.closed:
            self.closed = True
            stop_client(self.client)


#: the `recorders` fixture: Recorder(broker.url, topics, **options)
Record = Callable[..., Recorder]
#: the `attached` fixture: attach(box, broker.url, name, data, **options)
Attach = Callable[..., Publisher]


@dataclass
class Watcher:
    """What a hub's board passes on, recorded for the test to wait on: the events it
    accepts (per box, in order) and the updates for the page."""

    board: Leaderboard
    cond: threading.Condition = field(default_factory=threading.Condition)
    events: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)
    tournament: list[dict[str, Any]] = field(default_factory=list)
    races: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.board.when_event.append(self._event)

    def _event(self, box: str, data: EventMessage) -> None:
        with self.cond:
            self.events[box].append(data.seq)
            self.cond.notify_all()

    def updates(self, updates: list[Update]) -> None:
        with self.cond:
            for kind, data in updates:
                if kind == "table":
                    self.tables[data["box"]] = data
                elif kind == "tournament":
                    self.tournament = data
                elif kind == "race":
                    self.races.append(data)
            self.cond.notify_all()

    def wait(self, predicate: Callable[[], bool], timeout: float = TIMEOUT_S) -> bool:
        with self.cond:
            return self.cond.wait_for(predicate, timeout)


def log_seqs(box: Box) -> list[int]:
    """Every seq in the box's log, in order."""
    return [e.seq for g in reversed(box.log.games()) for e in box.log.events(g.id)]


def kids_round(box: Box, clock: ManualClock, winner: int, after_us: int = 850_000) -> None:
    """One Ligretto Kids round: the countdown, `winner` presses stop, the cards left."""
    box.submit(table_entry({"type": "round"}))
    clock.advance(COUNTDOWN_US)
    clock.advance(after_us)
    box.play(parse_edge(True, winner, "stop", box.now_us()))
    players = box.state()["players"]
    left = {p["name"]: (0 if seat == winner else 3 + seat) for seat, p in enumerate(players)}
    box.submit(table_entry({"type": "left", "counts": left}))


def twinit_claim(box: Box, clock: ManualClock, first: int, second: int, lead_us: int) -> None:
    """A Twin It! claim: `first` slaps, `second` `lead_us` later; the table says pair."""
    if box.state()["phase"] == "lobby":
        box.submit(table_entry({"type": "round"}))
        clock.advance(COUNTDOWN_US)
    clock.advance(600_000)
    box.play(parse_edge(True, first, "slap", box.now_us()))
    clock.advance(lead_us)
    box.play(parse_edge(True, second, "slap", box.now_us()))
    box.submit(table_entry({"type": "claim", "result": "pair"}))
