"""Timing scenes on the emulated Pico (emulator.py), shared by the tests and
tests/bench/firmware.py: each drives the board and returns what it measured,
in emulated microseconds.

The board clock is the edge timer's tick count; `calibrate` finds its offset
from emulated time with one press (an edge is stamped with the first 1 us
sample at or after it).
"""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass

from .emulator import Line, PicoEmulator
from .fwbench import crc16

PAD_GPIOS = (*range(23), 26)  # channel -> GPIO (layout pads24)
SYNC_GPIO = 26  # the last channel: the sync input (hardware/pico-pinout.md)
TIMEOUT = 120.0  # wall seconds for anything the emulator does at RATIO


def frame(payload: str) -> bytes:
    raw = payload.encode()
    return raw + b"*%04X\n" % crc16(raw)


class HostSocket:
    """A plain host on the board's serial port: sends lines, drains what comes back."""

    def __init__(self, emu: PicoEmulator) -> None:
        self.sock = socket.create_connection(("127.0.0.1", emu.port), timeout=10)
        self.sock.settimeout(None)
        self._drain = threading.Thread(target=self._read, daemon=True)
        self._drain.start()

    def _read(self) -> None:
        try:
            while self.sock.recv(65536):
                pass
        except OSError:
            pass

    def send(self, payload: str) -> None:
        self.sock.sendall(frame(payload))

    def close(self) -> None:
        self.sock.close()


@dataclass(frozen=True)
class Edge:
    ch: int
    state: int
    t: int  # board time
    sent: int  # emulated us at which its line left the board


def edges(lines: list[Line]) -> list[Edge]:
    out = []
    for line in lines:
        if line.kind == "in" and line.text.startswith("EDGE "):
            _, _, ch, state, t = line.fields
            out.append(Edge(int(ch), int(state), int(t), line.t))
    return out


def board_lines(emu: PicoEmulator, since: int, kind: str) -> list[Line]:
    return [line for line in emu.lines[since:] if line.kind == "in" and line.text.startswith(kind)]


def calibrate(emu: PicoEmulator, gpio: int = 22) -> int:
    """Emulated us minus board time, from one press and release of `gpio`."""
    since = len(emu.lines)
    base = emu.drive([(0, gpio, 0), (20_000, gpio, None)], after=2_000)
    emu.wait("in", "EDGE", TIMEOUT, since)
    press = edges(emu.lines[since:])[0]
    wait_tick(emu, press.t + 21_000)  # its release is sent too
    return base - press.t


def sync_latencies(emu: PicoEmulator, host: HostSocket, count: int, gap_us: int) -> list[int]:
    """Send `count` SYNCs `gap_us` apart: board stamp minus the arrival of each "\\n"."""
    offset = calibrate(emu)
    got = []
    for token in range(count):
        since = len(emu.lines)
        host.send(f"SYNC {token}")
        out = emu.wait("out", f"SYNC {token}*", TIMEOUT, since)
        answer = emu.wait("in", "SYNC ", TIMEOUT, since)
        while answer.fields[2] != str(token):
            answer = emu.wait("in", "SYNC ", TIMEOUT, emu.lines.index(answer) + 1)
        got.append(int(answer.fields[3]) + offset - out.t)
        next_at = emu.now() + gap_us
        while emu.now() < next_at:
            emu.wait("in", "TICK", TIMEOUT, len(emu.lines))
    return got


def train(
    emu: PicoEmulator, rate: int, seconds: float, gpios: tuple[int, ...] = PAD_GPIOS[:23]
) -> tuple[int, list[Line], list[Edge]]:
    """Edges at `rate` per second for `seconds`, round `gpios` (each pad's edges
    far apart, outside the 5 ms debounce window); returns the number driven, the
    board's lines until a TICK past the last one, and the EDGEs among them."""
    n = int(rate * seconds)
    step = 1_000_000 / rate
    events: list[tuple[int, int, int | None]] = []
    pressed: set[int] = set()
    for i in range(n):
        gpio = gpios[i % len(gpios)]
        events.append((round(i * step), gpio, None if gpio in pressed else 0))
        pressed ^= {gpio}
    for gpio in sorted(pressed):  # release what is still pressed, 10 ms later
        events.append((round(n * step) + 10_000, gpio, None))
    n += len(pressed)
    since = len(emu.lines)
    base = emu.board_time(emu.drive(events, after=5_000))
    last = events[-1][0] + base
    wait_tick(emu, last + 1_000)
    lines = emu.lines[since:]
    inside = [e for e in edges(lines) if base - 2 <= e.t <= last + 2]
    return n, lines, inside


def wait_tick(emu: PicoEmulator, t: int) -> None:
    """Until a TICK past board time `t`: every edge before it was sent (or LOST)."""
    while True:
        tick = emu.wait("in", "TICK", TIMEOUT * 4, len(emu.lines))
        if int(tick.fields[2]) > t:
            return
