"""Issue 43, item 3: the phones' seats follow the log across a power cut.

A cut can take back the end of the log (store/behind.py), a new game's line with it,
while phones.json already holds that game's seats; the log then gives the next game
the same id again. A cut between phones.json.new's fsync and its rename leaves the
file as it was before. Together they brought a box back with the seats of a game the
log no longer had, resumed for another game under the same id. The file names its game
by id and by the moment the log started it: only that very game's seats come back.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import sqlite3
from pathlib import Path

from buzzerbox.box import Box
from buzzerbox.box.phones import PhoneSeats
from buzzerbox.store.eventlog import EventLog
from buzzerbox.testing import ManualClock

ANN = "a" * 20
BEN = "b" * 20
PLAYERS = ["Ann", "Ben", "Cem"]
WALL = itertools.count(1_700_000_000.0, 1.0)  # the log's wall clock: a second an event


def started_box(db_path: Path, seats: Path, clock: ManualClock) -> Box:
    return Box(EventLog(db_path, wall_clock=WALL.__next__), clock=clock, phones=PhoneSeats(seats))


def cut_takes_back(db_path: Path, game_id: int) -> None:
    """What a cut before the fsync of game `game_id`'s line leaves: the log without it,
    its seq free again (SQLite's sequence is in the same lost transaction)."""
    with contextlib.closing(sqlite3.connect(db_path)) as db:
        db.execute("DELETE FROM events WHERE game = ?", (game_id,))
        db.execute("DELETE FROM games WHERE id = ?", (game_id,))
        db.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'events'", (game_id - 1,))
        db.commit()


def test_seats_of_a_game_the_log_lost_never_come_back_for_the_game_that_reuses_its_id(
    db_path: Path, tmp_path: Path, clock: ManualClock
) -> None:
    seats = tmp_path / "phones.json"
    box = started_box(db_path, seats, clock)
    box.new_game({"game": "ligretto", "players": PLAYERS, "target": 99})
    box.change_phones(lambda phones, _: phones.switch(True))
    box.change_phones(lambda phones, n: phones.take(ANN, 0, n))
    lost = box.new_game({"game": "kids", "players": PLAYERS})["box"]["game_id"]
    assert lost is not None
    box.change_phones(lambda phones, n: phones.take(BEN, 2, n))
    stale = seats.read_bytes()  # the lost game's seats: Ben in seat 3
    box.close()
    cut_takes_back(db_path, lost)

    box = started_box(db_path, seats, clock)  # back on the game before: its seats are free
    assert box.state()["box"]["phones"] == {"on": True, "taken": []}
    assert json.loads(seats.read_bytes())["game"] != lost  # the file follows the log
    again = box.new_game({"game": "twist", "players": PLAYERS})["box"]["game_id"]
    assert again == lost  # the log gave the next game the lost game's id
    box.close()
    seats.write_bytes(stale)  # a cut between phones.json.new's fsync and its rename

    box = started_box(db_path, seats, clock)
    assert box.state()["box"]["game_id"] == lost
    assert box.state()["box"]["phones"] == {"on": True, "taken": []}  # not the lost game's
    box.close()


def test_the_same_game_after_a_cut_keeps_its_seats(
    db_path: Path, tmp_path: Path, clock: ManualClock
) -> None:
    seats = tmp_path / "phones.json"
    box = started_box(db_path, seats, clock)
    box.new_game({"game": "kids", "players": PLAYERS})
    box.change_phones(lambda phones, _: phones.switch(True))
    box.change_phones(lambda phones, n: phones.take(BEN, 1, n))
    box.close()
    assert "started" in json.loads(seats.read_bytes())
    box = started_box(db_path, seats, clock)
    assert box.phone_seat(BEN) == 1
    box.close()


def test_a_file_of_an_earlier_box_names_its_game_by_id_only(
    db_path: Path, tmp_path: Path, clock: ManualClock
) -> None:
    box = started_box(db_path, tmp_path / "first.json", clock)
    game_id = box.new_game({"game": "kids", "players": PLAYERS})["box"]["game_id"]
    box.close()
    seats = tmp_path / "phones.json"
    seats.write_text(json.dumps({"version": 1, "game": game_id, "on": True, "seats": {ANN: 1}}))
    box = started_box(db_path, seats, clock)
    assert box.phone_seat(ANN) == 1
    box.close()
