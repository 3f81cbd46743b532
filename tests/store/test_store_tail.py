"""Reading the log from outside the box: the tail from a seq on, and a reader's cursor."""

from __future__ import annotations

from pathlib import Path

import pytest
from buzzerbox.store import StoredEvent
from buzzerbox.store.eventlog import EventLog, Progress, StoreError
from buzzerbox.store.tail import Cursor, LogTail

GAME = {"type": "game", "game": "kids", "players": ["Ann", "Ben"]}


def test_the_tail_reads_what_the_box_appends(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.db", wall_clock=lambda: 1_700_000_000.0)
    first = log.new_game(GAME, Progress("lobby"))
    second = log.new_game(GAME, Progress("lobby"))
    tail = LogTail(log.path)
    seq = log.append(second, {"type": "round"}, Progress("countdown"))  # after the tail opened
    assert [e.seq for e in tail.after(0, 2)] == [1, 2]
    assert tail.after(second, 10) == [StoredEvent(seq, second, 1_700_000_000.0, {"type": "round"})]
    assert tail.last_game() == second != first
    assert [e.seq for e in tail.game_upto(seq)] == [second, seq]
    assert [e.seq for e in tail.game_upto(first)] == [first]
    assert tail.game_upto(99) == []
    assert tail.last_seq() == seq
    assert tail.after(0, 10) == log.events(first) + log.events(second)  # one StoredEvent type
    tail.close()
    log.close()


def test_a_tail_of_a_log_not_yet_made_is_empty(tmp_path: Path) -> None:
    tail = LogTail(tmp_path / "log.db")
    assert (tail.after(0, 10), tail.last_seq(), tail.last_game()) == ([], 0, None)
    assert tail.game_upto(1) == []
    tail.close()


def test_a_tail_of_a_file_that_is_no_log_says_so(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("shopping list\n" * 100)
    tail = LogTail(path)
    with pytest.raises(StoreError, match=r"notes\.txt cannot be read"):
        tail.after(0, 10)
    tail.close()


def test_the_cursor_keeps_each_readers_place(tmp_path: Path) -> None:
    cursor = Cursor(tmp_path / "mqtt.db")
    assert cursor.get("t1") is None
    cursor.set("t1", 7)
    cursor.set("t1", 9)
    cursor.set("t2", 3)
    cursor.close()
    again = Cursor(tmp_path / "mqtt.db")
    assert (again.get("t1"), again.get("t2")) == (9, 3)
    again.close()


def test_a_cursor_file_that_is_no_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mqtt.db"
    path.write_text("shopping list\n" * 100)
    with pytest.raises(StoreError, match=r"the cursor .*mqtt\.db cannot be opened"):
        Cursor(path)
