"""Fake pad boards in a process of their own, as real boards are: they share no GIL
with the box nor with the test's phones, so a busy test does not skew their clocks.

Run as a script (`python boardproc.py [--channels=8] [--tick-ms=10] [--idle-tick-ms=90]
pico-a:pty pico-b:tcp`): it serves each board, ticking as the firmware does (after an
EDGE every `--tick-ms`, idle every `--idle-tick-ms`)
(`FakeBoardPort`), prints ``ID URL`` for each, then takes commands on stdin:

    at US ID CH STATE     channel CH of board ID goes to STATE, US µs from now
    sent                  one JSON line: {id: [[ch, state, true host µs], ...]}
    quit

`BoardProcess` runs it for a test or a bench script. The times it reports are the
boards' own true times on CLOCK_MONOTONIC, the box's host timeline.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from buzzerbox.pads.fakes.padboard import FakeBoard
from buzzerbox.pads.fakes.port import FakeBoardPort


class BoardProcess:
    """The boards' process: their URLs, their presses, their true times."""

    def __init__(
        self, *boards: str, channels: int = 8, tick_ms: int = 10, idle_tick_ms: int = 90
    ) -> None:
        command = [sys.executable, __file__, f"--channels={channels}", f"--tick-ms={tick_ms}"]
        command.append(f"--idle-tick-ms={idle_tick_ms}")
        command += boards
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None and self.process.stdin is not None
        self._in, self._out = self.process.stdin, self.process.stdout
        self.urls: dict[str, str] = {}
        for _ in boards:
            board_id, url = self._out.readline().split()
            self.urls[board_id] = url

    def at(self, after_us: int, board: str, ch: int, state: int = 1) -> None:
        self._in.write(f"at {after_us} {board} {ch} {state}\n")

    def flush(self) -> None:
        self._in.flush()

    def sent(self) -> dict[str, list[tuple[int, int, int]]]:
        """Every edge each board has sent so far: (ch, state, true host µs)."""
        self._in.write("sent\n")
        self._in.flush()
        raw: dict[str, list[list[int]]] = json.loads(self._out.readline())
        return {board: [(e[0], e[1], e[2]) for e in edges] for board, edges in raw.items()}

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self._in.write("quit\n")
                self._in.close()
            except BrokenPipeError:
                pass
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self._out.close()


def edge(ch: int, state: int) -> Callable[[FakeBoard], bytes]:
    return lambda board: board.edge(ch, state)


def serve(
    specs: list[str], channels: int, folder: Path, tick_ms: int = 10, idle_tick_ms: int = 90
) -> None:
    ports: dict[str, FakeBoardPort] = {}
    for spec in specs:
        board_id, kind = spec.split(":")
        board = FakeBoard(board_id, channels=channels)
        link = folder / f"tty-{board_id}" if kind == "pty" else None
        port = FakeBoardPort(
            board,
            tcp=kind == "tcp",
            link=link,
            tick_us=tick_ms * 1000,
            idle_tick_us=idle_tick_ms * 1000,
        )
        ports[board_id] = port.start()
        print(board_id, ports[board_id].url, flush=True)
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["at"]:
            after, board_id, ch, state = int(words[1]), words[2], int(words[3]), int(words[4])
            ports[board_id].do(edge(ch, state), after_us=after)
        elif words[:1] == ["sent"]:
            sent: dict[str, Any] = {
                i: [[e.ch, e.state, e.host_us] for e in p.board.sent] for i, p in ports.items()
            }
            print(json.dumps(sent), flush=True)
        elif words[:1] == ["quit"]:
            break
    for port in ports.values():
        port.close()


if __name__ == "__main__":
    import tempfile

    args = sys.argv[1:]
    count = int(args.pop(0).split("=")[1]) if args and args[0].startswith("--channels") else 8
    tick = int(args.pop(0).split("=")[1]) if args and args[0].startswith("--tick-ms") else 10
    idle = int(args.pop(0).split("=")[1]) if args and args[0].startswith("--idle-tick") else 90
    with tempfile.TemporaryDirectory() as tmp:
        serve(args, count, Path(tmp), tick, idle)
