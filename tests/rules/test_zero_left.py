"""0 cards left is a count (issue 24, item 4; v1.2 reading of game-log.md).

Twist (000) and Kids (001): "the other players count the cards they have left
over": a player who emptied their hand moments after the caller has 0 left, and the
box takes it, when first entered and in a correction. Ligretto keeps 004's rule: one
Ligretto stack can be empty, the caller's.
"""

from __future__ import annotations

import pytest
from buzzerbox.rules import Engine, IllegalEventError

PLAYERS = ["Ann", "Ben", "Cem"]


def called(game: str, caller: int = 0) -> Engine:
    """A round of `game` that `caller` ended with the first stop press; Ben pressed
    stop 400 µs later (his hand empty too)."""
    engine = Engine.from_dict({"type": "game", "game": game, "players": PLAYERS})
    engine.apply_dict({"type": "round"})
    engine.apply_dict({"type": "go", "t_us": 1000})
    engine.apply_dict({"type": "press", "seat": caller, "pad": "stop", "t_us": 9000})
    engine.apply_dict({"type": "press", "seat": 1, "pad": "stop", "t_us": 9400})
    return engine


@pytest.mark.parametrize("game", ["twist", "kids"])
def test_zero_left_is_taken_for_a_player_who_did_not_call(game: str) -> None:
    engine = called(game)
    engine.apply_dict({"type": "left", "counts": {"Ann": 0, "Ben": 0, "Cem": 7}})
    state = engine.state()
    assert state["phase"] == "scored"
    entry = state["history"][0]
    assert entry["caller"] == "Ann" and entry["winners"] == ["Ann"]
    assert entry["left"] == {"Ann": 0, "Ben": 0, "Cem": 7}
    # Twist: negative points; Kids: the cards left are the points
    assert entry["points"]["Ben"] == 0 and abs(entry["points"]["Cem"]) == 7


@pytest.mark.parametrize("game", ["twist", "kids"])
def test_a_correction_takes_zero_for_a_non_caller_too(game: str) -> None:
    engine = called(game)
    engine.apply_dict({"type": "left", "counts": {"Ann": 0, "Ben": 3, "Cem": 7}})
    engine.apply_dict({"type": "amend", "round": 1, "left": {"Ann": 0, "Ben": 0, "Cem": 7}})
    assert engine.state()["history"][0]["left"]["Ben"] == 0


@pytest.mark.parametrize("game", ["twist", "kids"])
def test_the_caller_still_has_zero_and_nobody_called_still_asks_for_one(game: str) -> None:
    engine = called(game)
    with pytest.raises(IllegalEventError, match="Ann called stop with no cards left: enter 0"):
        engine.apply_dict({"type": "left", "counts": {"Ann": 2, "Ben": 0, "Cem": 7}})
    tied = Engine.from_dict({"type": "game", "game": game, "players": PLAYERS})
    for event in (
        {"type": "round"},
        {"type": "go", "t_us": 1000},
        {"type": "press", "seat": 0, "pad": "stop", "t_us": 9000},
        {"type": "press", "seat": 1, "pad": "stop", "t_us": 9000},  # a tie: no caller
    ):
        tied.apply_dict(event)
    with pytest.raises(IllegalEventError, match="stop presses of round 1 tied") as refusal:
        tied.apply_dict({"type": "left", "counts": {"Ann": 0, "Ben": 0, "Cem": 7}})
    assert refusal.value.subject == "Ann"


def test_ligretto_keeps_two_empty_stacks_refused() -> None:
    engine = called("ligretto", caller=1)
    with pytest.raises(IllegalEventError, match="two empty Ligretto stacks") as refusal:
        engine.apply_dict({"type": "stacks", "counts": {"Ann": 0, "Ben": 0, "Cem": 4}})
    assert refusal.value.subject == "Ann"
