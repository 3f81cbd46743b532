"""Fixtures for the pads tests (helpers live in padkit.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from buzzerbox.pads.fakes.padboard import BoardClock, FakeBoard
from buzzerbox.pads.fakes.pins import ClockedMockFactory
from buzzerbox.pads.fakes.port import FakeBoardPort
from buzzerbox.pads.timeline.arbiter import Arbiter
from buzzerbox.testing import START_US, ManualClock


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START_US)


@pytest.fixture
def mock_factory(clock: ManualClock) -> Iterator[ClockedMockFactory]:
    factory = ClockedMockFactory(clock)
    yield factory
    factory.close()


@pytest.fixture
def arbiter() -> Arbiter:
    return Arbiter()


@pytest.fixture
def fake_port() -> Iterator[Callable[..., FakeBoardPort]]:
    """Start fake boards on ptys or TCP (127.0.0.1); all are closed after the test."""
    ports: list[FakeBoardPort] = []

    def start(
        board_id: str, *, offset_us: int = 0, drift_ppm: float = 0.0, **kw: object
    ) -> FakeBoardPort:
        board = FakeBoard(board_id, clock=BoardClock(offset_us=offset_us, drift_ppm=drift_ppm))
        port = FakeBoardPort(board, **kw)  # type: ignore[arg-type]
        ports.append(port)
        return port.start()

    yield start
    for port in ports:
        port.close()
