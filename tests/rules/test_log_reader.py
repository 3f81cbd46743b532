"""The log's reader (issue 37, item 6): a key given twice in one object is refused when
the line is read, and a refusal quotes a value as the line wrote it."""

from __future__ import annotations

import json
import random

import pytest
from buzzerbox.rules import replay_state
from buzzerbox.rules.errors import InvalidEventError
from buzzerbox.rules.gamelog import Unreadable, read_lines

KIDS = '{"type": "game", "game": "kids", "players": ["Ann", "Ben"]}'
#: a round of Kids that Ann ended, waiting for the cards left
CALLED = [KIDS, '{"type": "round"}', '{"type": "go", "t_us": 10}']
CALLED += ['{"type": "press", "seat": 0, "pad": "stop", "t_us": 20}']
TWICE = "twice in one object"


def test_a_player_counted_twice_is_refused_and_the_next_clean_line_is_taken() -> None:
    lines = [*CALLED, '{"type": "left", "counts": {"Ann": 0, "Ben": 2, "Ben": 3}}']
    lines.append('{"type": "left", "counts": {"Ann": 0, "Ben": 2}}')
    state = replay_state(lines)
    [refused] = state["rejected"]
    assert refused["line"] == 5
    assert '"Ben" twice in one object' in refused["reason"]
    assert state["history"][-1]["left"] == {"Ann": 0, "Ben": 2}


@pytest.mark.parametrize(
    "line",
    [
        '{"type": "press", "seat": 0, "seat": 1, "pad": "stop", "t_us": 30}',
        '{"type":"press","seat":0,"pad":"stop","t_us":30,"t_us":31}',
        '{"type" : "round" , "type" : "round"}',
        '{"type":\t"round",\n"type": "round"}',
        '{"type": "round", "note": {"a": 1, "a": 2}}',
        '{"type": "round", "note": [{"a": 1}, {"b": 2, "b": 3}]}',
        '{"type": "round", "note": "a, b, c", "type": "go"}',  # commas in a text
        '{"type": "round", "note": "\\":,\\":", "note": 1}',
    ],
)
def test_a_key_given_twice_is_refused_however_the_line_is_written(line: str) -> None:
    for raw in (line, line.encode()):
        state = replay_state([KIDS, raw])
        assert [r["line"] for r in state["rejected"]] == [2], raw
        assert TWICE in state["rejected"][0]["reason"]
        assert state["round"] == 0


def test_a_first_line_with_a_key_given_twice_is_no_game() -> None:
    line = '{"type": "game", "game": "kids", "players": ["Ann", "Ben"], "game": "twist"}'
    with pytest.raises(InvalidEventError, match=TWICE):
        replay_state([line])


@pytest.mark.parametrize(
    "line",
    [
        '{"type": "round", "note": "a, b", "other": "c,d"}',
        '{"type": "round", "note": {}}',
        '{"type": "round", "note": [[], {}, [1, 2, 3]]}',
        '{"type": "round", "a": {"b": {"c": {"d": 1, "e": 2}}}}',
        "{}",
    ],
)
def test_lines_without_a_key_twice_are_read(line: str) -> None:
    [(_, obj)] = read_lines([line])
    assert obj == json.loads(line)


def random_value(rng: random.Random, depth: int) -> object:
    kind = rng.randrange(6 if depth < 4 else 3)
    if kind == 0:
        return rng.randrange(-5, 50)
    if kind == 1:
        return rng.choice(["x", "a,b", '":', " , ", "Ben"])
    if kind == 2:
        return rng.choice([True, None, 1.5])
    if kind == 3:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice("abcd"): random_value(rng, depth + 1) for _ in range(rng.randrange(4))}


def pairs_text(rng: random.Random, value: object, spaced: bool) -> tuple[str, bool]:
    """`value` as JSON text, an object sometimes given a key twice; whether one was."""
    comma, colon = (", ", ": ") if spaced else (",", ":")
    if isinstance(value, dict):
        parts, twice = [], False
        items = list(value.items())
        if items and rng.random() < 0.2:
            items.append((items[0][0], items[0][1]))
            twice = True
        for key, inner in items:
            text, inner_twice = pairs_text(rng, inner, spaced)
            parts.append(json.dumps(key) + colon + text)
            twice = twice or inner_twice
        return "{" + comma.join(parts) + "}", twice
    if isinstance(value, list):
        texts = [pairs_text(rng, inner, spaced) for inner in value]
        return "[" + comma.join(t for t, _ in texts) + "]", any(w for _, w in texts)
    return json.dumps(value), False


