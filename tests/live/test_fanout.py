"""The fanout (live/fanout.py) on a real waitress server in this process, with two
sender threads: every phone gets every delta once and in order, whichever thread
writes it, and a phone that stops reading holds back none of the others."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import jsonpatch
import pytest
from buzzerbox.box import Box
from buzzerbox.live.fanout import Fanout
from buzzerbox.server.listen import bind, make_server
from buzzerbox.web import create_app
from web.web_fakes import PIN, Admin, ManualClock  # type: ignore[import-not-found]

PLAYERS = ["Ann", "Ben", "Cem", "Dan"]


@dataclass
class Served:
    port: int
    fanout: Fanout
    hub: Any
    server: Any


def serve(box: Box, config: dict[str, Any]) -> Iterator[Served]:
    app = create_app(box, config)
    server = make_server(app, bind("127.0.0.1", 0), 20)
    runner = threading.Thread(target=server.run, daemon=True)
    runner.start()
    parts = app.extensions["buzzerbox"]
    yield Served(int(server.effective_port), parts["fanout"], parts["live"], server)
    server.close()
    runner.join(10)
    parts["fanout"].close()


@pytest.fixture
def served(box: Box, app_config: dict[str, Any]) -> Iterator[Served]:
    config = {**app_config, "SSE_FANOUT": True, "SSE_FANOUT_THREADS": 2, "SSE_KEEPALIVE_S": 0.2}
    yield from serve(box, config)


@dataclass
class Phone:
    """A browser's live stream (HTTP/1.1, chunked) on a raw socket: each message's event
    and version (the id's second part), and the state they add up to."""

    port: int
    rcvbuf: int = 0
    messages: list[tuple[str, int]] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.sock = socket.socket()
        if self.rcvbuf:  # a phone on a slow link: little room in the kernel for it
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.rcvbuf)
        self.sock.settimeout(10)
        self.sock.connect(("127.0.0.1", self.port))
        self.address = self.sock.getsockname()
        self.sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: box\r\n\r\n")
        self.reader = self.sock.makefile("rb")

    def read_until(self, version: int) -> None:
        """Read messages until one brings the phone to `version`."""
        event, number = "", -1
        while not self.messages or self.messages[-1][1] < version:
            line = self.reader.readline()
            assert line, "the stream ended"
            if line.startswith(b"event: "):
                event = line[7:].strip().decode()
            elif line.startswith(b"id: "):
                number = int(line[4:].split(b".")[1])
            elif line.startswith(b"data: ") and event in ("state", "delta"):
                data = json.loads(line[6:])
                self.state = data if event == "state" else jsonpatch.apply_patch(self.state, data)
                self.messages.append((event, number))

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


def twist_round(served: Served, clock: ManualClock) -> Admin:
    """The admin, in a round of Twist that has begun."""
    admin = Admin(served.port, PIN)
    admin.post("/api/game", {"game": "twist", "players": PLAYERS})
    admin.post("/api/event", {"type": "round"})
    clock.advance(3_000_000)  # the countdown ends on the next change
    admin.post("/api/pads/press", {"seat": 0, "pad": "pile", "pile": 0})
    return admin


