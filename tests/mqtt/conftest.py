"""Fixtures of the MQTT tests: a mosquitto of the test's own, boxes on a driven clock,
their publishers and recorders on that mosquitto (each closed after the test), a real
`buzzerbox hub` on it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from buzzerbox.box import Box
from buzzerbox.mqtt import Publisher, attach
from buzzerbox.store.eventlog import EventLog

from .mqtt_fakes import (
    COUNTDOWN_US,
    MakeBox,
    ManualClock,
    Mosquitto,
    Recorder,
    closed_after,
)
from .test_untrusted import Hub


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
def make_box(tmp_path: Path) -> Iterator[MakeBox]:
    """Box(name, clock): a box whose log is in tmp_path/<name>/ (the same folder each time)."""

    def make(name: str, clock: ManualClock) -> Box:
        folder = tmp_path / name
        folder.mkdir(exist_ok=True)
        return Box(EventLog(folder / "buzzerbox.db"), clock=clock, countdown_us=COUNTDOWN_US)

    yield from closed_after(make)


@pytest.fixture
def hub(broker: Mosquitto, tmp_path: Path) -> Iterator[Hub]:
    """`buzzerbox hub` on the test's broker (its data in tmp_path/hub), and its stream."""
    running = Hub(broker, tmp_path / "hub")
    yield running
    running.stop()


@pytest.fixture
def attached(
    broker: Mosquitto, make_box: MakeBox, tmp_path: Path
) -> Iterator[Callable[..., Publisher]]:
    """attach(box, broker.url, name, tmp_path/<folder>/, **options), the folder the box's
    own (`name`) unless told: the box's publisher on the test's broker, each closed after
    the test, before the boxes of `make_box`."""

    def attach_to_broker(box: Box, name: str, folder: str = "", **options: Any) -> Publisher:
        return attach(box, broker.url, name, tmp_path / (folder or name), **options)

    yield from closed_after(attach_to_broker)


@pytest.fixture
def recorders(broker: Mosquitto) -> Iterator[Callable[..., Recorder]]:
    """Recorder(broker.url, topics, **options) on the test's broker; each closed after
    the test."""

    def record(topics: list[str], **options: Any) -> Recorder:
        return Recorder(broker.url, topics, **options)

    yield from closed_after(record)
