"""Issue 39, item 3: mid-size bodies from many addresses. A real `buzzerbox serve`; a
crowd of 40 addresses (127.0.10.x, 30 connections each, under every per-address cap),
each connection a 15 KiB head to /api/event and its 16 KiB body but the last byte: 37
MB held open, over the one budget (32 MiB) for what connections hold before the app
runs (server/held.py). Those over it are answered 503 (in the language of their head)
and closed; meanwhile a phone's request and the admin's table entry are served."""

from __future__ import annotations

import json
import selectors
import socket
import time
from pathlib import Path
from typing import Any

from buzzerbox.server.guard import Limits

from .boxproc import Phone
from .served import raw, start

ADDRESSES, EACH = 40, 30
BODY = 16 * 1024


def crowd_request(lang: str) -> bytes:
    """A 15 KiB head and a 16 KiB body to /api/event, but the body's last byte."""
    start = (
        "POST /api/event HTTP/1.1\r\nHost: box\r\nContent-Type: application/json\r\n"
        f"Accept-Language: {lang}\r\nContent-Length: {BODY}\r\nX-Pad: "
    ).encode()
    head = start + b"a" * (15 * 1024 - len(start) - 4) + b"\r\n\r\n"
    return head + b"[" + b"0" * (BODY - 3)


def answers(socks: list[socket.socket], least: int, within_s: float) -> dict[int, bytes]:
    """The answers the box gives (index -> bytes), once `least` have come (or the time
    is up: then fewer, and the test says so)."""
    selector = selectors.DefaultSelector()
    for i, sock in enumerate(socks):
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ, i)
    got: dict[int, bytes] = {}
    deadline = time.monotonic() + within_s
    while len(got) < least and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.5):
            try:
                got[key.data] = key.fileobj.recv(4096)  # type: ignore[union-attr]
            except (BlockingIOError, ConnectionResetError):
                got[key.data] = b""
            selector.unregister(key.fileobj)
    selector.close()
    return got


def gone(sock: socket.socket) -> bool:
    """Whether the box closes `sock` (what it still sends is read on the way)."""
    sock.setblocking(True)
    sock.settimeout(10)
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:  # closed with the crowd's body unread: a reset
        pass
    except TimeoutError:
        return False
    return True


def test_a_crowd_of_addresses_holds_no_more_than_the_budget(data: Path, tidy: list[Any]) -> None:
    box = start(data, "--pin", "13572468")
    tidy.append(box)
    admin = Phone(box.port).log_in("13572468")
    tidy.append(admin)
    admin.post("/api/game", {"game": "ligretto", "players": ["Ann", "Ben", "Cem"]})
    socks = []
    for i in range(ADDRESSES * EACH):
        sock = raw(box.port, f"127.0.10.{1 + i // EACH}")
        tidy.append(sock)
        sock.sendall(crowd_request("de" if i % 2 else "en"))
        socks.append(sock)
    each = len(crowd_request("en"))
    over = ADDRESSES * EACH - Limits().held_bytes // each  # 141 of 1,200
    got = answers(socks, over, within_s=60)
    busy = [i for i, answer in got.items() if answer.startswith(b"HTTP/1.1 503")]
    assert len(busy) >= over, (len(busy), over, {a[:40] for a in got.values()})
    refusals = {i: json.loads(got[i].split(b"\r\n\r\n", 1)[1]) for i in busy}
    assert {r["code"] for r in refusals.values()} == {"box-busy"}
    said = {r["error"] for r in refusals.values()}
    assert said <= {
        "the box is receiving too much at once: retry soon",
        "Die Box empfängt gerade zu viel auf einmal: versuche es gleich noch einmal",
    }, said
    for i in busy:  # the box closes those it refused (the phone must not race it)
        assert gone(socks[i]), i
    # meanwhile (the crowd still holds all it may): a phone and the admin are served
    phone = raw(box.port, "127.0.10.200")
    tidy.append(phone)
    phone.sendall(b"GET /api/state HTTP/1.1\r\nHost: box\r\n\r\n")
    assert phone.recv(4096).startswith(b"HTTP/1.1 200")
    admin.post("/api/event", {"type": "round"})
    assert admin.state()["phase"] in ("countdown", "playing")
