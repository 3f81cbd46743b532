"""Near ties (issue 41, item 4): a press may carry its timing error (`error_us`, the
repo's reading in game-log.md); two presses no further apart than their errors added up
are too close to call. A stop race that close is the v1.1 tie (no caller registered,
the table names one); a Twin It! claim that close is a tie (the rulebook's split); two
hands on a Twist pile that close are its tie (neither card counts). A
press without `error_us` (a wired pad; every older log) keeps its µs."""

from __future__ import annotations

from typing import Any

import pytest
from buzzerbox.rules import Engine, InvalidEventError
from buzzerbox.rules.eventjson import event_to_dict, parse_event
from buzzerbox.rules.events import PadPressed
from buzzerbox.rules.press import Press
from buzzerbox.rules.statejson import StateJson
from buzzerbox.rules.timing import too_close

PHONE_US = 900  # a phone's touch mapped onto the box's clock: about ±0.9 ms


def press(seat: int, t_us: int, error_us: int | None = None, pad: str = "stop") -> dict[str, Any]:
    line: dict[str, Any] = {"type": "press", "seat": seat, "pad": pad, "t_us": t_us}
    if error_us is not None:
        line["error_us"] = error_us
    return line


def played(game: str, *presses: dict[str, Any]) -> StateJson:
    engine = Engine.from_dict({"type": "game", "game": game, "players": ["Ann", "Chloé"]})
    for line in ({"type": "round"}, {"type": "go", "t_us": 1000}, *presses):
        engine.apply_dict(line)
    return engine.state()


@pytest.mark.parametrize("game", ["ligretto", "twist", "kids"])
def test_two_phones_200_us_apart_timed_to_0_9_ms_are_a_tie_with_no_caller(game: str) -> None:
    state = played(game, press(0, 50_000, PHONE_US), press(1, 50_200, PHONE_US))
    assert state["tie"] is True
    assert state["caller"] is None
    assert [(r["name"], r["lead_us"], r["error_us"]) for r in state["race"]] == [
        ("Ann", 0, PHONE_US),
        ("Chloé", 200, PHONE_US),
    ]
    assert state["late"] == []


def test_a_gap_wider_than_both_errors_is_a_win_and_the_second_is_late() -> None:
    state = played("ligretto", press(0, 50_000, PHONE_US), press(1, 51_801, PHONE_US))
    assert state["tie"] is False
    assert state["race"][0]["name"] == "Ann"
    assert [(r["name"], r["lead_us"]) for r in state["late"]] == [("Chloé", 1801)]


def test_the_errors_add_up_the_boundary_is_still_too_close() -> None:
    state = played("ligretto", press(0, 50_000, PHONE_US), press(1, 51_800, PHONE_US))
    assert state["tie"] is True


def test_wired_pads_keep_their_us_one_us_apart_is_a_win() -> None:
    state = played("ligretto", press(0, 50_000), press(1, 50_001))
    assert state["tie"] is False
    assert state["race"][0]["name"] == "Ann" and "error_us" not in state["race"][0]
    assert state["late"][0]["lead_us"] == 1


def test_a_wired_pad_against_a_phone_counts_the_phones_error_only() -> None:
    assert played("ligretto", press(0, 50_000), press(1, 50_900, PHONE_US))["tie"] is True
    assert played("ligretto", press(0, 50_000), press(1, 50_901, PHONE_US))["tie"] is False


def test_a_twin_it_claim_too_close_to_call_is_a_tie_the_table_splits() -> None:
    close = played("twinit", press(0, 50_000, PHONE_US, "slap"), press(1, 50_100, PHONE_US, "slap"))
    claim = close["claim"]
    assert claim is not None and claim["tie"] is True
    assert [s.get("lead_us") for s in claim["slaps"]] == [0, 100]
    clear = played("twinit", press(0, 50_000, 100, "slap"), press(1, 50_300, 100, "slap"))
    claim = clear["claim"]
    assert claim is not None and claim["tie"] is False


def pile(seat: int, t_us: int, error_us: int | None = None) -> dict[str, Any]:
    return {**press(seat, t_us, error_us, "pile"), "pile": 2}


def laid(*presses: dict[str, Any]) -> list[tuple[int, int]]:
    """Each player's (cards laid, fouls) after these presses on Twist's pile 2."""
    players = played("twist", *presses)["players"]
    return [(p["laid"], p["fouls"]) for p in players]


def test_two_hands_on_a_twist_pile_too_close_to_call_neither_card_counts() -> None:
    # v1.1's tie at the same µs, and the repo's reading (issue 41): too close to call
    assert laid(pile(0, 50_000), pile(1, 50_000)) == [(0, 0), (0, 0)]
    assert laid(pile(0, 50_000, PHONE_US), pile(1, 50_200, PHONE_US)) == [(0, 0), (0, 0)]
    # apart by more than both errors: the first holds the pile, the second is blocked
    assert laid(pile(0, 50_000, PHONE_US), pile(1, 51_801, PHONE_US)) == [(1, 0), (0, 1)]
    # wired piles keep their µs
    assert laid(pile(0, 50_000), pile(1, 50_001)) == [(1, 0), (0, 1)]


def test_too_close_is_the_gap_against_the_two_errors() -> None:
    def at(t_us: int, error_us: int | None = None) -> Press:
        return Press(0, "Ann", "stop", t_us, error_us=error_us)

    assert too_close(at(5), at(5))  # v1.1's tie: the same µs
    assert not too_close(at(5), at(6))
    assert too_close(at(0, 3), at(5, 2))
    assert not too_close(at(0, 3), at(6, 2))


def test_the_log_keeps_error_us_and_a_line_without_it_is_written_back_as_it_was() -> None:
    line = press(1, 50_200, PHONE_US)
    event = parse_event(line)
    assert event == PadPressed(1, "stop", 50_200, None, PHONE_US)
    assert event_to_dict(event) == line
    old = press(1, 50_200)
    assert event_to_dict(parse_event(old)) == old
    assert event_to_dict(parse_event({**old, "error_us": None})) == old


@pytest.mark.parametrize("bad", [-1, 1.5, "900", True])
def test_an_error_that_is_no_whole_number_of_us_is_refused(bad: object) -> None:
    with pytest.raises(InvalidEventError, match="error_us"):
        parse_event({**press(0, 10), "error_us": bad})