def press(admin: Admin, clock: ManualClock, presses: int) -> None:
    for i in range(presses):  # presses and releases on every seat's piles
        body = {"seat": i % 4, "pad": "pile", "pile": (i // 8) % 4}
        clock.advance(7_000)
        admin.post("/api/pads/press", body)
        clock.advance(3_000)
        admin.post("/api/pads/release", body)


def follow(phones: list[Phone], version: Any) -> list[threading.Thread]:
    """A reader thread per phone, reading until `version()` (called at its end)."""
    readers = [threading.Thread(target=lambda p=p: p.read_until(version())) for p in phones]
    for reader in readers:
        reader.start()
    return readers


def same_game(phone: Phone, admin: Admin) -> None:
    truth = admin.state()
    assert {k: v for k, v in phone.state.items() if k != "box"} == {
        k: v for k, v in truth.items() if k != "box"
    }
    assert phone.state["box"]["seq"] == truth["box"]["seq"]


def test_two_senders_give_every_phone_every_delta_once_and_in_order(
    served: Served, clock: ManualClock
) -> None:
    admin = twist_round(served, clock)
    phones = [Phone(served.port) for _ in range(6)]
    done = threading.Event()
    readers = follow(phones, lambda: (done.wait(30), served.hub.version)[1])
    press(admin, clock, 60)
    done.set()
    for reader in readers:
        reader.join(30)
    assert sorted(served.fanout.loads) == [3, 3]  # both threads had phones
    for phone in phones:
        first = phone.messages[0][1]
        assert phone.messages[0][0] == "state"
        assert phone.messages[1:] == [
            ("delta", v) for v in range(first + 1, served.hub.version + 1)
        ]
        assert len(phone.messages) > 100
        same_game(phone, admin)
        phone.close()
    admin.close()


def test_a_phone_that_stops_reading_holds_back_none_of_the_others(
    served: Served, clock: ManualClock
) -> None:
    served.fanout.backlog_limit = 16 * 1024  # beyond this unsent, a phone is skipped
    admin = twist_round(served, clock)
    asleep = Phone(served.port, rcvbuf=4096)  # the first phone: the first thread's
    press(admin, clock, 1)  # a delta: it comes by the fanout, so the fanout has the phone
    asleep.read_until(served.hub.version)
    [its] = [c for c in served.fanout.connections() if c.socket.getpeername() == asleep.address]
    its.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)  # a slow link's room
    phones = [Phone(served.port) for _ in range(5)]  # with it and on the other thread
    done = threading.Event()
    readers = follow(phones, lambda: (done.wait(30), served.hub.version)[1])
    press(admin, clock, 200)  # more than its socket and the limit hold: skipped from then
    done.set()
    for reader in readers:
        reader.join(30)
    for phone in phones:
        first = phone.messages[0][1]
        assert phone.messages[1:] == [
            ("delta", v) for v in range(first + 1, served.hub.version + 1)
        ]
        same_game(phone, admin)
        phone.close()
    asleep.read_until(served.hub.version)  # awake: brought up to date
    versions = [v for _, v in asleep.messages]
    assert versions == sorted(set(versions))  # nothing twice, nothing out of order
    # it missed more deltas than the box keeps: the full state again, not a flood
    assert [event for event, _ in asleep.messages].count("state") == 2
    assert len(versions) < served.hub.version - versions[0]
    same_game(asleep, admin)
    asleep.close()
    admin.close()


def test_a_phone_that_hangs_up_is_let_go_with_nothing_to_send(
    served: Served, clock: ManualClock
) -> None:
    admin = twist_round(served, clock)
    phones = [Phone(served.port) for _ in range(3)]
    press(admin, clock, 1)  # a delta by the fanout: it has every phone now
    for phone in phones:
        phone.read_until(served.hub.version)
    ends = {c.socket.getpeername(): c for c in served.fanout.connections()}
    gone = ends[phones[1].address]
    phones[1].close()
    assert gone.closed.wait(5)  # its sender looks for hang-ups; the stream's thread ends
    assert not gone.is_open
    assert all(ends[p.address].is_open for p in (phones[0], phones[2]))
    press(admin, clock, 1)
    for phone in (phones[0], phones[2]):
        phone.read_until(served.hub.version)
        same_game(phone, admin)
        phone.close()
    admin.close()


def test_a_live_phone_is_its_socket_in_the_fanout_and_holds_no_thread(
    served: Served, clock: ManualClock
) -> None:
    admin = twist_round(served, clock)
    phones: list[Phone] = []
    for _ in range(12):  # one after the other: each has its state before the next asks
        phones.append(Phone(served.port))
        phones[-1].read_until(served.hub.version)
    press(admin, clock, 1)  # a delta: it comes by the fanout, so the fanout has them all
    for phone in phones:
        phone.read_until(served.hub.version)
    assert sum(served.fanout.loads) == 12
    # a stream's waitress thread went back to serve requests: the next phone's took it
    assert len(served.server.task_dispatcher.threads) <= 6
    assert served.hub.clients == 12  # each still counted among the phones
    press(admin, clock, 2)
    for phone in phones:
        phone.read_until(served.hub.version)
        same_game(phone, admin)
        phone.close()
    admin.close()


def test_a_phone_that_hangs_up_gives_its_places_back(served: Served, clock: ManualClock) -> None:
    admin = twist_round(served, clock)
    phones = [Phone(served.port) for _ in range(3)]
    press(admin, clock, 1)  # a delta by the fanout: it has every phone now
    for phone in phones:
        phone.read_until(served.hub.version)
    ends = {c.socket.getpeername(): c for c in served.fanout.connections()}
    let_go = threading.Event()
    ends[phones[0].address].when_done(let_go.set)
    assert served.hub.clients == 3
    phones[0].close()
    assert let_go.wait(5)
    assert served.hub.clients == 2  # its place among the phones is free again
    for phone in phones[1:]:
        phone.close()
    admin.close()


@pytest.fixture
def short(box: Box, app_config: dict[str, Any]) -> Iterator[Served]:
    config = {**app_config, "SSE_FANOUT": True, "SSE_KEEPALIVE_S": 0.2, "SSE_MAX_STREAM_S": 0.4}
    yield from serve(box, config)


def test_a_stream_whose_time_is_up_ends_with_its_last_chunk_and_its_place_back(
    short: Served,
) -> None:
    let_go = threading.Event()
    add = short.fanout.add

    def added(connection: Any) -> None:
        add(connection)
        connection.when_done(let_go.set)

    short.fanout.add = added  # type: ignore[method-assign]
    phone = Phone(short.port)
    phone.read_until(short.hub.version)
    rest = phone.reader.read()  # until the box closes it, after at most 0.4 s
    assert rest.endswith(b"\r\n0\r\n\r\n")  # a chunked body's end, as waitress writes it
    assert let_go.wait(5)
    assert short.hub.clients == 0
    phone.close()
