"""The transport of one board link: a pyserial port and its reader thread.

Framing never happens here (that is `protocol.py`, driven by `session.py`):
this only opens the port by URL (`serial_for_url`: a device path, a pty,
``socket://``, ``rfc2217://``), reads bytes, stamps them with the host time
they arrived, and hands them to `put` on its own thread (sources.py handles them
there, under its lock). A port that fails or goes away is
reported and reopened every `retry_s` until it is back or the link is stopped.

A port with a file descriptor (a serial device or a pty, a ``socket://``) is read
as it is written: the thread sleeps in one select() of the port and a pipe of its
own (written by `stop`) and wakes only when bytes came, then takes all of them in
one read. A board idle between games sends a TICK every 10 ms: one wake-up and one
read a line, no timeout in between (a pyserial read with a timeout woke 20 times a
second for nothing, and read each line in two: its first byte, then the rest).
Other URLs (``loop://``, ``rfc2217://``: no descriptor of their own) are read
through pyserial with a timeout, as before.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import serial

from buzzerbox.threadname import name_thread

OpenPort = Callable[..., Any]

#: the links' threads in the system's lists (`top -H`, /proc/<pid>/task/*/comm): bb-link-<n>
THREAD_NAME = "bb-link"


@dataclass(frozen=True, slots=True)
class LinkEvent:
    """What a link's thread saw: the port opened, bytes arrived, or the port went."""

    link: int
    kind: Literal["opened", "data", "gone"]
    t_us: int
    data: bytes = b""
    reason: str = ""


def no_delay(port: Any) -> None:
    """A ``socket://`` port sends each write at once (TCP_NODELAY): with Nagle's
    algorithm a SYNC waits for the ACK of the frame before it (tens of ms), and its
    round trip is no longer a measure of the link. pyserial leaves Nagle on."""
    sock = getattr(port, "_socket", None)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class SerialLink:
    """One URL, one reader thread; every event goes to `put` as a `LinkEvent`."""

    def __init__(
        self,
        index: int,
        url: str,
        put: Callable[[LinkEvent], None],
        *,
        clock: Callable[[], int],
        open_port: OpenPort = serial.serial_for_url,
        retry_s: float = 0.25,
        read_timeout_s: float = 0.05,
        baudrate: int = 115200,
    ) -> None:
        self.index = index
        self.url = url
        self._events_put = put
        self._clock = clock
        self._open_port = open_port
        self._retry_s = retry_s
        self._read_timeout_s = read_timeout_s
        self._baudrate = baudrate
        self._port: Any = None
        self._fd = -1  # the open port's descriptor while `_read` watches it
        self._in_hand = False  # bytes read and not yet handed to `put`
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"pads-link-{url}", daemon=True)
        self._wake_r, self._wake_w = os.pipe()  # `stop` wakes a read that has no timeout

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")
        if self._thread.is_alive():
            self._thread.join(timeout)
        if not self._thread.is_alive():
            for fd in (self._wake_r, self._wake_w):
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._wake_r = self._wake_w = -1

    def write(self, data: bytes) -> bool:
        """Write to the port if it is open; False if it is not (or just failed)."""
        with self._write_lock:
            port = self._port
            if port is None:
                return False
            try:
                port.write(data)
            except (serial.SerialException, OSError, ValueError):
                return False
            return True

    def has_unread(self) -> bool:
        """Bytes of the board wait on this host: the port is readable, or this link's
        thread read them and has not handed them over yet (its owner asks before it
        calls a board silent: a starved reader is not a silent board). Any thread."""
        if self._in_hand:
            return True
        fd, port = self._fd, self._port
        try:
            if fd >= 0:
                return bool(select.select([fd], [], [], 0)[0])
            return port is not None and bool(port.in_waiting)
        except (serial.SerialException, OSError, ValueError, TypeError):
            return False  # closed under us: `gone` follows

    def _put(
        self, kind: Literal["opened", "data", "gone"], data: bytes = b"", reason: str = ""
    ) -> None:
        self._events_put(LinkEvent(self.index, kind, self._clock(), data, reason))

    def _run(self) -> None:
        name_thread(f"{THREAD_NAME}-{self.index + 1}")
        was_open = None  # None: never tried; report the first failure once
        while not self._stop.is_set():
            try:
                port = self._open_port(
                    self.url, baudrate=self._baudrate, timeout=self._read_timeout_s
                )
            except (serial.SerialException, OSError, ValueError) as exc:
                if was_open is not False:
                    self._put("gone", reason=str(exc))
                was_open = False
                self._stop.wait(self._retry_s)
                continue
            no_delay(port)
            with self._write_lock:
                self._port = port
            self._put("opened")
            was_open = True
            reason = self._read(port)
            with self._write_lock:
                self._port = None
            self._close(port)
            if reason is not None:
                self._put("gone", reason=reason)
                was_open = False
                self._stop.wait(self._retry_s)

    @staticmethod
    def _close(port: Any) -> None:
        # pyserial's socket:// close() skips closing its socket when shutdown() fails
        # (the peer already hung up), leaking it: close that socket first.
        sock = getattr(port, "_socket", None)
        if sock is not None:
            sock.close()
        with contextlib.suppress(serial.SerialException, OSError):
            port.close()

    def _read(self, port: Any) -> str | None:
        """Read until the port fails (the reason) or the link is stopped (None)."""
        sock = getattr(port, "_socket", None)  # socket://: pyserial's in_waiting is 0 or 1
        fd = sock.fileno() if sock is not None else getattr(port, "fd", None)
        if not isinstance(fd, int) or fd < 0:
            return self._read_polled(port)
        read: Callable[[], bytes] = (
            (lambda: sock.recv(65536)) if sock is not None else (lambda: os.read(fd, 4096))
        )
        watched = [fd, self._wake_r]
        self._fd = fd
        try:
            while not self._stop.is_set():
                try:
                    ready, _, _ = select.select(watched, [], [])
                    if self._stop.is_set():
                        return None
                    self._in_hand = fd in ready
                    data = read() if fd in ready else b""
                except (BlockingIOError, InterruptedError):
                    self._in_hand = False  # nothing read: not held while select() waits
                    continue
                except (OSError, ValueError) as exc:
                    return str(exc) or type(exc).__name__
                if fd in ready and not data:  # readable, and nothing: the other end is gone
                    return (
                        "the board closed the connection" if sock else "the port returned no data"
                    )
                if data:
                    self._events_put(LinkEvent(self.index, "data", self._clock(), data))
                self._in_hand = False
        finally:
            self._fd, self._in_hand = -1, False
        return None

    def _read_polled(self, port: Any) -> str | None:
        """`_read` for a port with no descriptor: pyserial's reads, with their timeout."""
        while not self._stop.is_set():
            try:
                data = port.read(port.in_waiting or 1)
            except (serial.SerialException, OSError, ValueError, TypeError) as exc:
                return str(exc) or type(exc).__name__
            if data:
                self._events_put(LinkEvent(self.index, "data", self._clock(), data))
        return None
