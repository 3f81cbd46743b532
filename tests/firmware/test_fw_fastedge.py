"""padboard.fastedge (viper) decides pad edges as the plain path does: the same
pair streams through both give the same frames, byte for byte, under the
MicroPython unix port (whose viper words are 64-bit, the Pico's 32: the code
must not lean on either)."""

from __future__ import annotations

import ast
import contextlib
import operator
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from .emulator import PicoEmulator
from .fwbench import FIRMWARE, fw, run_micropython

# Two boards, one fed pair by pair through PadBoard.feed_ticks, the other the
# way ring.py feeds it (fastedge.feed_pairs, the plain path for what it leaves);
# both drained now and then, the fast one in batches. A probe the board asks
# for shows up as the probe bit toggled in a later pair. The clock starts
# `START` ticks before 2**32, so the times cross a word's wrap.
SCRIPT = """
import array
from padboard import core, fastedge, state
SEED, PAIRS, START, WINDOW_US, CLEAN = %d, %d, %d, %d, %d
PADS = tuple(range(0, 23)) + (26,)
PROBE = 25
asks = [0, 0]

def board(i, fast):
    def probe():
        asks[i] += 1
    b = core.PadBoard("pico-x", PADS, PROBE, probe, debounce_us=WINDOW_US,
                      records_into=fastedge.write_records if fast else None)
    for s in (b.state,):
        s[state.NOW_LO] = (1 << 32) - START
        s[state.LOW30] = ((1 << 32) - START) & 0x3FFFFFFF
    return b

plain, quick = board(0, False), board(1, True)
x = SEED
def rand(n):
    global x
    x = (x * 1103515245 + 12345) & 0x7FFFFFFF
    return (x >> 8) %% n

out = [bytearray(), bytearray()]
buf = bytearray(800)
seen = [0, 0, 0, 0, None]  # bytes alike, their EDGEs, TICKs and LOSTs, the first difference
def drain(b, i, fast):
    while True:
        end = b.next_frames_into(buf, 0, len(buf)) if fast else b.next_frame_into(buf, 0)
        if not end:
            break
        out[i].extend(buf[:end])
    if fast:
        compare()

def compare():
    # what both sent alike is counted and dropped (a Pico holds little)
    n = min(len(out[0]), len(out[1]))
    a, b = bytes(out[0][:n]), bytes(out[1][:n])
    if a != b and seen[4] is None:
        k = 0
        while a[k] == b[k]:
            k += 1
        seen[4] = (seen[0] + k, a[max(0, k - 40) : k + 40], b[max(0, k - 40) : k + 40])
    seen[0] += n
    for line in a.split(b"\\n"):
        if line[:5] == b"EDGE ":
            seen[1] += 1
        elif line[:5] == b"TICK ":
            seen[2] += 1
        elif line[:5] == b"LOST ":
            seen[3] += 1
    out[0] = out[0][n:]
    out[1] = out[1][n:]

drain(plain, 0, False)  # the HELLO: the fast path waits while a frame is queued
drain(quick, 1, True)
pins = 0x3FFFFFFF
low = ((1 << 32) - START) & 0x3FFFFFFF
ring = array.array("I", bytes(4 * 32))  # (pins, counter) words, as the DMA writes them
quick.state[state.RING_MASK] = 31
pos = 0
n = 0
ms = 0
probes = 0
while n < PAIRS:
    size = 1 + rand(16)
    for k in range(size):
        r = rand(100)
        if CLEAN:  # every change outside every lock: the fast path decides them all
            step = WINDOW_US + 1 + rand(3000)
        else:  # bounces, taps inside a lock, long pauses
            step = rand(40) if r < 50 else rand(3000) if r < 90 else 20000 + rand(200000)
        low = (low + step) & 0x3FFFFFFF
        probe = asks[0] > probes and rand(3) == 0
        if not probe or rand(2):  # a probe's pair, half the time alone
            for _ in range(1 + rand(2)):
                pins ^= 1 << PADS[rand(len(PADS))]
        if probe:
            pins ^= 1 << PROBE
            probes += 1
        ring[(pos + 2 * k) & 31] = pins
        ring[(pos + 2 * k + 1) & 31] = -low & 0xFFFFFFFF  # the PIO counts down
        plain.feed_ticks(pins, low)
    i = 0
    while i < size:
        i += fastedge.feed_pairs(ring, quick.state, (pos + 2 * i) & 31, size - i)
        if i < size:
            w = (pos + 2 * i) & 31
            quick.feed(ring[w], ring[w + 1])
            i += 1
    pos = (pos + 2 * size) & 31
    n += size
    if rand(8) == 0:
        ms += 10
        plain.tick(ms)
        quick.tick(ms)
    if rand(4) != 0 and not 200 <= n < 320:  # once long undrained: the queue overflows
        drain(plain, 0, False)
        drain(quick, 1, True)
drain(plain, 0, False)
drain(quick, 1, True)
print("FE", seen[0], len(out[0]), len(out[1]), seen[1], seen[2], seen[3], asks[0], asks[1],
      state.queued(quick.state), quick.state[state.NOW_HI], repr(seen[4]))
"""


