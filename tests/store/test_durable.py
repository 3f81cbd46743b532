"""Durable files: every file kept whole is renamed into place and then its folder is
fsynced (else a power cut may bring back the old file), and sessions.db commits
through a synced WAL (a logout acknowledged is a logout after a cut)."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from buzzerbox.datadir import admin_pin, secret_key
from buzzerbox.durable import write_atomic
from buzzerbox.hub.leaderboard import Leaderboard
from buzzerbox.hub.record import save
from buzzerbox.server.sessions import Sessions


@pytest.fixture
def syscalls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """What reaches the disk, in order: ("fsync", "file"|"dir") and ("replace", name).
    The real calls run; they are only recorded."""
    calls: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        kind = "dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"
        calls.append(("fsync", kind))
        real_fsync(fd)

    def replace(src: str | Path, dst: str | Path) -> None:
        real_replace(src, dst)
        calls.append(("replace", Path(dst).name))

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    return calls


def durably_renamed(calls: list[tuple[str, str]], name: str) -> bool:
    """The file was fsynced, renamed to `name`, and then its folder fsynced."""
    where = calls.index(("replace", name))
    return ("fsync", "file") in calls[:where] and ("fsync", "dir") in calls[where + 1 :]


WRITERS: dict[str, Callable[[Path], object]] = {
    "admin_pin": lambda d: admin_pin(d, "1234", str),
    "secret_key": lambda d: secret_key(d),
    "hub.json": lambda d: save(Leaderboard(), d / "hub.json"),
    "x.bin": lambda d: write_atomic(d / "x.bin", b"x"),
}


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_every_kept_file_is_renamed_then_its_folder_synced(
    name: str, tmp_path: Path, syscalls: list[tuple[str, str]]
) -> None:
    WRITERS[name](tmp_path)
    assert durably_renamed(syscalls, name), syscalls
    assert (tmp_path / name).stat().st_mode & 0o077 == 0  # only its owner reads it
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no temporary file left


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "f"
    write_atomic(path, b"old")
    with pytest.raises(TypeError):
        write_atomic(path, "not bytes")  # type: ignore[arg-type]
    assert path.read_bytes() == b"old" and sorted(tmp_path.iterdir()) == [path]


def test_sessions_commit_through_a_synced_wal(tmp_path: Path) -> None:
    sessions = Sessions(tmp_path / "sessions.db")
    sessions.open("tag")
    db = sessions._db
    assert db is not None
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] >= 2  # FULL: synced at each commit
    other = sqlite3.connect(tmp_path / "sessions.db")  # WAL is kept in the file itself
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    other.close()
    sessions.close()
