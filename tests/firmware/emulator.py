"""The real MicroPython build for the Pico with the firmware, in rp2040js (emu/).

`PicoEmulator` starts `node emu/runner.mjs` with a littlefs image of firmware/
(built here with littlefs-python, at flash 0xA0000 as MicroPython's rp2 port
mounts it), drives its pads in emulated time, and keeps every line the board
sent or received with the emulated microsecond it left or arrived. The board's
USB serial is `url` (pyserial's socket://). `monitor()` runs `buzzerbox monitor`
under libfaketime at the emulator's time scale (emu/README.md says why).

`clock` (an `EmuClock`, with ``clock=True``) is the emulated time itself, for a host
that runs in this process: a host on it stamps its requests and the board's lines on the board's own
timeline, so one clock holds the host's request of a pin change, the emulator's
applying it, the board's stamp of the edge and the host's mapped time. A host on a
scaled wall clock (RATIO x CLOCK_MONOTONIC, or libfaketime) loses the emulated clock
whenever the emulator falls behind its cap and slips (tests/bench/README.md, "the
emulated Pico's 2 ms").
"""

from __future__ import annotations

import json
import mmap
import os
import struct
import queue
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from littlefs import LittleFS

from .fwbench import FIRMWARE, stop

EMU = Path(__file__).resolve().parent / "emu"
UF2 = EMU / "micropython-rp2-pico-v1.28.0.uf2"
BOOTROM = EMU / "rp2040-bootrom-b1.bin"
RATIO = 0.03  # emulated time per wall time once booted
BOARD_ID = "pico-0000000000000000"  # rp2040js does not emulate the flash unique id
LIBFAKETIME = (
    "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
    "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
    "/usr/lib/faketime/libfaketime.so.1",
)


def littlefs_image(source: Path = FIRMWARE) -> bytes:
    """The *.py files under `source` in the littlefs2 MicroPython's rp2 port mounts."""
    fs = LittleFS(block_size=4096, block_count=352, prog_size=256, read_size=32, lookahead_size=32)
    for path in sorted(source.rglob("*.py")):
        rel = path.relative_to(source)
        if len(rel.parts) > 1:
            fs.makedirs(str(rel.parent), exist_ok=True)
        with fs.open(str(rel), "wb") as f:
            f.write(path.read_bytes())
    return bytes(fs.context.buffer)


def libfaketime() -> str:
    for path in LIBFAKETIME:
        if Path(path).exists():
            return path
    raise FileNotFoundError("libfaketime is missing: apt-get install faketime (tests/check does)")


def node() -> str:
    exe = shutil.which("node")
    if exe is None:
        raise FileNotFoundError("node is missing: apt-get install nodejs npm (tests/check does)")
    if not (EMU / "node_modules" / "rp2040js").is_dir():
        raise FileNotFoundError(f"rp2040js is missing: npm ci --prefix {EMU} (tests/check does)")
    return exe


@dataclass(frozen=True)
class Line:
    """A line the board sent ("in") or received ("out"), at emulated `t` us and wall
    `w` us (CLOCK_MONOTONIC, `time.monotonic_ns() // 1000` in this process)."""

    kind: str
    t: int
    text: str
    w: int = 0

    @property
    def fields(self) -> list[str]:
        return self.text.rpartition("*")[0].split(" ")


class EmuClock:
    """The emulated microseconds now, as the runner keeps them in a file (its
    ``--clock``): a host clock (`() -> int`) that never runs ahead of the board."""

    def __init__(self, path: Path) -> None:
        path.write_bytes(bytes(16))
        self._file = open(path, "rb")  # noqa: SIM115  (closed in close())
        self._map = mmap.mmap(self._file.fileno(), 16, access=mmap.ACCESS_READ)

    def __call__(self) -> int:
        while True:
            a, b = struct.unpack_from("<2d", self._map)
            if a == b:  # not read while the runner wrote it
                return round(float(a))  # as the runner rounds its reports

    def close(self) -> None:
        self._map.close()
        self._file.close()


@dataclass(frozen=True)
class PinSet:
    """An outside drive of `gpio` to `level` (None: released), as the emulator applied
    it: at emulated `t` us, wall `w` us (CLOCK_MONOTONIC)."""

    gpio: int
    level: int | None
    t: int
    w: int


