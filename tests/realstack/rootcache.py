"""What the tests' Debian roots share, built once into a cache of their own: this tier's
Trixie root and installed box (images.py, aarch64.py) and the schematic tests' KiCad
root (tests/hardware/kicadroot.py, which imports this module as `realstack.rootcache`).

`as_root(command)` runs a command as root (sudo -n when the tests are not root: it
fails rather than asks); `locked(cache)` holds the cache folder's lock while a build
runs in it, so that two test runs at once build a root once.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


def as_root(command: list[str]) -> list[str]:
    return command if os.geteuid() == 0 else ["sudo", "-n", *command]


@contextlib.contextmanager
def locked(cache: Path) -> Iterator[None]:
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
