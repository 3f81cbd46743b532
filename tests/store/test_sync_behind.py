"""A log synced behind its commits (store/behind.py): an append waits for its fsync up
to the reveal wait, then returns marked unsaved; one fsync covers every commit made
while the one before it ran; what is durable only ever moves up to what was synced.
The fsync is the real one, held back by the test where a stall is wanted."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from buzzerbox.store.eventlog import EventLog, Progress

PLAYING = Progress("playing")


class Disk:
    """The real fsync, with a switch to stall it and a record of what each covered."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.open.set()
        self.calls = 0
        self.started = threading.Event()
        self.log: EventLog | None = None
        self.covered: list[int] = []  # the log's last seq when each fsync began

    def __call__(self, fd: int) -> None:
        self.calls += 1
        if self.log is not None:
            self.covered.append(self.log.last_seq())
        self.started.set()
        assert self.open.wait(10), "the test never let the fsync return"
        os.fsync(fd)


@pytest.fixture
def disk() -> Disk:
    return Disk()


@pytest.fixture
def behind(tmp_path: Path, disk: Disk) -> EventLog:
    # long enough for this machine's fsync under any load; a stall is the test's own
    log = EventLog(tmp_path / "log.db", sync="behind", fsync=disk, reveal_wait_s=10)
    disk.log = log
    return log


def game(log: EventLog) -> int:
    return log.new_game({"type": "game", "game": "twist", "players": ["A", "B"]}, PLAYING)


def until(check: Callable[[], bool]) -> None:
    done = threading.Event()
    for _ in range(500):
        if check():
            return
        done.wait(0.01)
    raise AssertionError("never happened")


def test_an_append_returns_once_its_fsync_did(behind: EventLog, disk: Disk) -> None:
    game_id = game(behind)
    seq = behind.append(game_id, {"type": "round"}, PLAYING)
    assert behind.durable_seq == seq and behind.unsaved is None
    assert disk.calls >= 2  # the game line's and the round's
    behind.close()


def test_a_stalled_fsync_lets_the_append_return_unsaved_then_saved(
    behind: EventLog, disk: Disk
) -> None:
    told: list[int | None] = []
    behind.when_saved.append(lambda: told.append(behind.unsaved))
    game_id = game(behind)
    behind.reveal_wait_s = 0.05
    disk.open.clear()  # the card stalls
    disk.started.clear()
    first = behind.append(game_id, {"type": "round"}, PLAYING)  # back after the reveal wait
    assert disk.started.is_set()
    assert behind.durable_seq < first and behind.unsaved == first
    second = behind.append(game_id, {"type": "round"}, PLAYING)
    assert behind.unsaved == first  # the first one unsaved, still
    assert told == [first]
    calls = disk.calls
    disk.open.set()  # the stall ends: this fsync covered `first`, the next covers `second`
    until(lambda: behind.durable_seq == second)
    until(lambda: behind.unsaved is None)
    assert disk.calls == calls + 1  # one more fsync for the commit made meanwhile
    until(lambda: told[-1] is None)
    behind.close()


def test_durable_never_passes_what_an_fsync_began_after(behind: EventLog, disk: Disk) -> None:
    game_id = game(behind)
    behind.reveal_wait_s = 0.05
    disk.open.clear()
    disk.started.clear()
    seqs = [behind.append(game_id, {"type": "round"}, PLAYING) for _ in range(3)]
    disk.started.wait(5)
    assert behind.durable_seq < seqs[0]
    disk.open.set()
    until(lambda: behind.durable_seq == seqs[-1])
    assert disk.covered == sorted(disk.covered)
    assert max(disk.covered) == seqs[-1]
    behind.close()


def test_a_failing_fsync_keeps_it_unsaved_and_the_log_writing(tmp_path: Path) -> None:
    failing = {"on": False}

    def fsync(fd: int) -> None:
        if failing["on"]:
            raise OSError(5, "Input/output error")
        os.fsync(fd)

    log = EventLog(tmp_path / "log.db", sync="behind", fsync=fsync, reveal_wait_s=10)
    game_id = game(log)
    log.reveal_wait_s = 0.02
    failing["on"] = True
    seq = log.append(game_id, {"type": "round"}, PLAYING)
    assert log.unsaved == seq and log.durable_seq < seq
    more = log.append(game_id, {"type": "round"}, PLAYING)  # still written
    failing["on"] = False
    log.append(game_id, {"type": "round"}, PLAYING)  # the next commit tries again
    until(lambda: log.durable_seq > more)
    until(lambda: log.unsaved is None)
    log.close()


def test_commit_mode_is_as_before(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.db")
    seq = log.append(game(log), {"type": "round"}, PLAYING)
    assert log.durable_seq == seq and log.unsaved is None and log.wait_durable(seq, 0)
    assert log.behind is None and log.when_saved == []
    log.close()


def test_synced_behind_survives_a_reopen_whole(behind: EventLog, tmp_path: Path) -> None:
    game_id = game(behind)
    seqs = [behind.append(game_id, {"type": "round"}, PLAYING) for _ in range(5)]
    behind.close()
    db = sqlite3.connect(tmp_path / "log.db")
    try:
        assert [r[0] for r in db.execute("SELECT seq FROM events ORDER BY seq")][-5:] == seqs
    finally:
        db.close()


def test_the_wal_is_synced_by_fdatasync_and_its_folder_by_fsync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SQLite's own sync of a WAL on Linux: the data and its size, no journal commit of
    # the file system when a commit only overwrites the WAL's blocks (behind.py)
    synced: list[tuple[str, str]] = []

    def recorder(name: str, real: Callable[[int], None]) -> Callable[[int], None]:
        def sync(fd: int) -> None:
            synced.append((name, os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))))
            real(fd)

        return sync

    monkeypatch.setattr(os, "fdatasync", recorder("fdatasync", os.fdatasync))
    monkeypatch.setattr(os, "fsync", recorder("fsync", os.fsync))
    log = EventLog(tmp_path / "log.db", sync="behind", reveal_wait_s=10)
    seq = log.append(game(log), {"type": "round"}, PLAYING)
    assert log.durable_seq == seq
    log.close()
    assert ("fdatasync", "log.db-wal") in synced
    assert ("fsync", "log.db-wal") not in synced
    assert ("fsync", tmp_path.name) in synced  # the folder, once
