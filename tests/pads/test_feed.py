"""Real pads into the box: edges from the pads layer become presses of seats, and the
box's lights go to the pads that have one."""

from __future__ import annotations

import argparse
import queue
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from buzzerbox.box import Box
from buzzerbox.box.boxjson import BoxStateJson
from buzzerbox.box.checks import table_entry
from buzzerbox.errors import ConfigError
from buzzerbox.pads.feed import PadFeed, open_sources
from buzzerbox.pads.padmap import PadMap, parse_pad_map
from buzzerbox.pads.timeline.arbiter import BoardJson, BoardStatusChanged, Edge, PadEvent
from buzzerbox.serve import settings
from buzzerbox.store.eventlog import EventLog
from buzzerbox.testing import ManualClock

MAP = """
seats = 2
[[pad]]
id = "north"
role = "stop"
seat = 0
gpio = 17
light_gpio = 5
[[pad]]
id = "south"
role = "stop"
seat = 1
gpio = 27
"""


class FakeSources:
    """What PadFeed needs of PadSources: events in, lights out."""

    def __init__(self, pad_map: PadMap) -> None:
        self.pad_map = pad_map
        self.queue: queue.Queue[PadEvent | None] = queue.Queue()
        self.lights: list[tuple[str, bool]] = []

    def start(self) -> None:
        pass

    def close(self) -> None:
        self.queue.put(None)

    def wake(self) -> None:  # the feed is to stop: end its events
        self.queue.put(None)

    def events(self, stop: threading.Event) -> Iterator[PadEvent]:
        while (event := self.queue.get(timeout=10)) is not None:
            yield event

    def set_light(self, pad_id: str, on: bool) -> None:
        self.lights.append((pad_id, on))


@pytest.fixture
def pad_map() -> PadMap:
    return parse_pad_map(MAP)


def test_edges_of_real_pads_are_presses_of_their_seats(pad_map: PadMap, tmp_path: Path) -> None:
    clock = ManualClock()  # the box's clock (this folder's `clock` fixture is the pads')
    box = Box(EventLog(tmp_path / "box.db"), clock=clock, pads=pad_map)
    assert box.pads()[0].to_json() == {
        "id": "north", "role": "stop", "seat": 0, "pile": None, "label": "stop · pad north",
        "enrolled": False,
    }  # fmt: skip
    box.new_game({"game": "kids", "players": ["Ann", "Ben"]})
    box.submit(table_entry({"type": "round"}))
    clock.advance(3_000_000)
    changed: queue.Queue[BoxStateJson] = queue.Queue()
    box.when_changed.append(changed.put)
    sources = FakeSources(pad_map)
    feed = PadFeed(sources, box)  # type: ignore[arg-type]
    feed.start()
    sources.queue.put(BoardStatusChanged("gpio", "online"))
    sources.queue.put(Edge("gpio", 99, "gpio:99", 1, clock.now))  # not in the map: refused
    sources.queue.put(Edge("gpio", 17, "north", 1, clock.now + 5))
    state = changed.get(timeout=10)
    while state["caller"] is None:  # the refused edge is shown by the pad test first
        state = changed.get(timeout=10)
    assert state["caller"] == "Ann"
    assert state["race"][0]["t_us"] == clock.now + 5
    feed.close()
    assert box.pad_refusals == 1
    assert sources.lights == [("north", True)]  # south has no light
    box.close()


