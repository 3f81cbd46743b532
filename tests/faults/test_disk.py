"""The log's disk full or read-only under a running `buzzerbox serve`: every table entry
and press is refused with a 503 the phone can show, nothing is acknowledged that is not
on disk, the state does not move, and the box takes entries again once the disk is back.

Disk full: the process's file size limit (RLIMIT_FSIZE, set from outside with prlimit)
makes every write of the log fail, as a full card does. Read-only: the log's files get
the immutable flag (chattr +i), so even root cannot write them: it needs root and a
filesystem with that flag (ext4, xfs, btrfs); elsewhere that case is skipped.
"""

from __future__ import annotations

import contextlib
import resource
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .boxproc import Phone, ServedBox, game_of, start_box, write_config

PLAYERS = ["Ann", "Ben", "Cem"]
LOG = "buzzerbox.db"


def disk_full(served: ServedBox) -> Callable[[bool], None]:
    def full(on: bool) -> None:
        limit = 1 if on else resource.RLIM_INFINITY
        resource.prlimit(served.pid, resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    return full


@contextlib.contextmanager
def read_only(served: ServedBox) -> Iterator[Callable[[bool], None]]:
    files = [served.data / LOG, served.data / f"{LOG}-wal"]  # not -shm: it is mapped

    def flag(on: bool) -> None:
        done = subprocess.run(
            ["chattr", "+i" if on else "-i", *map(str, files)], capture_output=True, text=True
        )
        if done.returncode and on:
            flag(False)
            pytest.skip(f"no immutable flag here (root, ext4/xfs/btrfs): {done.stderr.strip()}")

    try:
        yield flag
    finally:
        flag(False)


@pytest.fixture
def box(data: Path, tidy: list[Any]) -> ServedBox:
    served = start_box(data, config=write_config(data.parent, "countdown_s = 0.3\n"))
    tidy.append(served)
    return served


@pytest.fixture
def admin(box: ServedBox, tidy: list[Any]) -> Phone:
    phone = Phone(box.port).log_in()
    tidy.append(phone)
    phone.post("/api/game", {"game": "twist", "players": PLAYERS})
    phone.post("/api/event", {"type": "round"})
    phone.poll_state(lambda s: s["phase"] == "playing")
    phone.post("/api/pads/press", {"seat": 0, "pad": "pile", "pile": 2})
    return phone


def refused_while_broken(admin: Phone) -> list[dict[str, Any]]:
    """Every kind of change the table makes, while the log cannot be written: each is
    refused with 503 and the reason, and the state stays as it was."""
    before = admin.state()
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("/api/pads/press", {"seat": 1, "pad": "pile", "pile": 3}),
        ("/api/pads/release", {"seat": 0, "pad": "pile", "pile": 2}),
        ("/api/event", {"type": "caller", "seat": 1}),
        ("/api/game", {"game": "kids", "players": PLAYERS}),
    ]
    answers = []
    for path, body in attempts:
        status, answer = admin.call("POST", path, body)
        assert status == 503, (path, status, answer)
        assert "cannot be written" in answer["error"] and "bug" not in answer["error"]
        answers.append(answer)
    after = admin.state()
    assert game_of(after) == game_of(before)
    assert after["box"]["seq"] == before["box"]["seq"]
    return answers


def back_and_nothing_lost(box: ServedBox, admin: Phone, tidy: list[Any]) -> None:
    """The disk is back: entries are taken again; after kill -9 every one is there and
    none of the refused ones."""
    admin.post("/api/event", {"type": "caller", "seat": 1})
    last = admin.post("/api/event", {"type": "left", "counts": {"Ann": 39, "Ben": 0, "Cem": 5}})
    box.kill()
    again = start_box(box.data)
    tidy.append(again)
    phone = Phone(again.port)
    tidy.append(phone)
    state = phone.state()
    assert game_of(state) == game_of(last)
    assert state["players"][0]["laid"] == 1  # the press before; not the refused one
    assert state["players"][1]["laid"] == 0
    assert state["game"] == "twist"  # the refused new game is not there


def test_a_full_disk_refuses_every_entry_and_loses_nothing(
    box: ServedBox, admin: Phone, tidy: list[Any]
) -> None:
    full = disk_full(box)
    full(True)
    refused_while_broken(admin)
    full(False)
    back_and_nothing_lost(box, admin, tidy)


def test_a_read_only_log_refuses_every_entry_and_loses_nothing(
    box: ServedBox, admin: Phone, tidy: list[Any]
) -> None:
    with read_only(box) as flag:
        flag(True)
        refused_while_broken(admin)
        flag(False)
    back_and_nothing_lost(box, admin, tidy)


def test_a_start_signal_refused_by_a_full_disk_starts_the_round_once_it_is_back(
    box: ServedBox, admin: Phone
) -> None:
    admin.post("/api/event", {"type": "caller", "seat": 0})
    admin.post("/api/event", {"type": "left", "counts": {"Ann": 0, "Ben": 3, "Cem": 5}})
    full = disk_full(box)
    admin.post("/api/event", {"type": "round"})  # the countdown runs: 0.3 s
    full(True)
    box.wait_log("start signal was refused")
    full(False)
    state = admin.poll_state(lambda s: s["phase"] != "countdown", timeout=3)
    assert state["phase"] == "playing"