# (seed, ticks before 2**32 at the start, window, clean): the last crosses the
# wrap inside the fast path itself
RUNS = [(1, 1_000_000, 5000, 0), (2, 3_000_000, 5000, 0), (3, 200_000, 200, 0), (4, 5000, 200, 1)]


def script(seed: int, pairs: int, start: int, window_us: int, clean: int) -> str:
    return SCRIPT % (seed, pairs, start, window_us, clean)


def check(line: str, pairs: int, seed: int) -> None:
    """The verdict line of SCRIPT: both boards sent the same, and it was a real test."""
    kind, alike, rest0, rest1, edges, ticks, lost, asks0, asks1, left, hi, diff = (
        line.rstrip().split(" ", 11)
    )
    assert kind == "FE"
    assert diff == "None", f"seed {seed}: the frames differ at (byte, plain, fast) {diff}"
    assert int(rest0) == int(rest1) == 0, f"seed {seed}: one board sent more"
    assert int(edges) > pairs // 6, f"seed {seed}: too few edges to tell: {edges}"
    assert int(ticks) > 0 and asks0 == asks1 != "0" and left == "0"
    assert int(lost) > 0, "no queue overflow was tried"
    assert int(hi) > 0, "the times did not cross a word's wrap"
    assert int(alike) > 25 * int(edges)  # every EDGE is at least 25 bytes


def test_the_fast_path_sends_what_the_plain_path_sends(tmp_path: Path) -> None:
    for seed, start, window, clean in RUNS:
        out = run_micropython(script(seed, 6000, start, window, clean), tmp_path, 120)
        check(out.splitlines()[-1], 6000, seed)


@pytest.mark.timeout(700)  # its own wait is 600 s; the suite's 120 s would cut it short
def test_on_the_pico_too(tmp_path: Path) -> None:
    """The same on the real MicroPython for the Pico (rp2040js): 32-bit words,
    viper's unsigned comparisons on ARM, the Pico's small heap."""
    source = tmp_path / "fs"
    shutil.copytree(FIRMWARE / "padboard", source / "padboard")
    runs = [RUNS[0], RUNS[-1]]  # the Pico is slow: bounces and overflow; the clean wrap
    body = "\n".join(
        f"exec({script(seed, 700, start, window, clean)!r})" for seed, start, window, clean in runs
    )
    (source / "main.py").write_text(body + "\nprint('FE done')\n")
    emu = PicoEmulator(tmp_path, source)
    try:
        emu.wait("in", "FE done", 600)
    finally:
        emu.close()
    verdicts = [
        line.text for line in emu.lines if line.kind == "in" and line.text.startswith("FE ")
    ]
    assert len(verdicts) == len(runs) + 1, [line.text for line in emu.lines[-20:]]
    for (seed, *_), line in zip(runs, verdicts, strict=False):
        check(line, 700, seed)


