"""`buzzerbox monitor` and `buzzerbox fake-board`: output formats, and the real commands
run as subprocesses against fake boards on ptys (read through queues, never sleeps)."""

from __future__ import annotations

import io
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest
from buzzerbox.pads.fakes.padboard import FakeBoard, SyncLine
from buzzerbox.pads.fakes.port import FakeBoardPort
from buzzerbox.pads.fakes.pulse import WirePulser
from buzzerbox.pads.fakes.wires import collect, presses, status_is
from buzzerbox.pads.monitor import TextPrinter, event_json
from buzzerbox.pads.padmap import parse_pad_map
from buzzerbox.pads.sources import PadSources
from buzzerbox.pads.timeline.arbiter import BoardStatusChanged, Edge, FramesLost

StartPort = Callable[..., FakeBoardPort]


def test_json_lines() -> None:
    assert event_json(BoardStatusChanged("pico-a", "online", "wire", "live")) == {
        "event": "board",
        "board": "pico-a",
        "status": "online",
        "clock": "wire",
        "wire": "live",
    }
    assert event_json(Edge("pico-a", 3, "pico-a:3", 1, 123)) == {
        "event": "press",
        "board": "pico-a",
        "ch": 3,
        "pad": "pico-a:3",
        "t_us": 123,
    }
    assert event_json(Edge("gpio", 17, "left", 0, 5, late=True)) == {
        "event": "release",
        "board": "gpio",
        "ch": 17,
        "pad": "left",
        "t_us": 5,
        "late": True,
    }
    assert event_json(BoardStatusChanged("/dev/ttyACM0", "gone")) == {
        "event": "board",
        "board": "/dev/ttyACM0",
        "status": "gone",
    }
    assert event_json(FramesLost("pico-a", 4)) == {"event": "lost", "board": "pico-a", "frames": 4}
    assert event_json(BoardStatusChanged("pico-a", "online", note="12 channels")) == {
        "event": "board",
        "board": "pico-a",
        "status": "online",
        "note": "12 channels",
    }
    assert event_json(BoardStatusChanged("pico-a", "online", "sync", None, "12 channels")) == {
        "event": "board",
        "board": "pico-a",
        "status": "online",
        "clock": "sync",
        "wire": None,
        "note": "12 channels",
    }


def test_table_for_people() -> None:
    out = io.StringIO()
    pad_map = parse_pad_map('seats = 1\n[[pad]]\nid = "l"\nrole = "slap"\nseat = 0\ngpio = 4\n')
    printer = TextPrinter(out, pad_map)
    printer(BoardStatusChanged("pico-a", "online"))
    printer(Edge("gpio", 4, "l", 1, 12_345_678_901, late=True))
    printer(FramesLost("pico-a", 2))
    printer(BoardStatusChanged("pico-b", "online", note="board pico-b has 12 input channels"))
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["time", "(s)", "event", "board", "ch", "pad"]
    assert lines[1].split() == ["board", "pico-a", "online"]
    assert "12345.678901  press    gpio               4  l  (slap of seat 0)  LATE" in lines[2]
    assert lines[3].split() == ["lost", "pico-a", "2", "frames"]
    assert lines[5].split()[:3] == ["WARNING", "pico-b", "board"]


def test_a_board_with_other_channels_than_the_map_comes_online_with_a_warning() -> None:
    port = FakeBoardPort(FakeBoard("pico-k", channels=12)).start()
    pad_map = parse_pad_map(
        'seats = 1\n[[board]]\nid = "pico-k"\nalias = "k"\n'
        f'url = "{port.url}"\nsync = 11\n'  # on the sync wire: the note and the clock
        '[[pad]]\nrole = "stop"\nseat = 0\nboard = "k"\nch = 17\n'
    )
    try:
        with PadSources(pad_map) as src:
            events = collect(src, lambda evs: any(isinstance(e, BoardStatusChanged) for e in evs))
    finally:
        port.close()
    online = [e for e in events if isinstance(e, BoardStatusChanged)]
    assert online == [
        BoardStatusChanged(
            "pico-k",
            "online",
            "sync",
            "waiting",
            note="board k has 12 input channels (layout pads12), but the pad map puts pad "
            "pico-k:17 on ch 17: flash it with `buzzerbox firmware install PORT --layout "
            "pads24`, or move the pad to ch 0-11",
        )
    ]


