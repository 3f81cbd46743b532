"""End to end: pads pressed on the firmware (MicroPython unix port, stand-in
hardware) come out of `buzzerbox monitor --json` (the host's board link, over a
pty) in order and with the right spacing."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .fwbench import BOARD_ID, FirmwareProcess, Link


def read_json(printed: Link, timeout: float) -> dict[str, Any]:
    """The next line the monitor printed. Read from its pipe's bytes: a text stream's
    readline() may take two lines at once, and select() then sees nothing for the
    second (two edges made final together are printed together)."""
    try:
        line = printed.line(timeout)
    except TimeoutError as e:
        raise TimeoutError(f"buzzerbox monitor printed nothing within {timeout} s") from e
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
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr) as monitor,
    ):
        assert monitor.stdout is not None
        printed = Link(monitor.stdout.fileno())
        try:
            online = {"event": "board", "board": BOARD_ID, "status": "online"}
            while read_json(printed, 20) != online:
                pass
            firmware.bench("B", *(f"E {t} {gpio} {level}" for t, gpio, level, _ in schedule))
            deadline = time.monotonic() + 20
            while len(events) < len(expect):
                event = read_json(printed, max(0.1, deadline - time.monotonic()))
                if event["event"] in ("press", "release"):
                    events.append(event)
            monitor.send_signal(signal.SIGTERM)
            rest = printed.rest() + monitor.stdout.read().decode()  # held, printed on SIGTERM
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
