"""A resting hand on a pile pad is one card laid in Ligretto Twist, through the real
GPIO pads (gpiozero's MockFactory on a controlled clock), the release hold, and the
box's rules; a real lift and a new card make two."""

from __future__ import annotations

from pathlib import Path

from buzzerbox.box import Box
from buzzerbox.box.checks import table_entry
from buzzerbox.pads.fakes.edges import pad_edge
from buzzerbox.pads.fakes.pins import ClockedMockFactory, drive_pin, resting_hand
from buzzerbox.pads.padmap import parse_pad_map
from buzzerbox.pads.sources import PadSources
from buzzerbox.pads.timeline.arbiter import Edge
from buzzerbox.store.eventlog import EventLog
from buzzerbox.testing import ManualClock

MAP = """
seats = 2
piles = 4
[gpio]
debounce_us = 30000
[[pad]]
id = "p0-s0"
role = "pile"
seat = 0
pile = 0
gpio = 17
[[pad]]
id = "p0-s1"
role = "pile"
seat = 1
pile = 0
gpio = 22
"""


def test_a_resting_hand_is_one_card_and_a_lift_and_a_new_card_are_two(
    tmp_path: Path, clock: ManualClock
) -> None:
    pad_map = parse_pad_map(MAP)
    box = Box(EventLog(tmp_path / "box.db"), clock=clock, pads=pad_map)
    box.new_game({"game": "twist", "players": ["Ann", "Ben"]})
    box.submit(table_entry({"type": "round"}))
    clock.advance(box.countdown_us)
    assert box.state()["phase"] == "playing"
    pads_clock = ManualClock(clock.now + 1_000)  # the host timeline: the box's, after the go
    factory = ClockedMockFactory(pads_clock)
    edges: list[Edge] = []

    def feed() -> None:
        for event in src.poll(0):
            if isinstance(event, Edge):
                edges.append(event)
                box.pad_edge(pad_edge(event.pad, event.is_press, event.t_us))

    def laid() -> list[int]:
        return [p["laid"] for p in box.state()["players"]]

    try:
        with PadSources(pad_map, gpio_factory=factory, clock=pads_clock) as src:
            drive_pin(factory, 17, resting_hand(), feed)
            assert [(e.pad, e.state) for e in edges] == [("p0-s0", 1)]
            assert laid() == [1, 0] and box.pad_refusals == 0
            drive_pin(factory, 17, [(0, 0), (300_000, 1)], feed)  # a lift, the next card
            assert laid() == [2, 0]
            drive_pin(factory, 17, [(0, 0)], feed)  # Ann lifts her hand ...
            drive_pin(factory, 22, [(0, 1)], feed)  # ... and Ben plays on the pile: no foul
            assert laid() == [2, 1] and box.pad_refusals == 0
    finally:
        factory.close()
        box.close()
