"""A player's colour follows their name through the log's games (box/colours.py), not
their seat; no two players at one table share a colour."""

from __future__ import annotations

from buzzerbox.box import Box
from buzzerbox.box.colours import ColourBook, colours_of
from buzzerbox.fixtures import MakeBox


def named(players: list[str], colours: list[int]) -> dict[str, int]:
    return dict(zip(players, colours, strict=True))


def test_the_first_game_gets_the_seats_colours() -> None:
    assert colours_of([], ["Ann", "Ben", "Cleo"]) == [0, 1, 2]
    assert colours_of([], [f"P{i}" for i in range(12)]) == list(range(12))


def test_the_same_players_in_other_seats_keep_their_colours() -> None:
    first = named(["Ann", "Ben", "Cleo"], colours_of([], ["Ann", "Ben", "Cleo"]))
    again = ["Cleo", "Ann", "Ben"]
    assert named(again, colours_of([["Ann", "Ben", "Cleo"]], again)) == first


def test_a_newcomer_takes_no_regulars_colour() -> None:
    # Ben sits out a game, Dan plays it: Dan takes a colour nobody had, not Ben's
    book = ColourBook()
    regulars = named(["Ann", "Ben", "Cleo"], book.play(["Ann", "Ben", "Cleo"]))
    with_dan = named(["Dan", "Ann", "Cleo"], book.play(["Dan", "Ann", "Cleo"]))
    assert with_dan["Dan"] not in regulars.values()
    everyone = named(["Ben", "Dan", "Cleo", "Ann"], book.table(["Ben", "Dan", "Cleo", "Ann"]))
    assert everyone == {**regulars, "Dan": with_dan["Dan"]}


def test_a_clash_goes_to_who_played_last_and_nobody_shares() -> None:
    # 12 players fill every colour; then 11 of them sit out and 11 newcomers come with
    # Ann: the newcomers reuse the colours, and a later table of old and new mixed
    # never gives one colour twice
    book = ColourBook()
    old = [f"Old{i}" for i in range(12)]
    new = [f"New{i}" for i in range(11)]
    book.play(old)
    book.play(["Old0", *new])
    mixed = old[:6] + new[:6]
    colours = book.table(mixed)
    assert sorted(colours) == sorted(set(colours)) and len(colours) == 12
    assert all(0 <= c < 12 for c in colours)
    # those who played last (the newcomers, and Old0) keep theirs
    latest = named(["Old0", *new], colours_of([old], ["Old0", *new]))
    assert all(named(mixed, colours)[n] == latest[n] for n in ["Old0", *new[:6]])


def test_the_box_says_each_seats_colour_in_its_state(box: Box, make_box: MakeBox) -> None:
    box.new_game({"game": "ligretto", "players": ["Ann", "Ben", "Cleo"]})
    assert box.state()["box"]["colours"] == [0, 1, 2]
    box.rematch()
    assert box.state()["box"]["colours"] == [0, 1, 2]
    box.new_game({"game": "twist", "players": ["Dan", "Cleo", "Ann"]})
    colours = box.state()["box"]["colours"]
    assert colours[1:] == [2, 0] and colours[0] not in (0, 1, 2)
    box.close()
    # the colours are derived from the log: a box started again on it says the same
    assert make_box().state()["box"]["colours"] == colours
