"""The pages' JSON Patch applier, web/static/patch.js (issue 26, item 1), under node.

It takes the operations the box sends (add, remove, replace) and must do exactly what
RFC 6902 says of them: the public JSON Patch test suite (npm json-patch-test-suite,
tests/web/jsonpatch) passes for every case of those operations, and every patch it
cannot apply, another operation included, throws, which the page turns into a resync
(web/static/api.js asks for the whole state again).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .patchjs import PATCH_JS, apply_all, suite

SUPPORTED = {"add", "remove", "replace"}


def _supported(patch: list[Any]) -> bool:
    return all(isinstance(op, dict) and op.get("op") in SUPPORTED for op in patch)


@pytest.mark.parametrize("name", ["tests.json", "spec_tests.json"])
def test_the_public_suite(name: str) -> None:
    cases = [case for case in suite(name) if not case.get("disabled")]
    assert len(cases) > 15
    answers = apply_all([(case["doc"], case["patch"]) for case in cases])
    checked = 0
    for case, answer in zip(cases, answers, strict=True):
        what = case.get("comment") or json.dumps(case["patch"])
        if not _supported(case["patch"]):
            assert "error" in answer, f"{what}: an operation the box never sends was applied"
            continue
        checked += 1
        if "error" in case:
            assert "error" in answer, f"{what}: applied, though it should fail ({case['error']})"
        else:
            assert "error" not in answer, f"{what}: {answer.get('error')}"
            expected = case.get("expected", case["doc"])
            assert _typed(answer["doc"]) == _typed(expected), what
    assert checked >= 10


def _typed(value: Any) -> Any:
    """`value` with each boolean tagged, so that True and 1 do not compare equal."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, dict):
        return {key: _typed(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_typed(inner) for inner in value]
    return value


REFUSED: list[tuple[str, Any, list[Any]]] = [
    ("remove of a missing member", {"a": 1}, [{"op": "remove", "path": "/b"}]),
    ("replace of a missing member", {"a": 1}, [{"op": "replace", "path": "/b", "value": 2}]),
    ("add without a value", {"a": 1}, [{"op": "add", "path": "/b"}]),
    ("replace without a value", {"a": 1}, [{"op": "replace", "path": "/a"}]),
    ("a path without its /", {"a": 1}, [{"op": "replace", "path": "a", "value": 2}]),
    ("no path", {"a": 1}, [{"op": "replace", "value": 2}]),
    ("a bad ~ escape", {"a~2": 1}, [{"op": "remove", "path": "/a~2"}]),
    ("remove of the document", {"a": 1}, [{"op": "remove", "path": ""}]),
    ("a patch that is not a list", {"a": 1}, {"op": "remove", "path": "/a"}),  # type: ignore[list-item]
    ("an operation that is not an object", {"a": 1}, [None]),
    ("test, which the box never sends", {"a": 1}, [{"op": "test", "path": "/a", "value": 1}]),
    ("into a number", {"a": 1}, [{"op": "add", "path": "/a/b", "value": 1}]),
    ("a member the prototype has", {}, [{"op": "remove", "path": "/constructor"}]),
    ("into a member the prototype has", {}, [{"op": "add", "path": "/toString/x", "value": 1}]),
    ("an item past the end", {"a": [1]}, [{"op": "replace", "path": "/a/1", "value": 2}]),
    ("- but for add", {"a": [1]}, [{"op": "replace", "path": "/a/-", "value": 2}]),
    ("- on the way", {"a": [[1]]}, [{"op": "add", "path": "/a/-/0", "value": 2}]),
    ("the second op of a patch", {"a": 1}, [{"op": "add", "path": "/b", "value": 1},
                                           {"op": "remove", "path": "/c"}]),
]  # fmt: skip

BAD_INDICES = ["1e0", "01", "", " 1", "0x1", "1.0", "-1", "+1", "1 ", "Infinity", "NaN"]


@pytest.mark.parametrize(("what", "doc", "patch"), REFUSED, ids=[r[0] for r in REFUSED])
def test_an_invalid_patch_throws(what: str, doc: Any, patch: list[Any]) -> None:
    (answer,) = apply_all([(doc, patch)])
    assert "error" in answer, f"{what}: applied as {answer.get('doc')!r}"


@pytest.mark.parametrize("index", BAD_INDICES)
@pytest.mark.parametrize("op", ["add", "remove", "replace"])
def test_an_index_that_is_not_rfc_6901s_throws(op: str, index: str) -> None:
    doc = {"list": ["a", "b"], "deep": [{"x": 1}, {"x": 2}]}
    (at_end, on_the_way) = apply_all(
        [
            (doc, [{"op": op, "path": f"/list/{index}", "value": "c"}]),
            (doc, [{"op": op, "path": f"/deep/{index}/x", "value": 3}]),
        ]
    )
    assert "error" in at_end, f"{op} /list/{index!r} gave {at_end.get('doc')!r}"
    assert "error" in on_the_way, f"{op} /deep/{index!r}/x gave {on_the_way.get('doc')!r}"


def test_proto_and_constructor_are_plain_members() -> None:
    """A player may be called __proto__: history and piles are keyed by name."""
    doc = {"history": {"Ann": [1]}, "piles": {"__proto__": 3}}
    (added, replaced, removed, nested) = apply_all(
        [
            (doc, [{"op": "add", "path": "/history/__proto__", "value": [2]},
                   {"op": "add", "path": "/history/constructor", "value": {"polluted": 1}}]),
            (doc, [{"op": "replace", "path": "/piles/__proto__", "value": 4}]),
            (doc, [{"op": "remove", "path": "/piles/__proto__"}]),
            (doc, [{"op": "add", "path": "/piles/__proto__/x", "value": 1}]),
        ]
    )  # fmt: skip
    assert added == {
        "doc": {
            "history": {"Ann": [1], "__proto__": [2], "constructor": {"polluted": 1}},
            "piles": {"__proto__": 3},
        }
    }
    assert replaced == {"doc": {"history": {"Ann": [1]}, "piles": {"__proto__": 4}}}
    assert removed == {"doc": {"history": {"Ann": [1]}, "piles": {}}}
    assert "error" in nested  # 3 is a number: nothing to add into


def test_add_and_replace_at_the_root() -> None:
    (added, replaced, scalar) = apply_all(
        [
            ({"a": 1}, [{"op": "add", "path": "", "value": {"b": 2}}]),
            ({"a": 1}, [{"op": "replace", "path": "", "value": [True]}]),
            ("foo", [{"op": "replace", "path": "", "value": "bar"}]),
        ]
    )
    assert added == {"doc": {"b": 2}}
    assert replaced == {"doc": [True]}
    assert scalar == {"doc": "bar"}


def test_the_page_resyncs_when_a_patch_throws() -> None:
    """What the pages do with a patch that throws: api.js catches it and resyncs."""
    api = (PATCH_JS.parent / "api.js").read_text(encoding="utf-8")
    at = api.index("base = applyPatch(base, JSON.parse(e.data));")
    assert "} catch {\n        resync();" in api[at : at + 120]
