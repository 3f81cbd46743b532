"""Properties of the rules engine over random valid games (`gamegen`) and random lines.

Same events in, same state out; a refused event changes nothing; undo restores
the state exactly; totals are the sum of the rounds; nothing a log line says
raises out of replay.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from buzzerbox.errors import BuzzerboxError
from buzzerbox.rules import (
    Engine,
    InvalidEventError,
    event_to_dict,
    parse_event,
    replay_state,
)
from buzzerbox.rules.events import CLAIM_RESULTS, PADS, TABLE_ENTRIES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .gamegen import GAMES, NAMES, generate

Log = list[dict[str, Any]]

FAST = settings(
    max_examples=100,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TYPES = ("game", "round", "go", "press", "release", "caller", "stall")
ENTRIES = ("stacks", "middle", "left", "claim", "void", "amend", "finish", "undo")
PHASES = {"lobby", "countdown", "playing", "scoring", "scored", "finished"}


@st.composite
def games(draw: st.DrawFn, v1: bool | None = None) -> Log:
    """A valid whole game log, for any of the four games (version 1 or 1.1 if `v1` is
    not given)."""
    game = draw(st.sampled_from(GAMES))
    size = draw(st.integers(1, 30 if game == "twinit" else 6))
    target = draw(st.sampled_from((None, 50, 99))) if game == "ligretto" else None
    old = draw(st.booleans()) if v1 is None else v1
    return generate(game, size, draw(st.integers(0, 2**32)), target=target, v1=old)


def lines(log: Log) -> list[str]:
    return [json.dumps(event, ensure_ascii=False) for event in log]


def frozen(state: Mapping[str, Any]) -> str:
    """The state as text: compared by value, and safe from later changes."""
    return json.dumps(state, sort_keys=True, ensure_ascii=False)


def without_rejected(state: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in state.items() if key not in ("rejected", "rejected_count")}


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 2**64)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=10,
)
SEATS = st.integers(-1, 13) | JSON
COUNTS = st.dictionaries(st.sampled_from(NAMES[:7]), st.integers(-2, 42) | JSON, max_size=7)
#: events of every type, with fields that are right, wrong, or of the wrong kind
EVENTS = st.fixed_dictionaries(
    {"type": st.sampled_from(TYPES + ENTRIES) | JSON},
    optional={
        "seat": SEATS,
        "pad": st.sampled_from((*PADS, "foot")) | JSON,
        "pile": st.integers(-1, 9) | JSON,
        "t_us": st.integers(-1, 2**62) | JSON,
        "counts": COUNTS | JSON,
        "result": st.sampled_from((*CLAIM_RESULTS, "draw")) | JSON,
        "victim": st.sampled_from(NAMES[:7]) | JSON,
        "game": st.sampled_from(GAMES) | JSON,
        "players": st.lists(st.sampled_from(NAMES), max_size=13) | JSON,
        "target": st.sampled_from((50, 99, 150, 42)) | JSON,
        "rounds": st.integers(-1, 6) | JSON,
        "round": st.integers(-1, 6) | JSON,
        "left": COUNTS | JSON,
        "stacks": COUNTS | JSON,
        "middle": COUNTS | JSON,
        "variants": st.lists(st.text(max_size=8), max_size=3) | JSON,
        "first": st.integers(-1, 6) | JSON,
    },
)


@FAST
@given(games())
def test_generated_games_replay_clean_to_the_end(log: Log) -> None:
    state = replay_state(lines(log))
    assert state["rejected"] == []
    assert state["phase"] == "finished"
    names = [p["name"] for p in state["players"]]
    assert state["winners"]
    assert set(state["winners"]) <= set(names)


@FAST
@given(games(), st.data())
def test_any_prefix_replays(log: Log, data: st.DataObject) -> None:
    cut = data.draw(st.integers(1, len(log)), label="lines kept")
    state = replay_state(lines(log[:cut]))
    assert state["rejected"] == []
    assert state["phase"] in PHASES
    assert (state["winners"] != []) == (state["phase"] == "finished")


@FAST
@given(games(), st.data())
def test_totals_are_the_sum_of_round_points(log: Log, data: st.DataObject) -> None:
    cut = data.draw(st.integers(1, len(log)), label="lines kept")
    state = replay_state(lines(log[:cut]))
    game, players = state["game"], state["players"]
    if game == "twinit":
        for p in players:
            assert p["total"] == len(p["takes"])
            assert set(p["takes"]) <= {2, 3}
            assert p["total"] <= 5
        return
    running = {p["name"]: 0 for p in players}
    for entry in state["history"]:
        for name, points in entry["points"].items():
            running[name] += points
            if game == "ligretto":
                assert points == entry["middle"][name] - 2 * entry["stacks"][name]
            else:
                assert points == (-1 if game == "twist" else 1) * entry["left"][name]
        assert entry["totals"] == running
    assert {p["name"]: p["total"] for p in players} == running
    if game == "twist":
        assert all(p["total"] <= 0 for p in players), "negative points"
    if game == "kids":
        assert all(p["total"] >= 0 for p in players), "cards left"


@FAST
@given(games())
def test_undo_after_an_entry_restores_the_state(log: Log) -> None:
    engine = Engine.from_dict(log[0])
    for event in log[1:]:
        if event["type"] not in TABLE_ENTRIES:
            engine.apply_dict(event)
            continue
        before = frozen(engine.state())
        engine.apply_dict(event)
        after = frozen(engine.state())
        if event["type"] != "caller":  # naming the caller again may change nothing
            assert after != before
        engine.apply_dict({"type": "undo"})
        assert frozen(engine.state()) == before
        engine.apply_dict(event)
        assert frozen(engine.state()) == after


@FAST
@given(games(), EVENTS, st.data())
def test_a_refused_event_changes_nothing(log: Log, odd: Any, data: st.DataObject) -> None:
    cut = data.draw(st.integers(1, len(log)), label="lines before the odd one")
    engine = Engine.from_dict(log[0])
    for event in log[1:cut]:
        engine.apply_dict(event)
    before = frozen(engine.state())
    try:
        engine.apply_dict(odd)
    except BuzzerboxError:
        assert frozen(engine.state()) == before
    else:
        return  # the odd event happened to be allowed: nothing to compare
    plain = lines(log)
    mixed = [*plain[:cut], json.dumps(odd), *plain[cut:]]
    state = replay_state(mixed)
    assert [r["line"] for r in state["rejected"]] == [cut + 1]
    assert without_rejected(state) == without_rejected(replay_state(plain))


@FAST
@given(games())
def test_replay_is_deterministic(log: Log) -> None:
    text = lines(log)
    first = replay_state(text)
    assert replay_state(text) == first
    assert replay_state([line.encode("utf-8") for line in text]) == first
    # the events written back out say the same: parse and write round-trip
    again = [json.dumps(event_to_dict(parse_event(event))) for event in log]
    assert replay_state(again) == first


@FAST
@given(
    st.sampled_from(GAMES),
    st.lists(EVENTS | JSON.map(lambda v: {"type": "press", "seat": v}) | JSON, max_size=15),
)
def test_arbitrary_json_lines_never_raise(game: str, odd: list[Any]) -> None:
    players = list(NAMES[:2])
    head = json.dumps({"type": "game", "game": game, "players": players})
    state = replay_state([head, *(json.dumps(v) for v in odd)])
    assert len(state["rejected"]) <= len(odd)
    for rejected in state["rejected"]:
        assert isinstance(rejected["reason"], str) and rejected["reason"]
    json.dumps(state)


@FAST
@given(st.lists(st.text(max_size=40) | st.binary(max_size=40), max_size=8))
def test_arbitrary_text_lines_never_raise(odd: list[str | bytes]) -> None:
    head = json.dumps({"type": "game", "game": "twist", "players": ["Mia", "Noah"]})
    replay_state([head, *odd])


@FAST
@given(EVENTS | JSON)
def test_a_bad_first_line_is_refused_as_invalid(first: Any) -> None:
    try:
        Engine.from_dict(first)
    except InvalidEventError:
        pass
    except BuzzerboxError as exc:  # pragma: no cover - the assert explains
        raise AssertionError(f"a first line must be invalid, not {type(exc).__name__}") from exc


def test_generator_is_deterministic_and_varied() -> None:
    for game in GAMES:
        assert generate(game, 3, seed=1) == generate(game, 3, seed=1)
        assert generate(game, 3, seed=1) != generate(game, 3, seed=2)


def test_generator_plays_every_kind_of_event() -> None:
    seen: set[str] = set()
    fouls = late = false_starts = 0
    for seed in range(12):
        for game in GAMES:
            log = generate(game, 4 if game != "twinit" else 20, seed)
            seen |= {event["type"] for event in log}
            engine = Engine.from_dict(log[0])
            for event in log[1:]:
                engine.apply_dict(event)
                state = engine.state()
                late += len(state["late"]) if event["type"] == "press" else 0
                false_starts += len(state["false_starts"]) if event["type"] == "go" else 0
            fouls += sum(p.get("fouls", 0) for p in engine.state()["players"])
    assert seen == set(TYPES + ENTRIES)
    assert fouls and late and false_starts
    assert sum(e["type"] == "press" for e in generate("twist", 5, seed=3)) > 100