def test_the_count_that_clears_a_line_never_clears_a_key_given_twice() -> None:
    rng = random.Random(37)
    seen = {True: 0, False: 0}
    for _ in range(3000):
        value = {"type": "round", **{k: random_value(rng, 1) for k in rng.sample("wxyz", 2)}}
        text, twice = pairs_text(rng, value, spaced=rng.random() < 0.5)
        [(_, obj)] = read_lines([text])
        assert isinstance(obj, Unreadable) == twice, text
        seen[twice] += 1
    assert min(seen.values()) > 100


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ('"rounds": 5e0', "rounds 5e0 is not allowed"),
        ('"rounds": 5.0', "rounds 5.0 is not allowed"),
        ('"rounds": true', "rounds True is not allowed"),
        ('"rounds": 0', "rounds 0 is not allowed"),
        ('"target": 50.0', "target 50.0 is not a whole number"),
        ('"target": 5E1', "target 5E1 is not a whole number"),
        ('"target": "50"', "target '50' is not a number"),
    ],
)
def test_a_refusal_quotes_a_number_as_it_was_written(fields: str, said: str) -> None:
    line = '{"type": "game", "game": "ligretto", "players": ["Ann", "Ben"], ' + fields + "}"
    with pytest.raises(InvalidEventError, match=said):
        replay_state([line])


def test_a_count_or_a_seat_is_quoted_as_written() -> None:
    state = replay_state(
        [
            *CALLED,
            '{"type": "left", "counts": {"Ann": 0, "Ben": 2e0}}',
            '{"type": "caller", "seat": 1.0}',
            '{"type": "press", "seat": false, "pad": "stop", "t_us": 40}',
        ]
    )
    reasons = [r["reason"] for r in state["rejected"]]
    assert "Ben: 2e0 is not a number of cards" in reasons[0]
    assert "seat 1.0 is not allowed" in reasons[1]
    assert "seat False is not allowed" in reasons[2]


def test_a_zero_after_a_stop_tie_says_no_caller_is_named() -> None:
    tied = [KIDS, '{"type": "round"}', '{"type": "go", "t_us": 10}']
    tied += ['{"type": "press", "seat": 0, "pad": "stop", "t_us": 20}']
    tied += ['{"type": "press", "seat": 1, "pad": "stop", "t_us": 20}']
    state = replay_state([*tied, '{"type": "left", "counts": {"Ann": 0, "Ben": 3}}'])
    assert state["tie"] is True
    [refused] = state["rejected"]
    assert "the stop presses of round 1 tied with no caller named" in refused["reason"]
    assert "nobody called" not in refused["reason"]


def test_a_zero_in_an_amend_of_a_tied_round_or_a_stalled_one_says_which() -> None:
    tied = [KIDS, '{"type": "round"}', '{"type": "go", "t_us": 10}']
    tied += ['{"type": "press", "seat": 0, "pad": "stop", "t_us": 20}']
    tied += ['{"type": "press", "seat": 1, "pad": "stop", "t_us": 20}']
    tied += ['{"type": "left", "counts": {"Ann": 2, "Ben": 3}}']
    amend = '{"type": "amend", "round": 1, "left": {"Ann": 0, "Ben": 3}}'
    state = replay_state([*tied, amend])
    assert "the stop presses of round 1 tied" in state["rejected"][0]["reason"]
    stalled = [KIDS, '{"type": "round"}', '{"type": "go", "t_us": 10}', '{"type": "stall"}']
    stalled += ['{"type": "left", "counts": {"Ann": 2, "Ben": 3}}']
    state = replay_state([*stalled, amend])
    assert "nobody called in round 1" in state["rejected"][0]["reason"]


def test_an_amend_says_which_rounds_it_can_correct() -> None:
    scored = [*CALLED, '{"type": "left", "counts": {"Ann": 0, "Ben": 2}}']
    one = replay_state([*scored, '{"type": "amend", "round": 2, "left": {"Ann": 0, "Ben": 1}}'])
    assert "only round 1 is scored" in one["rejected"][0]["reason"]
    assert "rounds 1-1" not in one["rejected"][0]["reason"]
    again = [*scored, '{"type": "round"}', '{"type": "go", "t_us": 30}']
    again += ['{"type": "press", "seat": 1, "pad": "stop", "t_us": 40}']
    being = replay_state([*again, '{"type": "amend", "round": 2, "left": {"Ann": 1, "Ben": 0}}'])
    reason = being["rejected"][0]["reason"]
    assert "round 2 cannot be amended" in reason
    assert "enter its counts" in reason and "once it is scored" in reason
