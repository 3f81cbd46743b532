"""The result card draws each player in the colour the box gives their name
(state.box.colours, box/colours.py), not their seat's."""

from __future__ import annotations

from buzzerbox.web.card import COLOURS, result_card


def test_the_result_card_draws_each_player_in_their_colour() -> None:
    state = {
        "game": "ligretto",
        "title": "Ligretto",
        "players": [{"name": "Dan", "total": 30}, {"name": "Ann", "total": 10}],
        "winners": ["Dan"],
        "history": [],
        "box": {"colours": [3, 0]},
    }
    svg = result_card(state)  # type: ignore[arg-type]  # only what the card reads
    assert svg.count(COLOURS[3]) == 2 and svg.count(COLOURS[0]) == 2  # a tint, a bar
    assert COLOURS[1] not in svg  # not the seats' own (0 and 1)
