"""GPIO pads through gpiozero's MockFactory on a controlled clock; leading-edge debounce."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from buzzerbox.errors import InputError
from buzzerbox.pads.errors import GpioUnavailableError
from buzzerbox.pads.fakes.pins import ClockedMockFactory
from buzzerbox.pads.fakes.wires import edges
from buzzerbox.pads.gpio import GpioPads
from buzzerbox.pads.padmap import parse_pad_map
from buzzerbox.pads.pifactory import open_pi_factory
from buzzerbox.pads.sources import PadSources
from buzzerbox.pads.timeline.arbiter import GPIO, Edge
from buzzerbox.pads.timeline.debounce import Debouncer
from buzzerbox.testing import ManualClock

Seen = list[tuple[int, int, int]]


@pytest.fixture
def seen() -> Seen:
    return []


@pytest.fixture
def pads(mock_factory: ClockedMockFactory, seen: Seen) -> Iterator[GpioPads]:
    gp = GpioPads(
        [17, 22, 27],
        pin_factory=mock_factory,
        when_edge=lambda pin, state, t: seen.append((pin, state, t)),
        debounce_us=5_000,
        lights=[5],
    )
    yield gp
    gp.close()


def press(factory: ClockedMockFactory, pin: int) -> None:
    factory.pin(pin).drive_low()  # pulled up: a pad shorts it to ground


def release(factory: ClockedMockFactory, pin: int) -> None:
    factory.pin(pin).drive_high()


def test_presses_microseconds_apart_on_different_pins(
    pads: GpioPads, mock_factory: ClockedMockFactory, clock: ManualClock, seen: Seen
) -> None:
    t0 = clock()
    press(mock_factory, 27)
    clock.advance(3)
    press(mock_factory, 17)
    clock.advance(1)
    press(mock_factory, 22)
    assert seen == [(27, 1, t0), (17, 1, t0 + 3), (22, 1, t0 + 4)]
    assert pads.is_pressed(17)


def test_bounce_burst_is_reduced_to_its_first_edge(
    pads: GpioPads, mock_factory: ClockedMockFactory, clock: ManualClock, seen: Seen
) -> None:
    t0 = clock()
    for _ in range(6):  # a contact that chatters for 1.2 ms and stays closed
        press(mock_factory, 17)
        clock.advance(100)
        release(mock_factory, 17)
        clock.advance(100)
    press(mock_factory, 17)
    clock.advance(20_000)
    pads.settle()
    assert seen == [(17, 1, t0)]
    assert pads.dropped == 12
    t1 = clock()
    release(mock_factory, 17)
    clock.advance(50)
    press(mock_factory, 17)
    clock.advance(50)
    release(mock_factory, 17)
    pads.settle(clock() + 10_000)
    assert seen == [(17, 1, t0), (17, 0, t1)]


def test_other_pads_are_never_affected_by_a_bounce(
    pads: GpioPads, mock_factory: ClockedMockFactory, clock: ManualClock, seen: Seen
) -> None:
    t0 = clock()
    press(mock_factory, 17)
    clock.advance(10)
    press(mock_factory, 22)  # inside 17's window: its own pad, its own edge
    clock.advance(10)
    release(mock_factory, 17)
    clock.advance(10)
    press(mock_factory, 17)
    assert seen == [(17, 1, t0), (22, 1, t0 + 10)]


def test_tap_shorter_than_the_window_is_released_when_it_closes(
    pads: GpioPads, mock_factory: ClockedMockFactory, clock: ManualClock, seen: Seen
) -> None:
    t0 = clock()
    press(mock_factory, 17)
    clock.advance(2_000)
    release(mock_factory, 17)  # inside the window: not reported yet
    assert seen == [(17, 1, t0)]
    clock.advance(1_000)
    assert pads.watermark(clock(), 500) == t0 + 2_000  # held back for it
    clock.advance(2_000)
    pads.settle()
    assert seen == [(17, 1, t0), (17, 0, t0 + 2_000)]
    assert pads.watermark(clock(), 1_000) == clock() - 1_000


def test_lights_and_no_bounce_time_set(pads: GpioPads, mock_factory: ClockedMockFactory) -> None:
    pads.set_light(5, True)
    assert mock_factory.pin(5).state
    pads.set_light(5, False)
    assert not mock_factory.pin(5).state
    assert mock_factory.pin(17).bounce is None


def test_callbacks_survive_garbage_collection(
    pads: GpioPads, mock_factory: ClockedMockFactory, clock: ManualClock, seen: Seen
) -> None:
    import gc

    gc.collect()
    press(mock_factory, 22)
    assert seen == [(22, 1, clock())]


def test_debouncer_settles_by_time_alone() -> None:
    deb: Debouncer[str] = Debouncer(1_000)
    deb.add("a", 0)
    assert deb.edge("a", 1, 100) == [(1, 100)]
    assert deb.edge("a", 0, 600) == []
    assert deb.earliest_open() == 600
    assert deb.settle(1_099) == []
    assert deb.settle(1_100) == [("a", 0, 600)]
    assert deb.edge("a", 1, 1_200) == []  # inside the window opened at 600
    assert deb.edge("a", 0, 1_300) == []
    assert deb.settle(5_000) == []
    with pytest.raises(InputError, match="window -1"):
        Debouncer(-1)


def test_edges_settled_together_come_in_the_order_the_pads_were_added() -> None:
    deb: Debouncer[str] = Debouncer(1_000)
    for key in "cab":
        deb.add(key, 0, release_us=500)
    deb.add("c", 0, release_us=500)  # added again: it keeps its place
    for key, t in (("b", 10), ("a", 20), ("c", 30)):  # a tap shorter than the window
        assert deb.edge(key, 1, t) == [(1, t)]
        assert deb.edge(key, 0, t + 100) == []
    assert deb.is_open and deb.earliest_open() == 110
    assert deb.settle(2_000) == [("c", 0, 130), ("a", 0, 120), ("b", 0, 110)]
    assert not deb.is_open and deb.earliest_open() is None and deb.settle(9_000) == []


def test_gpio_pads_in_pad_sources_are_ordered_and_named(
    mock_factory: ClockedMockFactory, clock: ManualClock
) -> None:
    pad_map = parse_pad_map(
        "seats = 2\n[gpio]\ndebounce_us = 3000\n"
        '[[pad]]\nid = "left"\nrole = "slap"\nseat = 0\ngpio = 17\n'
        '[[pad]]\nid = "right"\nrole = "slap"\nseat = 1\ngpio = 22\n'
    )
    with PadSources(pad_map, gpio_factory=mock_factory, clock=clock, gpio_margin_us=2_000) as src:
        t0 = clock()
        press(mock_factory, 22)
        clock.advance(7)
        press(mock_factory, 17)
        clock.advance(1_000)
        assert edges(src.poll(0)) == []  # within the margin: a callback may still come
        clock.advance(1_500)
        assert edges(src.poll(0)) == [
            Edge(GPIO, 22, "right", 1, t0),
            Edge(GPIO, 17, "left", 1, t0 + 7),
        ]
        release(mock_factory, 17)  # inside 17's debounce window: held until it closes
        assert edges(src.poll(0)) == []
        assert edges(src.flush()) == [Edge(GPIO, 17, "left", 0, clock())]
        assert src.pad("left") is not None
        assert src.status == {}


def test_lgpio_factory_refused_off_a_pi(tmp_path: Path) -> None:
    model = tmp_path / "model"
    with pytest.raises(GpioUnavailableError, match="need a Raspberry Pi"):
        open_pi_factory(model_path=model)
    model.write_bytes(b"Some Other Board\0")
    with pytest.raises(GpioUnavailableError, match="'Some Other Board'"):
        open_pi_factory(model_path=model)
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    with pytest.raises(GpioUnavailableError, match="lgpio"):
        open_pi_factory(model_path=model)  # no lgpio here
