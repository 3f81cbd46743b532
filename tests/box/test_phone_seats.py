"""The seats phones took, kept in the data folder (phones.json): a restart (a new Box on
the same log and file) keeps each phone's seat and the host's switch; a file that cannot
be read starts the box with every seat free and says why; one that cannot be written
refuses the change and changes nothing. (A real restarted serve: tests/faults.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from buzzerbox.box import Box
from buzzerbox.box.phones import PhoneSeats
from buzzerbox.i18n import say
from buzzerbox.store.eventlog import EventLog, StoreError
from buzzerbox.testing import ManualClock

ANN = "a" * 20
BEN = "b" * 20


def restarted(db_path: Path, seats: Path, clock: ManualClock) -> Box:
    return Box(EventLog(db_path), clock=clock, phones=PhoneSeats(seats))


def test_a_restart_keeps_each_phones_seat_and_the_host_can_still_free_it(
    db_path: Path, tmp_path: Path, clock: ManualClock
) -> None:
    seats = tmp_path / "phones.json"
    box = restarted(db_path, seats, clock)
    box.new_game({"game": "ligretto", "players": ["Ann", "Ben", "Cem"]})
    box.change_phones(lambda phones, _: phones.switch(True))
    box.change_phones(lambda phones, n: phones.take(ANN, 0, n))
    box.change_phones(lambda phones, n: phones.take(BEN, 2, n))
    box.close()  # a power cut: the next box reads the same folder

    box = restarted(db_path, seats, clock)
    assert box.state()["box"]["phones"] == {"on": True, "taken": [0, 2]}
    assert box.phone_seat(BEN) == 2
    box.change_phones(lambda phones, _: phones.free(2))
    box.close()

    box = restarted(db_path, seats, clock)
    assert box.phone_seat(ANN) == 0
    assert box.state()["box"]["phones"]["taken"] == [0]  # freed stays freed
    box.new_game({"game": "kids", "players": ["Ann", "Ben"]})
    box.close()

    box = restarted(db_path, seats, clock)
    assert box.state()["box"]["phones"] == {"on": True, "taken": []}  # a new game: all free
    box.close()


def test_seats_kept_for_another_game_are_not_this_games(
    db_path: Path, tmp_path: Path, clock: ManualClock
) -> None:
    box = Box(EventLog(db_path), clock=clock)
    game_id = box.new_game({"game": "kids", "players": ["Ann", "Ben"]})["box"]["game_id"]
    assert game_id is not None
    box.close()
    seats = tmp_path / "phones.json"
    kept = {"version": 1, "game": game_id + 1, "on": True, "seats": {ANN: 1}}
    seats.write_text(json.dumps(kept))
    box = restarted(db_path, seats, clock)
    assert box.state()["box"]["phones"] == {"on": True, "taken": []}
    box.close()


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (b"\xff\x00{not json", "cannot be read"),
        (b'{"version": 1, "game": 1, "on": true, "seats": {"short": 0}}', "16-128 ASCII"),
        (b'{"version": 1, "game": 1, "on": true, "seats": {"' + b"a" * 20 + b'": -1}}', "seat -1"),
        (b'{"version": 2}', "version 1"),
        (b"[" * 100_000, "cannot be read"),
        (
            json.dumps({"version": 1, "game": 1, "on": True, "seats": {ANN: 0, BEN: 0}}).encode(),
            "two phones",
        ),
    ],
)
def test_a_seat_file_that_cannot_be_read_starts_with_every_seat_free_and_says_why(
    tmp_path: Path, text: bytes, why: str
) -> None:
    path = tmp_path / "phones.json"
    path.write_bytes(text)
    phones = PhoneSeats(path)
    assert phones.problem is not None
    said = phones.problem.english()
    assert why in said and "every seat is free" in said, said
    assert phones.to_json() == {"on": False, "taken": []}
    assert "every seat is free" not in say(phones.problem, "fr")  # said in French
    phones.switch(True)  # and the box goes on: the next change writes a good file
    phones.take(ANN, 1, 3)
    assert PhoneSeats(path).to_json() == {"on": True, "taken": [1]}


def test_a_seat_file_that_cannot_be_written_refuses_the_change(tmp_path: Path) -> None:
    phones = PhoneSeats(tmp_path / "gone" / "phones.json")
    with pytest.raises(StoreError, match=r"cannot be written .*the seats stay as they were") as no:
        phones.switch(True)
    assert no.value.code == "seats-not-written" and no.value.words is not None
    assert say(no.value.words, "de").endswith("die Plätze bleiben, wie sie waren")
    assert phones.to_json() == {"on": False, "taken": []}