class Proc:
    """A `buzzerbox` subprocess whose stdout lines arrive on a queue."""

    def __init__(self, *args: str, stdin: bool = False) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "buzzerbox", *args],
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True)
        self._reader.start()

    def _read(self, stream: IO[str] | None) -> None:
        assert stream is not None
        for line in stream:
            self.lines.put(line.rstrip("\n"))
        stream.close()
        self.lines.put("")  # EOF

    def line(self, timeout: float = 15.0) -> str:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"no line in {timeout} s from {self.proc.args!r}")

    def json(self) -> dict[str, object]:
        line = self.line()
        assert line, f"ended early ({self.proc.poll()}); stderr: {self.stop()}"
        obj: dict[str, object] = json.loads(line)
        return obj

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def stop(self, sig: int = signal.SIGTERM) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        self.proc.wait(15)  # stdout stays with the reader thread, to the last line
        assert self.proc.stderr is not None
        err = self.proc.stderr.read()
        self.proc.stderr.close()
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self._reader.join(5)
        return err


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    started: list[Proc] = []
    yield started
    for p in started:
        if p.proc.poll() is None:
            p.proc.kill()
            p.proc.communicate()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_monitor_json_and_the_flush_on_a_signal(
    fake_port: StartPort, procs: list[Proc], sig: int
) -> None:
    board = fake_port("pico-a", offset_us=2_000_000, drift_ppm=30.0)
    mon = Proc("monitor", "--board", board.url, "--json", "--silence-ms", "60000")
    procs.append(mon)
    assert mon.json() == {"event": "board", "board": "pico-a", "status": "online"}
    board.tap(3, hold_us=20_000, after_us=300_000)  # once the first SYNC burst is done
    press, release = mon.json(), mon.json()
    (p_sent, r_sent) = board.board.sent
    assert press == {
        "event": "press",
        "board": "pico-a",
        "ch": 3,
        "pad": "pico-a:3",
        "t_us": press["t_us"],
    }
    assert release["event"] == "release" and release["ch"] == 3
    assert isinstance(press["t_us"], int) and abs(press["t_us"] - p_sent.host_us) < 5_000
    assert isinstance(release["t_us"], int) and abs(release["t_us"] - r_sent.host_us) < 5_000
    board.is_ticking = False  # no TICK past the next press: the monitor must hold it
    board.press(5)
    board.do(lambda b: b.lost(2))  # sent after the press, printed at once: the press is in
    assert mon.json() == {"event": "lost", "board": "pico-a", "frames": 2}
    err = mon.stop(sig)
    assert mon.proc.returncode == 0, err
    held = mon.json()
    assert held == {
        "event": "press",
        "board": "pico-a",
        "ch": 5,
        "pad": "pico-a:5",
        "t_us": held["t_us"],
    }
    assert mon.line() == ""


def test_monitor_refuses_bad_arguments(procs: list[Proc]) -> None:
    mon = Proc("monitor", "--json")
    procs.append(mon)
    mon.proc.wait(15)
    assert "nothing to monitor" in mon.stop()
    assert mon.proc.returncode == 2


def test_fake_board_command_on_a_pty_driven_by_keys(procs: list[Proc]) -> None:
    fake = Proc(
        "fake-board", "--id", "pico-k", "--offset-us", "5000000", "--usb", "--stamp-us", "30",
        stdin=True,
    )  # fmt: skip
    procs.append(fake)
    path = fake.line()
    assert path.startswith("/dev/")
    with PadSources(boards=[path]) as src:
        collect(src, status_is("pico-k", "online"), timeout=15)
        fake.send("press 2")
        fake.send("lost 1")
        events = collect(src, lambda evs: len(presses(evs)) == 1 and len(evs) >= 2)
        assert FramesLost("pico-k", 1) in events
        fake.send("nonsense")
        fake.send("2")  # tap
        collect(src, lambda evs: len(presses(evs)) == 1)
    assert fake.stop().count("not a fake-board command") == 1
    assert fake.proc.returncode == 0


WIRE_MAP = """\
seats = 2
[sync]
gpio = 7          # not a Pi here: not pulsed by the monitor; an outside pulser does
[[board]]
id = "pico-a"
url = "{a}"
channels = 8
sync = 7
[[board]]
id = "pico-b"
url = "{b}"
channels = 8
sync = 7
[[board]]
id = "pico-c"
url = "{c}"
channels = 8
"""


def test_monitor_json_says_how_each_board_is_mapped(
    fake_port: StartPort, procs: list[Proc], tmp_path: Path
) -> None:
    a = fake_port("pico-a", offset_us=2_000_000, drift_ppm=30.0, frame_us=1000)
    b = fake_port("pico-b", offset_us=50_000_000, drift_ppm=-20.0, tcp=True, frame_us=1000)
    c = fake_port("pico-c", offset_us=7_000_000)
    line = SyncLine()
    a.wire(line, 7)
    b.wire(line, 7)
    pad_map = tmp_path / "pads.toml"
    pad_map.write_text(WIRE_MAP.format(a=a.url, b=b.url, c=c.url), encoding="utf-8")
    mon = Proc("monitor", "--config", str(pad_map), "--json", "--silence-ms", "60000")
    procs.append(mon)
    seen: dict[str, dict[str, object]] = {}
    with WirePulser(line):
        while not all(seen.get(x, {}).get("clock") == "wire" for x in ("pico-a", "pico-b")):
            obj = mon.json()
            assert obj["event"] == "board", obj  # the sync channel's pulses are no pad's
            first = str(obj["board"]) not in seen
            seen[str(obj["board"])] = obj
            if first and obj["board"] != "pico-c":
                assert obj == {**obj, "status": "online", "clock": "sync", "wire": "waiting"}
        assert seen["pico-c"] == {
            "event": "board",
            "board": "pico-c",
            "status": "online",
            "clock": "sync",
            "wire": None,
        }
        assert seen["pico-a"]["wire"] == seen["pico-b"]["wire"] == "live"
        b.press(1, after_us=50_000)
        a.press(2, after_us=53_000)  # on the other board's own timer, about 3 ms later
        got = [mon.json(), mon.json()]
    err = mon.stop()
    assert "GPIO7 is not pulsed here" in err
    truth = sorted(
        (e.host_us, board.board.board_id, e.ch)
        for board in (a, b)
        for e in board.board.sent
        if e.ch != 7
    )
    assert [(o["board"], o["ch"]) for o in got] == [(bid, ch) for _, bid, ch in truth]
    gap = int(got[1]["t_us"]) - int(got[0]["t_us"])  # type: ignore[call-overload]
    assert (
        abs(gap - (truth[1][0] - truth[0][0])) <= 50
    )  # lined up by the pulses: USB frames alone skew SYNC by 100s of µs
