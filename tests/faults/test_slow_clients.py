"""Issue 15, item 1: one guest cannot take the box offline. A real `buzzerbox serve`,
real sockets from other loopback addresses (each one another guest):

- slow clients (a request line, then nothing more) are dropped by the box within
  its head time (10 s), and while the box is full of them the admin is served;
- one address holds at most 32 connections and 8 live streams;
- when the live streams are all taken by one address, another's gets one (one of the
  crowded address's gives way: issue 39, item 2), and the admin's own stream goes in.
"""

from __future__ import annotations

import http.client
import time
from pathlib import Path
from typing import Any

from .boxproc import Phone
from .served import first_closed, raw, read_status, start

HEAD_S = 10.0  # server/guard.py Limits.head_s


def slow(port: int, count: int, first: int = 1) -> list[Any]:
    """`count` slow clients, 24 per address from 127.0.2.<first>: a request line and a
    header, then nothing."""
    socks = []
    for i in range(count):
        sock = raw(port, f"127.0.2.{first + i // 24}", timeout=HEAD_S + 10)
        sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: box\r\n")
        socks.append(sock)
    return socks


def closed(sock: Any) -> bool:
    """Whether the box closes `sock` without an answer (waits for it)."""
    try:
        return bool(sock.recv(4096) == b"")
    except ConnectionResetError:
        return True


def admin_get(port: int, cookie: str) -> float:
    """Seconds for the admin's GET /api/state on a new connection; it is 200 and admin."""
    t0 = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/api/state", headers={"Cookie": cookie})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    assert response.status == 200 and b'"admin": true' in body, (response.status, body[:200])
    return time.monotonic() - t0


def test_slow_clients_are_dropped_and_the_admin_is_served_meanwhile(
    data: Path, tidy: list[Any]
) -> None:
    box = start(data, "--pin", "13572468", "--max-phones", "2")  # 98 connections, +64
    tidy.append(box)
    admin = Phone(box.port).log_in("13572468")
    tidy.append(admin)
    cookie = admin.headers["Cookie"]
    admin.close()
    opened = time.monotonic()
    socks = slow(box.port, 150)  # more than the box's limit (98) and its lane (64)
    tidy.extend(socks)
    times = [admin_get(box.port, cookie) for _ in range(10)]
    assert max(times) < 2.0, times
    for sock in socks:  # every slow one is closed by the box, within its head time
        assert closed(sock)
    assert time.monotonic() - opened < HEAD_S + 8


def test_one_address_holds_a_share_of_the_connections(data: Path, tidy: list[Any]) -> None:
    box = start(data, "--pin", "13572468")
    tidy.append(box)
    socks = [raw(box.port, "127.0.2.200") for _ in range(32)]
    tidy.extend(socks)
    for sock in socks:
        sock.sendall(b"G")  # one that sent nothing is not handed to the box at all
    one_more = raw(box.port, "127.0.2.200")
    tidy.append(one_more)
    one_more.sendall(b"G")
    assert read_status(one_more) == 503
    other = raw(box.port, "127.0.2.201")  # another guest is served
    tidy.append(other)
    other.sendall(b"GET /api/state HTTP/1.1\r\nHost: box\r\n\r\n")
    assert read_status(other) == 200


def test_one_viewer_cannot_hold_every_stream_and_gives_way_and_the_admin_stream_goes_in(
    data: Path, tidy: list[Any]
) -> None:
    box = start(data, "--pin", "13572468", "--max-phones", "8")
    tidy.append(box)
    streams = []
    for _i in range(9):
        sock = raw(box.port, "127.0.3.1")
        sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: box\r\n\r\n")
        streams.append(sock)
        tidy.append(sock)
    statuses = [read_status(s) for s in streams]
    assert statuses == [200] * 8 + [429], statuses
    other = raw(box.port, "127.0.3.2")  # every place is taken now: one of the 8 gives way
    tidy.append(other)
    other.sendall(b"GET /api/events HTTP/1.1\r\nHost: box\r\n\r\n")
    assert read_status(other) == 200
    assert first_closed(streams[:8]) is not None  # issue 39, item 2 (server/streams.py)
    admin = Phone(box.port).log_in("13572468")
    tidy.append(admin)
    sock = raw(box.port)
    tidy.append(sock)
    sock.sendall(
        b"GET /api/events HTTP/1.1\r\nHost: box\r\nCookie: "
        + admin.headers["Cookie"].encode()
        + b"\r\n\r\n"
    )
    assert read_status(sock) == 200
