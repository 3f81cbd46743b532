"""The real-stack tier's fixtures: the installed box's disk (built once, kept in the
cache: images.py), and the tier's one VM on a copy of it (powercut.py's `Appliance`),
through all its boots: test_booted and test_gpio run in that order on it, each booting
it when it finds it off. Its files (the disk, the console's log) are
in the session's temporary folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .appliance import new_vm
from .images import installed_box, installed_pin
from .powercut import Appliance
from .vm import Image


@pytest.fixture(scope="session")
def installed() -> tuple[Image, Path]:
    """The root and the disk with the box installed by install.sh, built if not cached."""
    return installed_box()


@pytest.fixture(scope="session")
def appliance(
    installed: tuple[Image, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Appliance]:
    vm = new_vm(installed, tmp_path_factory.mktemp("appliance"))
    yield Appliance(vm, installed_pin())
    vm.cut()
