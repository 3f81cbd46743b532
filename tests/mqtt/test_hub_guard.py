"""Issue 15, item 1, for the hub: `buzzerbox hub` for real (its own broker), real
sockets from other loopback addresses. One address holds at most 32 connections and
8 live pages; a slow client is dropped within the head time (10 s) while the hub goes
on serving everyone else. Issue 39, item 2: when a crowd of addresses holds every
screen's place (--max-screens 20), a new screen still gets one (a stream of the address
holding the most gives way: the hub closes it)."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest
from faults.served import first_closed  # type: ignore[import-not-found]

from .mqtt_fakes import Mosquitto, run_hub

HEAD_S = 10.0


@pytest.fixture
def hub_port(broker: Mosquitto) -> Iterator[int]:
    hub = run_hub(broker.url, "hub-guard", "--max-screens", "20")
    try:
        yield hub.port
    finally:
        hub.stop()


def connect(port: int, source: str, request: bytes = b"") -> socket.socket:
    sock = socket.create_connection(
        ("127.0.0.1", port), timeout=HEAD_S + 10, source_address=(source, 0)
    )
    if request:
        sock.sendall(request)
    return sock


def status(sock: socket.socket) -> int:
    head = sock.recv(4096)
    return int(head.split()[1]) if head else 0


def test_the_hub_caps_each_address_and_drops_slow_clients(hub_port: int) -> None:
    socks: list[socket.socket] = []
    try:
        page = b"GET /api/events HTTP/1.1\r\nHost: hub\r\n\r\n"
        pages = [connect(hub_port, "127.0.6.1", page) for _ in range(9)]
        socks += pages
        assert [status(s) for s in pages] == [200] * 8 + [429]
        slow = connect(hub_port, "127.0.6.2", b"GET / HTTP/1.1\r\nHost: hub\r\n")
        socks.append(slow)
        opened = time.monotonic()
        # each sends a byte: one that sends nothing is not handed to the hub at all
        held = [connect(hub_port, "127.0.6.3", b"G") for _ in range(32)]
        socks += held
        one_more = connect(hub_port, "127.0.6.3", b"G")
        socks.append(one_more)
        assert status(one_more) == 503
        other = connect(hub_port, "127.0.6.4", b"GET /api/board HTTP/1.1\r\nHost: hub\r\n\r\n")
        socks.append(other)
        assert status(other) == 200
        assert slow.recv(4096) == b""  # dropped by the hub
        assert time.monotonic() - opened < HEAD_S + 5
    finally:
        for sock in socks:
            sock.close()


def test_a_crowd_holding_every_screen_gives_way_to_a_new_one(hub_port: int) -> None:
    page = b"GET /api/events HTTP/1.1\r\nHost: hub\r\n\r\n"
    socks: list[socket.socket] = []
    try:
        crowd = [connect(hub_port, f"127.0.6.{20 + i // 8}", page) for i in range(20)]
        socks += crowd
        assert [status(s) for s in crowd] == [200] * 20  # every screen's place
        newcomer = connect(hub_port, "127.0.6.40", page)
        socks.append(newcomer)
        assert status(newcomer) == 200
        first = first_closed(crowd)
        assert first in crowd[:16]  # one of the two addresses holding 8 gave way
    finally:
        for sock in socks:
            sock.close()