class PicoEmulator:
    def __init__(self, tmp: Path, source: Path = FIRMWARE, *, clock: bool = False) -> None:
        image = tmp / "littlefs.img"
        image.write_bytes(littlefs_image(source))
        self.clock: EmuClock | None = EmuClock(tmp / "clock") if clock else None
        shared = ["--clock", str(tmp / "clock")] if clock else []
        self._stderr = open(tmp / "runner.stderr", "wb")  # noqa: SIM115  (closed in close())
        self.proc = subprocess.Popen(
            [node(), str(EMU / "runner.mjs"), "--uf2", str(UF2), "--bootrom", str(BOOTROM)]
            + ["--fs", str(image), *shared],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            bufsize=1,
        )
        self.lines: list[Line] = []
        self.sm_start: list[int] = []  # emulated us at which each boot's edge timer started
        self.pins: list[PinSet] = []  # every outside drive, when the emulator applied it
        self._answers: queue.Queue[dict[str, Any]] = queue.Queue()
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.port = int(self._answer("port", 30)["port"])
        self.url = f"socket://127.0.0.1:{self.port}"

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            msg = json.loads(raw)
            ev = msg["ev"]
            with self._cond:
                if ev in ("in", "out"):
                    self.lines.append(Line(ev, msg["t"], msg["line"], msg["w"]))
                elif ev == "pin":
                    self.pins.append(PinSet(msg["gpio"], msg["level"], msg["t"], msg["w"]))
                elif ev == "sm":
                    self.sm_start.append(msg["t"])
                elif ev != "slip":
                    self._answers.put(msg)
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def _send(self, **cmd: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()

    def _answer(self, ev: str, timeout: float = 30) -> dict[str, Any]:
        msg = self._answers.get(timeout=timeout)
        assert msg["ev"] == ev, msg
        return msg

    def now(self) -> int:
        self._send(cmd="now")
        return int(self._answer("now")["t"])

    def drive(self, events: list[tuple[int, int, int | None]], after: int = 0) -> int:
        """Set pins from outside at `after` + dt emulated us from now; the base, in us."""
        self._send(cmd="drive", after=after, events=events)
        return int(self._answer("drive")["base"])

    def ratio(self, ratio: float) -> None:
        self._send(cmd="ratio", ratio=ratio)
        self._answer("ratio")

    def reset(self) -> int:
        self._send(cmd="reset")
        return int(self._answer("reset")["t"])

    def wait(self, kind: str, prefix: str, timeout: float, since: int = 0) -> Line:
        """The first line of `kind` at index >= `since` whose text starts with `prefix`."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self.lines[since:]:
                    if line.kind == kind and line.text.startswith(prefix):
                        return line
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise TimeoutError(f"no {kind} line {prefix!r} within {timeout} s")
                self._cond.wait(left)

    def boot(self, timeout: float = 120) -> None:
        """Run uncapped until the firmware's loop sends TICKs, then cap at RATIO."""
        start = len(self.lines)
        self.wait("in", "TICK", timeout, since=start)
        self.ratio(RATIO)

    def board_time(self, t_emu: int) -> int:
        """The board clock (ticks since the edge timer started) at emulated `t_emu`."""
        return t_emu - self.sm_start[-1]

    def monitor(self, tmp: Path, *args: str) -> subprocess.Popen[str]:
        """`buzzerbox monitor --json` on this board, its clocks slowed to RATIO.

        Under libfaketime (0.9.10) a timed wait of Python's never ends (its
        sem_clockwait is not faked, the monotonic clock it is given is): the
        monitor's pad feed wakes only when the board's lines come, never by its own
        timers (a SYNC due, its "\n"). pads/board/syncrounds.py copes with that."""
        env = dict(os.environ, LD_PRELOAD=libfaketime(), FAKETIME=f"+0 x{RATIO}")
        env["FAKETIME_DONT_FAKE_MONOTONIC"] = "0"
        with open(tmp / "monitor.stderr", "w") as stderr:  # the child keeps its own copy
            return subprocess.Popen(
                [sys.executable, "-m", "buzzerbox", "monitor", "--board", self.url, "--json"]
                + list(args),
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                env=env,
            )

    def close(self) -> None:
        stop(self.proc)
        self._reader.join(5)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()
        self._stderr.close()
        if self.clock is not None:
            self.clock.close()
