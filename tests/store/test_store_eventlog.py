"""The SQLite log: durable appends, games, summaries, reopening, refusing a foreign file."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from buzzerbox.i18n import say
from buzzerbox.store.eventlog import EventLog, Progress, StoreError

GAME = {"type": "game", "game": "kids", "players": ["Ann", "Ben"]}


@pytest.fixture
def log(tmp_path: Path) -> Iterator[EventLog]:
    log = EventLog(tmp_path / "log.db", wall_clock=lambda: 1_700_000_000.0)
    yield log
    log.close()


def test_the_log_is_wal_with_full_sync(log: EventLog) -> None:
    with contextlib.closing(sqlite3.connect(log.path)) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # synchronous is per connection: the log's own one says FULL (2)
    assert log._db.execute("PRAGMA synchronous").fetchone()[0] == 2


def test_a_game_is_numbered_by_the_seq_of_its_game_line(log: EventLog) -> None:
    first = log.new_game(GAME, Progress("lobby"))
    seq = log.append(first, {"type": "round"}, Progress("countdown"))
    second = log.new_game(GAME, Progress("lobby"))
    assert (first, seq, second) == (1, 2, 3)
    assert [e.body for e in log.events(first)] == [GAME, {"type": "round"}]
    assert [e.seq for e in log.events(second)] == [3]
    assert log.last_game_id() == second
    assert log.last_seq() == 3


def test_the_summary_follows_the_game(log: EventLog) -> None:
    game = log.new_game(GAME, Progress("lobby"))
    log.append(game, {"type": "finish"}, Progress("finished", ["Ben"]))
    summary = log.game(game)
    assert summary is not None
    assert summary.to_json() == {
        "id": game,
        "game": "kids",
        "players": ["Ann", "Ben"],
        "started": 1_700_000_000.0,
        "updated": 1_700_000_000.0,
        "phase": "finished",
        "finished": True,
        "winners": ["Ben"],
    }
    assert [g.id for g in log.games()] == [game]
    assert log.game(99) is None


def test_an_import_is_one_transaction(log: EventLog) -> None:
    game, last = log.new_game_with(GAME, [{"type": "round"}, {"type": "finish"}], Progress("x"))
    assert (game, last) == (1, 3)
    assert len(log.events(game)) == 3


def test_what_was_appended_is_there_after_reopening(tmp_path: Path) -> None:
    path = tmp_path / "log.db"
    log = EventLog(path)
    game = log.new_game(GAME, Progress("lobby"))
    log.append(game, {"type": "round"}, Progress("countdown"))
    log.close()  # no checkpoint needed: the WAL is read back
    again = EventLog(path)
    assert [e.body["type"] for e in again.events(game)] == ["game", "round"]
    assert again.new_game(GAME, Progress("lobby")) == 3  # seqs are never reused
    again.close()


def test_a_failed_write_leaves_nothing_behind(log: EventLog) -> None:
    game = log.new_game(GAME, Progress("lobby"))
    with pytest.raises(StoreError, match="cannot be written"):
        log.append(game, {"type": "round", "bad": float("nan")}, Progress(object()))  # type: ignore[arg-type]
    assert [e.seq for e in log.events(game)] == [game]


def test_a_file_that_is_no_log_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("shopping list\n" * 100)
    with pytest.raises(StoreError, match="cannot be opened"):
        EventLog(path)


def test_enrolments_are_kept_per_game_apart_from_the_events(tmp_path: Path) -> None:
    path = tmp_path / "log.db"
    log = EventLog(path)
    first = log.new_game(GAME, Progress("lobby"))
    second = log.new_game(GAME, Progress("lobby"))
    log.enrol(first, "north", 1)
    log.enrol(first, "south", 0)
    log.enrol(first, "north", 0)  # enrolled again: the latest wins
    log.enrol(second, "east", 1)
    assert log.enrolments(first) == {"north": 0, "south": 0}
    assert [e.body["type"] for e in log.events(first)] == ["game"]  # the rules never see them
    assert log.last_seq() == second
    log.close()
    again = EventLog(path)  # an existing log gets the table too, and keeps what it holds
    assert again.enrolments(second) == {"east": 1}
    again.clear_enrolments(first)
    assert again.enrolments(first) == {}
    assert again.enrolments(second) == {"east": 1}
    again.close()


def test_a_log_that_cannot_be_opened_says_so_in_the_readers_language(tmp_path: Path) -> None:
    """The store's refusal carries its words: the web says them in the phone's language
    (the reason in parentheses is SQLite's own, as it says it)."""
    with pytest.raises(StoreError, match="cannot be opened") as failed:
        EventLog(tmp_path)  # a folder is no database file
    assert failed.value.words is not None
    said = say(failed.value.words, "de")
    assert said.startswith(f"Das Protokoll {tmp_path} kann nicht geöffnet werden: "), said
