"""A real `buzzerbox serve` for the security tests (issue 15) (tests/faults/boxproc.py's, with the
PIN it prints read back), and raw sockets from any loopback address (127.x.y.z: the
box sees each as another guest on the Wi-Fi)."""

from __future__ import annotations

import queue
import re
import selectors
import socket
import subprocess
import sys
import time
from pathlib import Path

from .boxproc import PIN, ServedBox

__all__ = ["PIN", "ServedBox", "first_closed", "raw", "read_status", "serve", "start"]


class Served(ServedBox):
    pin = ""

    def wait_started(self, timeout: float = 30.0) -> Served:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.stdout.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise TimeoutError(f"serve did not start: {list(self.tail)}") from None
            if not line:
                self.process.wait(10)
                raise RuntimeError(f"serve ended ({self.process.returncode}): {list(self.tail)}")
            if found := re.search(r"open http://127\.0\.0\.1:(\d+)/", line):
                self.port = int(found.group(1))
            if found := re.search(r"admin PIN (\S+)", line):
                self.pin = found.group(1)
                return self


def serve(data: Path, *args: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "buzzerbox", "serve", "--host", "127.0.0.1",
               "--port", "0", "--data", str(data), *args]  # fmt: skip
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True
    )


def start(data: Path, *args: str) -> Served:
    """`buzzerbox serve` on `data` (with `args`, e.g. --pin), started and ready."""
    served = Served(serve(data, *args), data)
    try:
        return served.wait_started()
    except BaseException:
        served.kill()
        raise


def raw(port: int, source: str = "127.0.0.1", timeout: float = 10.0) -> socket.socket:
    """A TCP connection to the box from `source` (any 127.x.y.z)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def read_status(sock: socket.socket) -> int:
    """The status of the answer on `sock` (0: closed without one)."""
    head = b""
    while b"\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            return 0
        head += chunk
    return int(head.split()[1])


def first_closed(socks: list[socket.socket], within_s: float = 15.0) -> socket.socket | None:
    """The first of `socks` the box closes (what they hold is read on the way)."""
    with selectors.DefaultSelector() as selector:
        for sock in socks:
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ)
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline:
            for key, _ in selector.select(timeout=0.5):
                sock = socks[socks.index(key.fileobj)]  # type: ignore[arg-type]
                try:
                    while sock.recv(65536):
                        pass
                except BlockingIOError:
                    continue
                except ConnectionResetError:
                    pass
                return sock
    return None
