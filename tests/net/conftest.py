"""Fixtures of the namespaced network tier: the namespaces (netns.py), a real `buzzerbox
box` (serve, advertised by mDNS) in the box's, and Debian's Chromium in the phones'."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, sync_playwright

from . import netns
from .netns import Net

CHROMIUM = os.environ.get("BUZZERBOX_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]
PORT = 8000


@dataclass
class Console:
    """A box running in a namespace, and every line it printed."""

    process: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)
    reader: threading.Thread = field(init=False)

    def __post_init__(self) -> None:
        self.reader = threading.Thread(target=self.read, daemon=True)

    def read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def wait_for(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        """The first line that matches `pattern`, once it is printed."""
        found: list[re.Match[str]] = []

        def seen() -> bool:
            found[:] = [m for line in self.lines if (m := re.search(pattern, line))][:1]
            return bool(found) or self.process.poll() is not None

        with self.changed:
            self.changed.wait_for(seen, timeout)
        if not found:
            pytest.fail(f"the box never printed {pattern!r}:\n{self.text()}")
        return found[0]

    def text(self) -> str:
        return "\n".join(self.lines)


def start_box(ns: str, command: list[str], data: Path, config: str) -> Console:
    (data / "box.toml").write_text(config)
    options = ["--data", str(data), "--config", str(data / "box.toml")]
    process = subprocess.Popen(
        netns.in_ns(ns, sys.executable, "-m", "buzzerbox", *command, *options),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    console = Console(process)
    console.reader.start()
    return console


def stop(console: Console) -> None:
    console.process.terminate()
    try:
        console.process.wait(15)
    except subprocess.TimeoutExpired:
        console.process.kill()
        console.process.wait(10)
    console.reader.join(10)
    if console.process.stdout is not None:
        console.process.stdout.close()


@pytest.fixture(scope="module")
def net() -> Iterator[Net]:
    made = netns.make()
    try:
        yield made
    finally:
        netns.remove(made)


@pytest.fixture(scope="module")
def box(net: Net, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    """The appliance's process, `buzzerbox box`, on all addresses of the box's namespace."""
    data = tmp_path_factory.mktemp("netbox")
    console = start_box(
        net.box, ["box", "--port", str(PORT)], data, "countdown_s = 1.0\nphone_offline_s = 4.0\n"
    )
    try:
        console.wait_for(r"admin PIN (\S+)")
        yield console
    finally:
        stop(console)


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def phones_browser(
    net: Net, playwright: Playwright, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Browser]:
    """Chromium in the phones' namespace: it reaches the box only over the veth."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: bash tests/check installs it")
    launcher = netns.chromium_in(net.phones, CHROMIUM, tmp_path_factory.mktemp("launch"))
    browser = playwright.chromium.launch(
        executable_path=launcher, headless=True, args=CHROMIUM_ARGS
    )
    yield browser
    browser.close()
