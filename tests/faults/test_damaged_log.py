"""Issue 15, item 8: a damaged log. `buzzerbox serve` checks it at start and repairs
what the events can rebuild (store/check.py), saying what it found, by file and row;
`buzzerbox doctor --log DIR` does the same on its own; a damaged row met while the box
runs is refused with a message that names it, never a 500."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from buzzerbox.box import Box
from buzzerbox.box.checks import table_entry
from buzzerbox.store.eventlog import EventLog

from .boxproc import Phone
from .served import start

PIN = "24681357"
PLAYERS = ["Ann", "Ben", "Cem"]


def two_games(data: Path) -> Path:
    """A log with a finished Kids game (id 1: seq 1, 2) and a Ligretto game after it
    (id 3: its game line, then its first round, seq 4)."""
    path = data / "buzzerbox.db"
    box = Box(EventLog(path))
    box.new_game({"game": "kids", "players": PLAYERS})
    box.submit(table_entry({"type": "finish"}))
    box.new_game({"game": "ligretto", "players": PLAYERS, "target": 99})
    box.submit(table_entry({"type": "round"}))
    box.close()
    return path


def damage(path: Path, *sql: str) -> None:
    db = sqlite3.connect(path)
    for statement in sql:
        db.execute(statement)
    db.commit()
    db.close()


def doctor(data: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "buzzerbox", "doctor", "--log", str(data)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_list_of_games_dropped_is_rebuilt_at_start(data: Path, tidy: list[Any]) -> None:
    damage(two_games(data), "DROP TABLE games")
    box = start(data, "--pin", PIN)
    tidy.append(box)
    assert any("table games) is missing" in line for line in box.tail), list(box.tail)
    phone = Phone(box.port)
    tidy.append(phone)
    status, games = phone.call("GET", "/api/games")
    assert status == 200 and [g["game"] for g in games] == ["ligretto", "kids"], games
    assert games[1]["finished"] is True


def test_the_last_games_events_deleted_start_the_game_before(data: Path, tidy: list[Any]) -> None:
    path = two_games(data)
    damage(path, "DELETE FROM events WHERE game = (SELECT MAX(game) FROM events)")
    box = start(data, "--pin", PIN)
    tidy.append(box)
    assert any("listed without events" in line for line in box.tail), list(box.tail)
    phone = Phone(box.port)
    tidy.append(phone)
    assert phone.state()["game"] == "kids"


def test_a_body_that_is_not_json_is_named_and_set_aside_by_the_doctor(data: Path) -> None:
    path = two_games(data)
    damage(path, "UPDATE events SET body = 'not json' WHERE seq = 4")
    found = doctor(data)
    assert found.returncode == 0, found.stderr
    assert "buzzerbox.db row seq 4 (game 3): the event's body is not JSON" in found.stdout
    assert "moved 1 unreadable events to the table damaged" in found.stdout
    again = doctor(data)
    assert "healthy" in again.stdout and "problem" not in again.stdout, again.stdout
    with contextlib.closing(sqlite3.connect(path)) as db:
        kept = db.execute("SELECT seq, body FROM damaged").fetchall()
    assert kept == [(4, "not json")]  # set aside, not deleted


def test_a_bad_body_met_while_serving_is_refused_by_name(data: Path, tidy: list[Any]) -> None:
    path = two_games(data)
    box = start(data, "--pin", PIN)
    tidy.append(box)
    damage(path, "UPDATE events SET body = '{oops' WHERE seq = 2")  # the old game's finish
    phone = Phone(box.port)
    tidy.append(phone)
    status, answer = phone.call("GET", "/api/export/log?game=1")
    assert status == 503, (status, answer)
    assert "buzzerbox.db: the event seq 2 (game 1) cannot be read" in answer["error"]
    checked = doctor(data)  # the box holds the folder: the doctor only looks
    assert "checking only" in checked.stdout and "row seq 2 (game 1)" in checked.stdout
