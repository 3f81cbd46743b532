"""Fixtures of the fault tests: a data folder, and everything a test opened (boxes,
phones, fake boards) closed or killed at its end, whatever happened."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .boxproc import close_all


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    return folder


@pytest.fixture
def tidy() -> Iterator[list[Any]]:
    opened: list[Any] = []
    yield opened
    close_all(reversed(opened))
