"""Fixtures of the MQTT tests: a mosquitto of the test's own, boxes on a driven clock."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from buzzerbox.box import Box
from buzzerbox.store.eventlog import EventLog

from .mqtt_fakes import COUNTDOWN_US, ManualClock, Mosquitto


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    mosquitto = Mosquitto(tmp_path / "broker")
    mosquitto.start()
    yield mosquitto
    mosquitto.stop()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def make_box(tmp_path: Path) -> Iterator[Callable[[str, ManualClock], Box]]:
    """Box(name, clock): a box whose log is in tmp_path/<name>/ (the same folder each time)."""
    boxes: list[Box] = []

    def make(name: str, clock: ManualClock) -> Box:
        folder = tmp_path / name
        folder.mkdir(exist_ok=True)
        box = Box(EventLog(folder / "buzzerbox.db"), clock=clock, countdown_us=COUNTDOWN_US)
        boxes.append(box)
        return box

    yield make
    for box in boxes:
        box.close()
