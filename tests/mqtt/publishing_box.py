"""A box with a publisher in a process of its own, driven line by line on stdin, so
a test can kill -9 it. Not a test module.

    python tests/mqtt/publishing_box.py DATA_DIR BROKER_URL BOX_NAME

Each stdin line is a JSON command; each gets one JSON line back on stdout with the
box's seq and the publisher's cursor:

    {"op": "game", "players": [...]}   a Ligretto Kids game
    {"op": "round", "winner": 0}        a round: countdown, stop press, cards left
    {"op": "wait"}                      wait until connected and the broker has everything
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from buzzerbox.box import Box
from buzzerbox.box.checks import table_entry
from buzzerbox.mqtt import attach
from buzzerbox.rules.eventjson import parse_edge
from buzzerbox.store.eventlog import EventLog
from buzzerbox.testing import ManualClock

COUNTDOWN_US = 1_000_000


def main(data: Path, url: str, name: str) -> int:
    clock = ManualClock()  # driven by the commands; the box adds its offset to the log
    box = Box(EventLog(data / "buzzerbox.db"), clock=clock, countdown_us=COUNTDOWN_US)
    publisher = attach(box, url, name, data)
    for line in sys.stdin:
        command = json.loads(line)
        if command["op"] == "game":
            box.new_game({"game": "kids", "players": command["players"]})
        elif command["op"] == "round":
            box.submit(table_entry({"type": "round"}))
            clock.advance(COUNTDOWN_US + 500_000)
            winner = int(command["winner"])
            box.play(parse_edge(True, winner, "stop", box.now_us()))
            names = [p["name"] for p in box.state()["players"]]
            box.submit(
                table_entry(
                    {
                        "type": "left",
                        "counts": {n: 0 if i == winner else 5 for i, n in enumerate(names)},
                    }
                )
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
