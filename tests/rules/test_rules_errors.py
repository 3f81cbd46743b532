"""Refusals name the player they concern, so a page can show them at that field."""

import json
import re
from pathlib import Path

import pytest
from buzzerbox.errors import BuzzerboxError
from buzzerbox.rules import Engine, IllegalEventError, InvalidEventError

GOLDEN = Path(__file__).parent / "golden"


def scoring_game() -> Engine:
    engine = Engine.from_dict(
        {"type": "game", "game": "ligretto", "players": ["Ann", "Ben", "Cem"]}
    )
    for event in ({"type": "round"}, {"type": "go", "t_us": 10}):
        engine.apply_dict(event)
    engine.apply_dict({"type": "press", "seat": 1, "pad": "stop", "t_us": 20})
    return engine


def test_two_empty_stacks_name_the_player_to_correct() -> None:
    engine = scoring_game()
    with pytest.raises(IllegalEventError) as refusal:
        engine.apply_dict({"type": "stacks", "counts": {"Ann": 0, "Ben": 0, "Cem": 4}})
    assert refusal.value.subject == "Ann"
    assert "only possible for the caller, Ben" in str(refusal.value)


def test_a_missing_count_names_the_player() -> None:
    engine = scoring_game()
    with pytest.raises(InvalidEventError) as refusal:
        engine.apply_dict({"type": "stacks", "counts": {"Ann": 3, "Ben": 0}})
    assert refusal.value.subject == "Cem"


def test_a_middle_too_big_names_the_player() -> None:
    engine = scoring_game()
    engine.apply_dict({"type": "stacks", "counts": {"Ann": 3, "Ben": 0, "Cem": 4}})
    with pytest.raises(IllegalEventError) as refusal:
        engine.apply_dict({"type": "middle", "counts": {"Ann": 10, "Ben": 20, "Cem": 37}})
    assert refusal.value.subject == "Cem"
    assert "at most 36 in the middle" in str(refusal.value)


def test_a_refusal_without_a_player_has_no_subject() -> None:
    engine = scoring_game()
    with pytest.raises(IllegalEventError) as refusal:
        engine.apply_dict({"type": "round"})
    assert refusal.value.subject is None


def refusals() -> list[tuple[str, list[str], BuzzerboxError]]:
    """Every refusal the golden logs provoke: the case, its players, the error."""
    found: list[tuple[str, list[str], BuzzerboxError]] = []
    for path in sorted(GOLDEN.glob("*.jsonl")):
        lines = []
        for text in path.read_bytes().splitlines():
            try:
                lines.append(json.loads(text))
            except (ValueError, RecursionError):
                continue  # not JSON: refused before the rules see it
        try:
            engine = Engine.from_dict(lines[0] if lines else None)
        except BuzzerboxError as exc:
            found.append((path.stem, [], exc))
            continue
        for line in lines[1:]:
            try:
                engine.apply_dict(line)
            except BuzzerboxError as exc:
                found.append((path.stem, list(engine.game.players), exc))
    return found


def test_every_refusal_that_names_a_player_has_that_subject() -> None:
    seen = 0
    for case, players, exc in refusals():
        message = str(exc)
        if "the players are" in message or "is one of" in message:
            continue
        named = [p for p in players if re.search(rf"(?<!\w){re.escape(p)}(?!\w)", message)]
        if named:
            seen += 1
            assert exc.subject in named, f"{case}: {message!r} has subject {exc.subject!r}"
    assert seen >= 40
