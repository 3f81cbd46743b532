"""The phones of the benches: N Server-Sent Events streams on loopback, opened as a
browser opens them (HTTP/1.1, chunked) and read by one thread with non-blocking sockets,
noting when each phone first has each message (its `id:` line's first number). Used by
tests/bench/phones.py, footprint.py, stages.py and soak.py, against the box or any of
the comparison servers (limit.c, peer_aiohttp.py, peer_gevent.py)."""

from __future__ import annotations

import selectors
import socket
import threading
import time

#: what a phone's recv() asks for: 16 KB, as a browser's socket reads do. 256 KB made the
#: allocator map and unmap the buffer on every call (25 µs a recv against 5 µs), and the
#: simulated phones then took the CPU of the box they measure on the same 2 cores
READ_BYTES = 16384
#: a phone's request for the stream, as a browser's
REQUEST = (
    b"GET /api/events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n"
    b"Cache-Control: no-cache\r\n\r\n"
)


class Phones:
    """N SSE streams read by one thread: when each first has each seq, bytes read."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sel = selectors.DefaultSelector()
        self.socks: list[socket.socket] = []
        self.tail: dict[int, bytes] = {}
        self.latest: dict[int, int] = {}
        self.arrivals: dict[int, list[tuple[int, float]]] = {}  # fd -> [(seq, time)]
        self.bytes = 0
        self.lock = threading.Lock()  # held while phones are added (soak.py: re-added)
        self.stop = False
        self.nap = 0.0

    def connect(self) -> None:
        """One more phone: its stream asked for, its socket read from then on."""
        s = socket.create_connection(("127.0.0.1", self.port))
        s.sendall(REQUEST)
        s.setblocking(False)
        with self.lock:
            self.socks.append(s)
            self.tail[s.fileno()] = b""
            self.sel.register(s, selectors.EVENT_READ)

    def open(self, n: int, timeout: float = 60.0) -> None:
        for _ in range(n):
            self.connect()
        deadline = time.monotonic() + timeout
        while len(self.latest) < n:
            if time.monotonic() > deadline:
                raise SystemExit(f"FAIL: only {len(self.latest)} of {n} phones got the state")
            time.sleep(0.05)

    def arrival(self, fd: int, seq: int) -> float | None:
        """When phone `fd` first had a message with `seq` (or a later one)."""
        return next((t for s, t in self.arrivals.get(fd, []) if s >= seq), None)

    def run(self) -> None:
        """Read every phone; note when each first has each seq. Kept lean: this thread
        shares two cores with the box it measures."""
        latest, arrivals, tail = self.latest, self.arrivals, self.tail
        while not self.stop:
            ready = self.sel.select(0.1)
            now = time.monotonic()
            for key, _ in ready:
                sock: socket.socket = key.fileobj  # type: ignore[assignment]
                fd = key.fd
                try:
                    data = sock.recv(READ_BYTES)
                except BlockingIOError:
                    continue
                except OSError:
                    if self.stop:  # close() closed it under this read: the end
                        return
                    raise
                if not data:
                    self.sel.unregister(sock)
                    continue
                self.bytes += len(data)
                data = tail[fd] + data
                at = data.rfind(b"id: ")
                end = data.find(b".", at)
                if at < 0 or end < 0:
                    tail[fd] = data[-48:]
                    continue
                tail[fd] = data[end:][-48:]
                top = int(data[at + 4 : end])
                if top > latest.get(fd, -1):
                    latest[fd] = top
                    arrivals.setdefault(fd, []).append((top, now))
            if self.nap:
                time.sleep(self.nap)  # let many phones' data gather: fewer wake-ups

    def close(self) -> None:
        self.stop = True
        for s in self.socks:
            s.close()
