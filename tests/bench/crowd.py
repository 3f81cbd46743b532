"""Crowds of connections from many loopback addresses, for attack.py.

`Crowd(port, n, script)` opens `n` connections, PER_ADDRESS from each 127.<net>.x
address (each address another device on the Wi-Fi), and plays `script` on each: a list
of (seconds after the connection opened, bytes to send). A connection the box closes
or answers is opened again at once and plays the script from its start. It runs in its
own process (`start`), so the client measuring the admin shares no GIL with it.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import multiprocessing
import selectors
import socket
import time
from typing import Any

#: the most connections one address may hold (server/guard.py Limits.per_address)
PER_ADDRESS = 32

Script = list[tuple[float, bytes]]


class Crowd:
    """`n` connections from 127.<net>.1, .2, ... (PER_ADDRESS each) playing `script`."""

    def __init__(
        self, port: int, n: int, script: Script, *, net: str = "127.0.6", per: int = PER_ADDRESS
    ) -> None:
        self.port = port
        self.n = n
        self.script = script
        self.net = net
        self.per = per
        self.stop = multiprocessing.Event()
        self.reopened = multiprocessing.Value("l", 0)  # connections the box closed or answered
        self.answered = multiprocessing.Value("l", 0)  # ... with an answer (a status line)
        self.process: Any = None

    def source(self, i: int) -> str:
        return f"{self.net}.{1 + i // self.per}"

    def start(self) -> None:
        self.process = multiprocessing.get_context("fork").Process(target=self.run, daemon=True)
        self.process.start()

    def finish(self) -> None:
        self.stop.set()
        if self.process is not None:
            self.process.join(10)

    def run(self) -> None:
        selector = selectors.DefaultSelector()
        due: list[tuple[float, int, int, socket.socket]] = []  # (when, order, step, sock)
        order = itertools.count()
        retry: list[int] = []

        def connect(i: int) -> None:
            sock = socket.socket()
            try:
                sock.bind((self.source(i), 0))
                sock.settimeout(2)
                sock.connect(("127.0.0.1", self.port))
            except OSError:
                sock.close()
                retry.append(i)
                return
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ, i)
            heapq.heappush(due, (time.monotonic() + self.script[0][0], next(order), 0, sock))

        for i in range(self.n):
            connect(i)
        while not self.stop.is_set():
            wait = max(0.0, min(0.2, due[0][0] - time.monotonic())) if due else 0.2
            for key, _ in selector.select(timeout=wait):
                sock: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    data = sock.recv(4096)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                with self.reopened.get_lock():
                    self.reopened.value += 1
                if data.startswith(b"HTTP/"):
                    with self.answered.get_lock():
                        self.answered.value += 1
                selector.unregister(sock)
                sock.close()
                connect(key.data)
            now = time.monotonic()
            while due and due[0][0] <= now:
                _, _, step, sock = heapq.heappop(due)
                if sock.fileno() < 0:
                    continue  # closed since
                with contextlib.suppress(OSError):
                    sock.send(self.script[step][1])
                if step + 1 < len(self.script):
                    opened = now - self.script[step][0]
                    when = opened + self.script[step + 1][0]
                    heapq.heappush(due, (when, next(order), step + 1, sock))
            again, retry[:] = list(retry), []
            for i in again:
                connect(i)
        for key in list(selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]


def mid_bodies(head_kib: int = 15, body_kib: int = 16, last_after_s: float = 9.0) -> Script:
    """Issue 39, item 3: a `head_kib` head to /api/event (its most: 16 KiB) and all of
    a `body_kib` body but its last byte at once, the last byte after `last_after_s` s
    (within the body's deadline: 10 s + 16 KiB at 32 KiB/s)."""
    body = b"[" + b"0" * (body_kib * 1024 - 2) + b"]"
    start = (
        "POST /api/event HTTP/1.1\r\nHost: box\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nX-Pad: "
    ).encode()
    head = start + b"a" * (head_kib * 1024 - len(start) - 4) + b"\r\n\r\n"
    return [(0.0, head + body[:-1]), (last_after_s, body[-1:])]
