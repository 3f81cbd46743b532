"""End to end: pads pressed on the firmware (MicroPython unix port, stand-in
hardware) come out of `buzzerbox monitor --json` (the host's board link, over a
pty) in order and with the right spacing."""

from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

from .fwbench import BOARD_ID, FirmwareProcess


def read_json(stream: IO[str], timeout: float) -> dict[str, Any]:
    if not select.select([stream], [], [], timeout)[0]:
        raise TimeoutError(f"buzzerbox monitor printed nothing within {timeout} s")
    line = stream.readline()
    if not line:
        raise EOFError("buzzerbox monitor ended")
    event: dict[str, Any] = json.loads(line)
    return event


def test_presses_reach_the_monitor_in_order_and_spaced_right(
    firmware: FirmwareProcess, tmp_path: Path
) -> None:
    # Board time from the bench's B, in us; GPIO 26 is channel 23; 25 100 and
    # 25 300 are bounces of channel 23's press.
    schedule = [
        (20_000, 3, 0, "press"),
        (25_000, 26, 0, "press"),
        (25_100, 26, 1, None),
        (25_300, 26, 0, None),
        (25_700, 11, 0, "press"),
        (60_000, 3, 1, "release"),
        (70_000, 26, 1, "release"),
        (71_000, 11, 1, "release"),
    ]
    channel = {3: 3, 26: 23, 11: 11}
    expect = [(kind, channel[gpio], t) for t, gpio, _, kind in schedule if kind]
    events: list[dict[str, Any]] = []
    command = [sys.executable, "-m", "buzzerbox", "monitor", "--board", firmware.path, "--json"]
    with (
        open(tmp_path / "monitor.stderr", "w") as stderr,
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True) as monitor,
    ):
        assert monitor.stdout is not None
        try:
            online = {"event": "board", "board": BOARD_ID, "status": "online"}
            while read_json(monitor.stdout, 20) != online:
                pass
            firmware.bench("B", *(f"E {t} {gpio} {level}" for t, gpio, level, _ in schedule))
            deadline = time.monotonic() + 20
            while len(events) < len(expect):
                event = read_json(monitor.stdout, max(0.1, deadline - time.monotonic()))
                if event["event"] in ("press", "release"):
                    events.append(event)
            monitor.send_signal(signal.SIGTERM)
            rest = monitor.stdout.read()  # what it held, flushed on SIGTERM
            assert monitor.wait(10) == 0, (tmp_path / "monitor.stderr").read_text()
        finally:
            if monitor.poll() is None:
                monitor.kill()
    assert '"press"' not in rest and '"release"' not in rest
    assert [(e["event"], e["ch"], e["board"], e["pad"]) for e in events] == [
        (kind, ch, BOARD_ID, f"{BOARD_ID}:{ch}") for kind, ch, _ in expect
    ]
    # The board stamps exactly (test_fw_unix); the host maps board time with a
    # drift fitted from a few SYNCs so far: allow 200 us plus 1 % of the span.
    t0 = events[0]["t_us"]
    for event, (_, _, t) in zip(events, expect, strict=True):
        span = t - expect[0][2]
        assert abs((event["t_us"] - t0) - span) <= 200 + span // 100
    times = [e["t_us"] for e in events]
    assert times == sorted(times)