def test_a_pads_table_needs_a_map(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs map"):
        open_sources({}, tmp_path)
    with pytest.raises(ConfigError, match="unknown keys"):
        open_sources({"map": "x.toml", "colour": "red"}, tmp_path)


def test_a_wrong_serve_config_is_a_config_error(tmp_path: Path) -> None:
    """serve's settings refuse a config file with ConfigError (a ValueError still)."""
    config = tmp_path / "box.toml"
    args = argparse.Namespace(config=config)
    config.write_text("colour = 'red'\n")
    with pytest.raises(ConfigError, match="unknown keys colour"):
        settings(args)
    config.write_text("colour = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        settings(args)


def test_the_box_shows_each_boards_status_and_clock(pad_map: PadMap, tmp_path: Path) -> None:
    box = Box(EventLog(tmp_path / "box.db"), clock=ManualClock(), pads=pad_map)
    changed: queue.Queue[BoxStateJson] = queue.Queue()
    box.when_changed.append(changed.put)
    sources = FakeSources(pad_map)
    feed = PadFeed(sources, box)  # type: ignore[arg-type]
    feed.start()
    sources.queue.put(BoardStatusChanged("pico-a", "online", "sync", "waiting"))
    sources.queue.put(BoardStatusChanged("pico-b", "online"))
    sources.queue.put(BoardStatusChanged("pico-a", "online", "wire", "live"))
    while len(changed.get(timeout=10)["box"]["boards"]) < 2:
        pass
    state = changed.get(timeout=10)
    feed.close()
    assert state["box"]["boards"] == [
        {"board": "pico-a", "status": "online", "clock": "wire", "wire": "live"},
        {"board": "pico-b", "status": "online"},
    ]
    box.close()


def test_serve_takes_the_sync_wire_from_the_map(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "map.toml").write_text(
        'seats = 1\n[sync]\ngpio = 7\n[[board]]\nid = "pico-a"\nurl = "socket://127.0.0.1:9"\n'
        "channels = 8\nsync = 7\n",
        encoding="utf-8",
    )
    with caplog.at_level("WARNING"):
        _, sources = open_sources("map.toml", tmp_path)
    # not a Pi here: GPIO7 cannot be pulsed, so the boards line up by common pulses
    assert sources.pulser is None and sources.wire is not None and not sources.wire.is_stamped
    assert "the sync wire on GPIO7 is not pulsed here" in caplog.text
    assert sources.sessions[0].sync_channel("pico-a") == 7
    sources.close()


BOARDS_MAP = """
seats = 2
[[board]]
id = "pico-e661"
alias = "pico-a"
url = "/dev/serial/by-id/usb-pico-a"
[[board]]
id = "pico-b"
[[pad]]
id = "ann-stop"
role = "stop"
seat = 0
board = "pico-a"
ch = 0
[[pad]]
id = "ben-stop"
role = "stop"
seat = 1
board = "pico-a"
ch = 1
[[pad]]
id = "ben-slap"
role = "slap"
seat = 1
board = "pico-b"
ch = 0
"""


def test_a_board_gone_names_its_pads_and_is_one_board_from_its_port_to_its_id(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """What the table and the TV say of a board that is gone (issue 42, item 7): the
    box keeps, for each board, what the map calls it and the pads wired to it; a board
    known by its port before its HELLO is the same board once it says its id."""
    pad_map = parse_pad_map(BOARDS_MAP)
    box = Box(EventLog(tmp_path / "box.db"), clock=ManualClock(), pads=pad_map)
    changed: queue.Queue[BoxStateJson] = queue.Queue()
    box.when_changed.append(changed.put)
    sources = FakeSources(pad_map)
    feed = PadFeed(sources, box)  # type: ignore[arg-type]
    port = "/dev/serial/by-id/usb-pico-a"
    other = "/dev/ttyACM7"  # pico-b's, from the serve config's [pads] boards

    def boards() -> list[BoardJson]:
        while True:  # the last state of the events put so far
            state = changed.get(timeout=10)
            if changed.empty():
                return list(state["box"]["boards"])

    with caplog.at_level("WARNING"):
        feed.start()
        sources.queue.put(BoardStatusChanged(port, "gone", url=port))  # not there at start
        sources.queue.put(BoardStatusChanged(other, "gone", url=other))
        sources.queue.put(BoardStatusChanged("pico-e661", "online", url=port))
        sources.queue.put(BoardStatusChanged("pico-b", "online", url=other))
        while len(got := boards()) < 2 or got[-1]["status"] != "online":
            pass
        pico_a = {"board": "pico-e661", "name": "pico-a", "pads": ["ann-stop", "ben-stop"]}
        assert got == [
            {**pico_a, "status": "online"},
            {"board": "pico-b", "status": "online", "name": "pico-b", "pads": ["ben-slap"]},
        ]
        sources.queue.put(BoardStatusChanged("pico-e661", "gone", url=port))  # unplugged
        while (got := boards())[0]["status"] != "gone":
            pass
    feed.close()
    assert got[0] == {**pico_a, "status": "gone"}
    assert "pad board pico-a: its pads ann-stop, ben-stop do not count until it is back" in (
        caplog.text
    )
    box.close()
