"""A real `buzzerbox serve` for the fault tests: a subprocess on 127.0.0.1, its output
read by threads (never a full pipe), a small HTTP client for phones and the admin, and
what /proc says of the process. Waits poll an endpoint or read output, with timeouts.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

PIN = "1357"
START_TIMEOUT_S = 30.0
#: what changes with time and session, not with the game
VOLATILE = ("box",)


class ServedBox:
    """One `buzzerbox serve` process: its port, its output, kill -9."""

    def __init__(self, process: subprocess.Popen[str], data: Path) -> None:
        self.process = process
        self.data = data
        self.port = 0
        self.stdout: queue.Queue[str] = queue.Queue()
        self.stderr: queue.Queue[str] = queue.Queue()
        self.tail: deque[str] = deque(maxlen=200)  # the last stderr lines, for messages
        self._readers = [
            threading.Thread(target=self._read, args=(process.stdout, self.stdout), daemon=True),
            threading.Thread(target=self._read, args=(process.stderr, self.stderr), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _read(self, stream: Any, into: queue.Queue[str]) -> None:
        for line in stream:
            if into is self.stderr:
                self.tail.append(line.rstrip())
            into.put(line)
        into.put("")

    @property
    def pid(self) -> int:
        return self.process.pid

    def wait_started(self, timeout: float = START_TIMEOUT_S) -> ServedBox:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.stdout.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise TimeoutError(
                    f"serve did not start in {timeout} s: {list(self.tail)}"
                ) from None
            if not line:
                self.process.wait(10)
                raise RuntimeError(f"serve ended ({self.process.returncode}): {list(self.tail)}")
            if found := re.search(r"open http://127\.0\.0\.1:(\d+)/", line):
                self.port = int(found.group(1))
            if f"admin PIN {PIN}" in line:
                return self

    def wait_log(self, *patterns: str, timeout: float = 15.0) -> None:
        """Read stderr on until a line matching each regex of `patterns` has come."""
        deadline = time.monotonic() + timeout
        missing = set(patterns)
        while missing:
            try:
                line = self.stderr.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                tail = list(self.tail)[-20:]
                raise TimeoutError(f"no {missing} in {timeout} s: {tail}") from None
            if not line:
                raise RuntimeError(f"serve ended before {missing}: {list(self.tail)[-20:]}")
            missing = {p for p in missing if not re.search(p, line)}

    def kill(self) -> None:
        """kill -9, then reap it and let its readers end."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)
        for reader in self._readers:
            reader.join(10)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()

    def rss_kib(self) -> int:
        return proc_status(self.pid, "VmRSS")

    def open_fds(self) -> int:
        return len(os.listdir(f"/proc/{self.pid}/fd"))


def proc_status(pid: int, key: str) -> int:
    """A number from /proc/PID/status (VmRSS in KiB, Threads, ...)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def serve_command(data: Path, *args: str, config: Path | None = None) -> list[str]:
    command = [sys.executable, "-m", "buzzerbox", "serve", "--host", "127.0.0.1",
               "--port", "0", "--data", str(data), "--pin", PIN]  # fmt: skip
    if config is not None:
        command += ["--config", str(config)]
    return command + list(args)


def start_box(
    data: Path,
    *args: str,
    config: Path | None = None,
    preexec_fn: Callable[[], None] | None = None,
) -> ServedBox:
    """`buzzerbox serve` on a free port with `data` as its folder, started and ready."""
    process = subprocess.Popen(
        serve_command(data, *args, config=config),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        preexec_fn=preexec_fn,
    )
    served = ServedBox(process, data)
    try:
        return served.wait_started()
    except BaseException:
        served.kill()
        raise


def write_config(folder: Path, text: str, name: str = "box.toml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


class Refused(Exception):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(f"{status}: {body}")
        self.status = status
        self.body = body


class Phone:
    """A phone's HTTP client; after `log_in` it sends the admin cookie and CSRF token.
    `source`: its address (any 127.x.y.z: the box sees another guest on the Wi-Fi)."""

    def __init__(self, port: int, timeout: float = 10.0, source: str = "127.0.0.1") -> None:
        self.port = port
        self.conn = http.client.HTTPConnection(
            "127.0.0.1", port, timeout=timeout, source_address=(source, 0)
        )
        self.headers: dict[str, str] = {"Content-Type": "application/json"}

    def call(self, method: str, path: str, body: object = None) -> tuple[int, Any]:
        """(status, JSON answer); OSError / HTTPException when the box is gone."""
        data = None if body is None else json.dumps(body)
        self.conn.request(method, path, data, self.headers)
        response = self.conn.getresponse()
        raw = response.read()
        if response.getheader("Set-Cookie") and path == "/api/login":
            self.headers["Cookie"] = (response.getheader("Set-Cookie") or "").split(";", 1)[0]
        kind = response.getheader("Content-Type") or ""
        return response.status, json.loads(raw) if kind.startswith("application/json") else raw

    def post(self, path: str, body: object) -> dict[str, Any]:
        """POST that must be accepted (200): its JSON; Refused otherwise."""
        status, answer = self.call("POST", path, body)
        if status != 200:
            raise Refused(status, answer)
        return answer  # type: ignore[no-any-return]

    def log_in(self, pin: str = PIN) -> Phone:
        reply = self.post("/api/login", {"pin": pin})
        self.headers["X-CSRF-Token"] = reply["csrf"]
        return self

    def state(self) -> dict[str, Any]:
        status, answer = self.call("GET", "/api/state")
        assert status == 200, answer
        return answer  # type: ignore[no-any-return]

    def poll_state(
        self, until: Callable[[dict[str, Any]], bool], timeout: float = 10.0
    ) -> dict[str, Any]:
        """GET /api/state until `until(state)` holds; TimeoutError after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.state()
            if until(state):
                return state
            if time.monotonic() > deadline:
                raise TimeoutError(f"state never matched in {timeout} s: {game_of(state)}")

    def close(self) -> None:
        self.conn.close()


def game_of(state: dict[str, Any]) -> dict[str, Any]:
    """The state without what changes with time and session ("box")."""
    return {k: v for k, v in state.items() if k not in VOLATILE}


def sse_connect(port: int, *, rcvbuf: int | None = None, timeout: float = 10.0) -> socket.socket:
    """A phone opening the live stream (HTTP/1.1, as a browser); the request is sent."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(timeout)
    sock.connect(("127.0.0.1", port))
    sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: box\r\nAccept: text/event-stream\r\n\r\n")
    return sock


def sse_ids(sock: socket.socket) -> Iterator[int]:
    """The log seq (the `id:`'s first part) of every message the stream brings (the
    full state or a delta), as it comes; ends at EOF.
    An answer other than 200 raises Refused. (recv, not makefile: closing the socket
    closes it, whatever holds this generator.)"""
    lines = _lines(sock)
    head = next(lines, b"")
    if not head.startswith(b"HTTP/1.1 200"):
        raise Refused(int(head.split()[1]) if head else 0, {"error": head.decode()})
    for line in lines:
        if line.startswith(b"id: "):
            yield int(line[4:].split(b".")[0])


def _lines(sock: socket.socket) -> Iterator[bytes]:
    buffer = b""
    while chunk := sock.recv(65536):
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        yield from lines


def close_all(things: Iterable[Any]) -> None:
    for thing in things:
        if isinstance(thing, ServedBox):
            thing.kill()
        else:
            thing.close()