def constants(module: str) -> dict[str, int]:
    """The names a firmware module defines by `const()` (or plainly, by a
    number), as MicroPython's compiler folds them: NAME = const(expr), where
    expr is numbers, names defined before, + - * << and |."""
    tree = ast.parse((FIRMWARE / "padboard" / f"{module}.py").read_text())
    names: dict[str, int] = {}

    def value(node: ast.expr) -> int:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name):
            return names[node.id]
        if isinstance(node, ast.BinOp):
            ops: dict[type[ast.operator], Callable[[int, int], int]] = {
                ast.Add: operator.add,
                ast.Sub: operator.sub,
                ast.Mult: operator.mul,
                ast.LShift: operator.lshift,
                ast.BitOr: operator.or_,
            }
            return ops[type(node.op)](value(node.left), value(node.right))
        raise ValueError(f"{module}.py: {ast.unparse(node)} is not a constant")

    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            expr = node.value
            if isinstance(expr, ast.Call) and ast.unparse(expr.func) == "const":
                names[node.targets[0].id] = value(expr.args[0])
            elif isinstance(expr, ast.Constant | ast.BinOp):
                with contextlib.suppress(ValueError, KeyError):
                    names[node.targets[0].id] = value(expr)
    return names


# state.py's words the fast path uses, each by its name in fastedge.py
USED = "PINS NOW_LO NOW_HI LOW30 PAD_MASK PROBE_MASK READY HAS_DUE DUE_LO DUE_HI Q_HEAD"
USED += " Q_TAIL ROOM EDGES SCRATCH RING_MASK PROBE_TICKS TICKS_DONE CH_OF RAW REP WIN"
USED += " UNTIL QUEUE QUEUE_RECORDS TICK"


def test_the_offsets_fastedge_uses_are_state_py_s() -> None:
    state = fw("state")
    edge = constants("fastedge")
    for name in USED.split():
        assert f"_{name}" in edge, f"fastedge.py does not name {name} by const()"
    for module, mine, theirs in (
        ("fastedge", edge, vars(state)),
        ("fast", constants("fast"), vars(state) | constants("app") | vars(fw("protocol"))),
    ):
        shared = [name for name in mine if name.lstrip("_") in theirs or name in theirs]
        for name in shared:
            want = theirs.get(name, theirs.get(name.lstrip("_")))
            assert mine[name] == want, f"{module}.py's {name} is {mine[name]}, not {want}"
    # the words fastedge.py names for itself, from state.py's
    assert edge["_UNTIL_HI"] == state.UNTIL + 1
    assert edge["_RECORD_AT"] == state.QUEUE_RECORDS - 1
    assert edge["_CHANNELS"] == state.CHANNELS
    assert constants("fast")["_FRAME_ROOM"] == edge["_FRAME_ROOM"]


#: function -> the arrays of words it must index by name, per firmware module
NAMED = {
    "fastedge": {"feed_pairs": {"s"}, "write_records": {"s"}},
    "fast": {"look": {"h"}, "probe": {"p"}},
    # not yet app.py's `hs` (hs[6]): const()s defined there, used or not, make the
    # emulated Pico's EDGEs at 2,000/s later (test_fw_pico.py's 1 ms failed); see app.py
    "outbox": {"next_frames_into": {"state"}, "next_frame_into": {"state"}},
}


def bare_indices(source: str, arrays: dict[str, set[str]]) -> tuple[set[str], list[str]]:
    """The functions of `arrays` found in `source` (methods too), and each place one
    of them indexes its arrays by a bare number (s[14], s[224 + i]; s[rec + 1], a
    record's field, is the record's)."""
    found: set[str] = set()
    bare: list[str] = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef) or function.name not in arrays:
            continue
        found.add(function.name)
        for node in ast.walk(function):
            if isinstance(node, ast.Subscript) and ast.unparse(node.value) in arrays[function.name]:
                index = node.slice
                while isinstance(index, ast.BinOp):
                    index = index.left
                if isinstance(index, ast.Constant):
                    bare.append(ast.unparse(node))
    return found, bare


def test_the_firmware_indexes_its_word_arrays_by_name() -> None:
    """No s[14], h[3], state[10]: a word of the state array (fastedge.py's `s`,
    outbox.py's `state`), of look's `h` and of probe's `p` (fast.py) is named: by
    const(), or in outbox.py by state.py's own names."""
    for module, arrays in NAMED.items():
        found, bare = bare_indices((FIRMWARE / "padboard" / f"{module}.py").read_text(), arrays)
        assert found == set(arrays), f"{module}.py: {sorted(set(arrays) - found)} not found"
        assert bare == [], f"{module}.py: {bare}"


def test_the_bare_index_check_finds_one() -> None:
    source = "class A:\n    def read(self, hs):\n        return hs[_H_STAMP] + hs[3]\n"
    assert bare_indices(source, {"read": {"hs"}}) == ({"read"}, ["hs[3]"])
