"""The real `buzzerbox serve` the browser tests talk to: started on a free loopback port
with a data folder of its own, its address and admin PIN read from what it prints, and
stopped after the module (`served`, or a module's own: `served_with`).

The pages, the phones and the steps of every game are browser_support.py's; the fixture
`served` is bound in tests/web/conftest.py.
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

PIN_LINE = re.compile(r"admin PIN (\S+)")
OPEN_LINE = re.compile(r"open (http://127\.0\.0\.1:\d+/)")


@dataclass
class Served:
    """A running `buzzerbox serve`: its address, its admin PIN and what it printed."""

    process: subprocess.Popen[str]
    url: str = ""
    pin: str = ""
    lines: collections.deque[str] = field(default_factory=lambda: collections.deque(maxlen=200))

    def output(self) -> str:
        return "\n".join(self.lines)


def _read(served: Served, ready: threading.Event) -> None:
    """Drain the server's output (so it never blocks), noting its address and PIN."""
    assert served.process.stdout is not None
    for line in served.process.stdout:
        served.lines.append(line.rstrip())
        if not served.pin and (m := PIN_LINE.search(line)):
            served.pin = m.group(1)
        if not served.url and (m := OPEN_LINE.search(line)):
            served.url = m.group(1).rstrip("/")
        if served.pin and served.url:
            ready.set()
    ready.set()  # the server ended: the fixture sees what is missing


def serving(data: Path, config: str | None = None) -> Iterator[Served]:
    """`buzzerbox serve` on a free loopback port with the data folder `data` (and a
    config file with the TOML `config`), until the generator is closed."""
    command = [sys.executable, "-m", "buzzerbox", "serve", "--host", "127.0.0.1"]
    command += ["--port", "0", "--data", str(data)]
    if config is not None:
        (data / "serve.toml").write_text(config)
        command += ["--config", str(data / "serve.toml")]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    served = Served(process)
    ready = threading.Event()
    reader = threading.Thread(target=_read, args=(served, ready), daemon=True)
    reader.start()
    try:
        if not ready.wait(30) or not (served.url and served.pin):
            pytest.fail(f"buzzerbox serve gave no address and PIN:\n{served.output()}")
        yield served
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        reader.join(5)
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`buzzerbox serve` with a fresh data folder and the default 3 s countdown."""
    yield from serving(tmp_path_factory.mktemp("box"))


def served_with(folder: str, config: str) -> Callable[..., Iterator[Served]]:
    """A module's own `served` fixture: its box in a data folder named `folder`, with
    the TOML `config` ("countdown_s = 1.0\n"). `served = served_with("games", ...)`"""

    @pytest.fixture(scope="module", name="served")
    def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
        yield from serving(tmp_path_factory.mktemp(folder), config)

    return served
