"""Issue 43, item 1: a power cut in the first moments after a box's very first start.

The first `serve` commits its tables to the WAL; with the log synced behind its
commits, a cut before that WAL reached the disk left an SQLite file in WAL mode with no
table at all, and every later start refused it ("it has no events table"). Such a file
holds no event: the box starts on it as a new log and says so, and the tables reach
the disk (the database file itself, not only the WAL) before the box is ready.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from buzzerbox.store.check import check_log
from buzzerbox.store.eventlog import EventLog, StoreError

from .boxproc import Phone
from .served import start


def as_the_cut_leaves_it(path: Path) -> Path:
    """An SQLite database in WAL mode with no table: the first start's file after the cut."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    return path


def tables(path: Path) -> set[str]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def test_serve_starts_on_a_log_with_no_table_and_says_so(data: Path, tidy: list[Any]) -> None:
    as_the_cut_leaves_it(data / "buzzerbox.db")
    box = start(data, "--pin", "24681357")
    tidy.append(box)
    said = [line for line in box.tail if "holds no table" in line]
    assert said and "no event" in said[0], list(box.tail)
    assert any("started as a new, empty log" in line for line in box.tail), list(box.tail)
    phone = Phone(box.port)
    tidy.append(phone)
    status, games = phone.call("GET", "/api/games")
    assert (status, games) == (200, [])
    assert "events" in tables(data / "buzzerbox.db")


def test_the_doctor_names_it_and_makes_it_a_new_log(tmp_path: Path) -> None:
    path = as_the_cut_leaves_it(tmp_path / "buzzerbox.db")
    found = check_log(path)
    assert found.fatal is None
    assert found.problems == [
        "buzzerbox.db: it holds no table at all (the box's first start was cut before its"
        " tables reached the disk): it holds no event"
    ]
    assert found.repaired == ["buzzerbox.db: started as a new, empty log"]
    assert check_log(path).is_healthy  # the second look finds a healthy, empty log


def test_a_look_only_check_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = as_the_cut_leaves_it(tmp_path / "buzzerbox.db")
    found = check_log(path, repair=False)
    assert found.fatal is None and found.problems and not found.repaired
    assert tables(path) == set()


def test_tables_of_another_program_are_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "buzzerbox.db"
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE recipes (name TEXT)")
    found = check_log(path)
    assert found.fatal == "it has no events table: it is not a buzzerbox log"
    assert tables(path) == {"recipes"}  # nothing of ours was written into it


@pytest.mark.parametrize("sync", ["commit", "behind"])
def test_the_tables_are_in_the_database_file_when_the_log_opens(tmp_path: Path, sync: Any) -> None:
    """A cut that drops the whole WAL after the log opened still leaves its tables: they
    were checkpointed into the database file, which is what is copied here alone."""
    log = EventLog(tmp_path / "buzzerbox.db", sync=sync)
    try:
        alone = tmp_path / "copy" / "buzzerbox.db"
        alone.parent.mkdir()
        shutil.copyfile(log.path, alone)  # the database file without its -wal
        assert {"events", "games", "enrolments"} <= tables(alone)
        assert check_log(alone).is_healthy
    finally:
        log.close()


def test_a_log_in_a_folder_that_is_gone_is_refused_in_words(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cannot be opened"):
        EventLog(tmp_path / "gone" / "buzzerbox.db")
