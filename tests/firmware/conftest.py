"""Fixtures for the pad board firmware tests (helpers in fwbench.py).

Hypothesis keeps its files in the temp folder: a `.hypothesis/` at the top would
break collection (see tests/rules/conftest.py).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis.configuration import set_hypothesis_home_dir

from .fwbench import FirmwareProcess, load_pio, micropython_path

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "buzzerbox-hypothesis")


@pytest.fixture(scope="session")
def pio() -> ModuleType:
    """padboard.pio, assembled by the stand-in rp2."""
    return load_pio()


@pytest.fixture
def firmware(tmp_path: Path) -> Iterator[FirmwareProcess]:
    """The whole firmware (firmware/main.py) running in the MicroPython unix port."""
    proc = FirmwareProcess(micropython_path(), tmp_path)
    try:
        yield proc
    finally:
        proc.close()
