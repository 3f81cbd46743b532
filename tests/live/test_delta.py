"""live/delta.py's diff against two independent appliers (issue 26, item 2): for random
pairs of JSON states, and for real /api/state snapshots of games played, the patch
applied to the old state by the `jsonpatch` package (PyPI) and by the pages' own
web/static/patch.js (node) gives the new state exactly, types included: true is not 1
and false is not 0, though they are to Python's `==`."""

from __future__ import annotations

import itertools
from typing import Any

import jsonpatch
from buzzerbox.live.delta import diff, same
from flask.testing import FlaskClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from web.patchjs import apply_all  # type: ignore[import-not-found]
from web.web_fakes import ManualClock, new_game, play  # type: ignore[import-not-found]

TEXT = st.characters(exclude_categories=["Cs"])  # no lone surrogates: not Unicode text
KEYS = st.one_of(
    st.sampled_from(["a", "b", "", "/", "~", "~1", "a/b", "__proto__", "constructor", "0"]),
    st.text(TEXT, max_size=4),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([0, 1, -1, 0.5, 1.0]),  # the ones Python's == takes for true and false
    st.integers(-(2**53), 2**53),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(TEXT, max_size=6),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(KEYS, inner, max_size=6)),
    max_leaves=30,
)


def typed(value: Any) -> Any:
    """`value` with every scalar tagged by its JSON type (true is not 1, 1.0 is 1)."""
    if isinstance(value, dict):
        return {key: typed(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [typed(inner) for inner in value]
    if isinstance(value, bool) or value is None:
        return (type(value).__name__, value)
    if isinstance(value, int | float):  # a double, as in JavaScript (the ints are within 2**53)
        return ("number", float(value))
    return ("string", value)


@st.composite
def changed(draw: st.DrawFn, value: Any) -> Any:
    """`value` with some of its parts changed as a game's state changes: members come
    and go, lists grow, slide and shrink, a number becomes a boolean of the same value."""
    how = draw(st.integers(0, 9))
    if how == 0:
        return draw(JSON)
    if isinstance(value, bool):
        return int(value) if how < 5 else value
    if isinstance(value, int) and value in (0, 1) and how < 5:
        return bool(value)
    if isinstance(value, dict):
        out = {key: draw(changed(inner)) for key, inner in value.items()}
        for key in draw(st.lists(st.sampled_from(sorted(out)), max_size=2)) if out else []:
            out.pop(key, None)
        out.update(draw(st.dictionaries(KEYS, JSON, max_size=2)))
        return out
    if isinstance(value, list):
        items = [draw(changed(inner)) if draw(st.booleans()) else inner for inner in value]
        items = items[draw(st.integers(0, min(2, len(items)))) :]
        return items + draw(st.lists(JSON, max_size=3))
    return value


def check(pairs: list[tuple[Any, Any]]) -> None:
    """Each pair's patch gives the new state with jsonpatch, then, all at once, with patch.js."""
    patches = []
    for old, new in pairs:
        patch = diff(old, new)
        got = jsonpatch.apply_patch(old, patch)
        assert typed(got) == typed(new), (old, new, patch)
        patches.append((old, patch))
    for (old, new), (_, patch), answer in zip(pairs, patches, apply_all(patches), strict=True):
        assert "error" not in answer, (old, patch, answer)
        assert typed(answer["doc"]) == typed(new), (old, new, patch)


def test_true_is_not_1_at_any_depth() -> None:
    assert diff([1], [True]) == [{"op": "replace", "path": "", "value": [True]}]
    assert diff({"a": {"b": 1}}, {"a": {"b": True}}) == [
        {"op": "replace", "path": "/a/b", "value": True}
    ]
    assert diff({"a": [{"x": 0}] * 20}, {"a": [{"x": False}] + [{"x": 0}] * 19}) == [
        {"op": "replace", "path": "/a/0/x", "value": False}
    ]
    assert same({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]})
    assert not same({"a": [1]}, {"a": [True]}) and not same([0], [False])
    check([([1], [True]), ({"a": {"b": 1}}, {"a": {"b": True}}), ([[0]] * 20, [[False]] * 20)])


def test_random_pairs_of_states() -> None:
    pairs: list[tuple[Any, Any]] = []

    @given(st.data())
    @settings(
        max_examples=200,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @example(None)
    def one(data: st.DataObject | None) -> None:
        if data is None:
            old, new = {"a": [{"b": 1}, 0]}, {"a": [{"b": True}, False]}
        else:
            old = data.draw(JSON)
            new = data.draw(st.one_of(JSON, changed(old)))
        patch = diff(old, new)
        assert typed(jsonpatch.apply_patch(old, patch)) == typed(new), (old, new, patch)
        pairs.append((old, new))

    one()
    assert len(pairs) > 100
    check(pairs)


def test_real_state_snapshots(client: FlaskClient, admin: FlaskClient, clock: ManualClock) -> None:
    """/api/state after every action of a Ligretto game and a Twist round of presses."""
    snapshots: list[dict[str, Any]] = []

    def snap() -> None:
        state = client.get("/api/state").json
        assert isinstance(state, dict)
        snapshots.append(state)

    snap()
    new_game(admin)
    snap()
    for seat, counts in ((1, {"Ann": 2, "Ben": 0, "Cem": 4}), (0, {"Ann": 0, "Ben": 5, "Cem": 1})):
        play(admin, {"type": "round"})
        snap()
        clock.advance(3_000_000)
        snap()
        assert admin.post("/api/pads/press", json={"seat": seat, "pad": "stop"}).status_code == 200
        snap()
        play(admin, {"type": "stacks", "counts": counts})
        snap()
        play(admin, {"type": "middle", "counts": {"Ann": 9, "Ben": 7, "Cem": 3}})
        snap()
    play(admin, {"type": "finish"})
    snap()
    new_game(admin, "twist", players=["Ann", "Ben", "Cem", "Dan"])
    snap()
    play(admin, {"type": "round"})
    clock.advance(3_000_000)
    snap()
    for i in range(24):
        clock.advance(7_000)
        body = {"seat": i % 4, "pad": "pile", "pile": (i // 8) % 2}
        assert admin.post("/api/pads/press", json=body).status_code == 200
        snap()
        clock.advance(3_000)
        assert admin.post("/api/pads/release", json=body).status_code == 200
        snap()
    pairs = list(itertools.pairwise(snapshots))
    pairs += [(snapshots[i], snapshots[-1 - i]) for i in range(0, len(snapshots), 5)]
    assert sum(1 for old, new in pairs if diff(old, new)) > 40
    check(pairs)
