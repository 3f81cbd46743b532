"""A box with a publisher in a process of its own, driven line by line on stdin, so
a test can kill -9 it. Not a test module.

    python tests/mqtt/boxproc.py DATA_DIR BROKER_URL BOX_NAME

Each stdin line is a JSON command; each gets one JSON line back on stdout with the
box's seq and the publisher's cursor:

    {"op": "game", "players": [...]}   a Ligretto Kids game
    {"op": "round", "winner": 0}        a round: countdown, stop press, cards left
    {"op": "wait"}                      wait until connected and the broker has everything
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from buzzerbox.box import Box
from buzzerbox.mqtt import attach
from buzzerbox.store.log import EventLog

COUNTDOWN_US = 1_000_000


class Timer:
    def __init__(self, due: int, fn: Callable[[], None]) -> None:
        self.due, self.fn, self.is_cancelled = due, fn, False

    def cancel(self) -> None:
        self.is_cancelled = True


class Clock:
    """Driven by the commands; starts after the log's last time (the box adds its offset)."""

    def __init__(self) -> None:
        self.now = 1_000_000
        self.timers: list[Timer] = []

    def ticks(self) -> int:
        return self.now

    def call_later(self, delay_us: int, fn: Callable[[], None]) -> Timer:
        timer = Timer(self.now + delay_us, fn)
        self.timers.append(timer)
        return timer

    def advance(self, us: int) -> None:
        self.now += us
        due = [t for t in self.timers if t.due <= self.now and not t.is_cancelled]
        self.timers = [t for t in self.timers if t not in due and not t.is_cancelled]
        for timer in due:
            timer.fn()


def main(data: Path, url: str, name: str) -> int:
    clock = Clock()
    box = Box(EventLog(data / "buzzerbox.db"), clock=clock, countdown_us=COUNTDOWN_US)
    publisher = attach(box, url, name, data)
    for line in sys.stdin:
        command = json.loads(line)
        if command["op"] == "game":
            box.new_game({"game": "kids", "players": command["players"]})
        elif command["op"] == "round":
            box.submit({"type": "round"})
            clock.advance(COUNTDOWN_US + 500_000)
            winner = int(command["winner"])
            box.press(winner, "stop", None, box.now_us())
            names = [p["name"] for p in box.state()["players"]]
            box.submit(
                {
                    "type": "left",
                    "counts": {n: 0 if i == winner else 5 for i, n in enumerate(names)},
                }
            )
        elif command["op"] == "wait":
            publisher.wait_connected(15.0)
            publisher.wait_published(box.seq, 15.0)
        print(json.dumps({"seq": box.seq, "published": publisher.published_seq}), flush=True)
    publisher.close()
    box.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2], sys.argv[3]))
