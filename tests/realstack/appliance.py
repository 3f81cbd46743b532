"""The installed box in a VM, as the tests meet it: booted by systemd (its PIN on the
console: it listens by then), its journal, and its pads pressed on the VM's Pi header
(gpio-sim lines: guest/pi-header), each press timed on the VM's CLOCK_MONOTONIC.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.faults.boxproc import Phone, sse_connect, sse_ids

from .vm import Image, Vm, overlay

PLAYERS = ["Ann", "Ben", "Cid", "Dan"]
#: build 1's pad map: each seat's slap pad and its light (hardware/builds/twinit-gpio)
SLAP = {0: 4, 1: 27, 2: 5, 3: 26}
SLAP_LIGHT = {0: 23, 1: 25, 2: 12, 3: 20}
STOP = {0: 17, 1: 22, 2: 6, 3: 19}
DOWN, UP = "pull-down", "pull-up"
BOOT_S = 900.0
"""A boot's wait, generous: 200-350 s to the box's PIN here under load 20 (software
emulation on 2 shared cores), about 70 s unloaded; a boot that takes longer fails."""
PIN_LINE = r"buzzerbox: admin PIN (\d+)"
#: what the box's journal must never show (its logging's levels, Python, systemd)
TROUBLE = re.compile(r"Traceback|^(ERROR|CRITICAL) |cannot be used|Failed with result|core-dump")

PULLS = r"""
import json, os, sys, time
out = []
for gpio, pull, gap_us in json.loads(sys.argv[1]):
    fd = os.open(f"/run/pi-header/sim_gpio{gpio}/pull", os.O_WRONLY)
    t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    os.write(fd, pull.encode())
    t1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    os.close(fd)
    out.append([gpio, pull, t0, t1])
    time.sleep(gap_us / 1e6)  # the plan's spacing of the contacts
print(json.dumps(out))
"""
"""Run in the VM: each step of a plan [gpio, "pull-down" | "pull-up", gap_us] sets
that line's pull (pull-down: the pad's contact to GND, a press), timed before and
after on CLOCK_MONOTONIC, then waits gap_us."""


@dataclass(frozen=True)
class Pull:
    """One contact change made in the VM: the line, and the µs it happened between."""

    gpio: int
    pull: str
    after_us: int
    before_us: int


class Timeline:
    """The box's times of one run of it: the VM's CLOCK_MONOTONIC in µs plus an offset
    the box fixed as it started (box/core.py: a box restarted resumes its timeline
    after its log's last time, which after a cut and a reboot is ahead of the new
    boot's clock). The offset is learned from the first press of the run, to within
    that press's window, and every later press must fit the same offset: so each
    press is stamped at its own contact change, in µs of the kernel's clock."""

    def __init__(self) -> None:
        self.offset: tuple[int, int] | None = None  # its lowest and highest possible value

    def fits(self, pull: Pull, t_us: int) -> bool:
        """Whether `t_us` (a press as the box logged it) is `pull`'s change, on the
        offset of the presses before it."""
        low, high = t_us - pull.before_us, t_us - pull.after_us
        if self.offset is not None:
            low, high = max(low, self.offset[0]), min(high, self.offset[1])
        if low > high:
            return False
        self.offset = (low, high)
        return True


def new_vm(installed: tuple[Image, Path], folder: Path) -> Vm:
    """A VM (not booted) on a copy of the installed box's disk, its files in `folder`."""
    image, disk = installed
    folder.mkdir(parents=True, exist_ok=True)
    return Vm(image, overlay(disk, folder / "disk.qcow2"), log=folder / "console.log")


def boot_box(vm: Vm) -> str:
    """Boot, wait for the box to print its PIN (it listens by then); the PIN."""
    vm.boot(BOOT_S)
    return vm.wait_console(PIN_LINE, BOOT_S).group(1)


def journal_trouble(vm: Vm) -> list[str]:
    """The lines of this boot's journal of the box that tell of trouble."""
    out = vm.ssh("journalctl -u buzzerbox -b 0 -o cat --no-pager").stdout
    return [line for line in out.splitlines() if TROUBLE.search(line)]


def pull_script(plan: list[tuple[int, str, int]]) -> str:
    """The shell line that runs `plan` in the VM (its output: pulls())."""
    return f"python3 -c {shell_quote(PULLS)} {shell_quote(json.dumps(plan))}"


def shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def parse_pulls(output: str) -> list[Pull]:
    """pull_script's output (its last line) as the changes it made, in µs."""
    steps = json.loads(output.strip().splitlines()[-1])
    # a kernel stamp taken between t0 and t1 (ns) is, in whole µs, within these
    return [Pull(gpio, pull, t0 // 1000, -(-t1 // 1000)) for gpio, pull, t0, t1 in steps]


def pulls(vm: Vm, plan: list[tuple[int, str, int]]) -> list[Pull]:
    """Run `plan` in the VM now."""
    return parse_pulls(vm.ssh(pull_script(plan)).stdout)


class Table:
    """The admin's phone and a phone's live stream on the booted box."""

    def __init__(self, vm: Vm, pin: str, timeline: Timeline) -> None:
        self.vm = vm
        self.timeline = timeline
        self.phone = Phone(vm.http_port, timeout=60).log_in(pin)
        self.sock = sse_connect(vm.http_port, timeout=60)
        self.stream = sse_ids(self.sock)

    def seen(self, seq: int) -> None:
        """Wait for the live stream to bring `seq` (what every phone sees)."""
        for got in self.stream:
            if got >= seq:
                return
        raise ConnectionError(f"the live stream ended before seq {seq}")

    def new_round(self) -> int:
        """A new Twin It! game and its first round, past the countdown; its seq."""
        self.phone.post("/api/game", {"game": "twinit", "players": PLAYERS})
        seq = int(self.phone.post("/api/event", {"type": "round"})["box"]["seq"])
        self.seen(seq + 1)  # `go`
        return seq + 1

    def state(self) -> dict[str, Any]:
        return self.phone.state()

    def close(self) -> None:
        self.phone.close()
        self.sock.close()
