"""Golden game logs: every rule and every refusal of games.md and game-log.md.

Each case in `golden/` is a log `<case>.jsonl` and the part of the final state
that must match, `<case>.expected.json`. The match is a recursive subset:

- an object lists the keys that must match; the state may have more;
- a list must have as many items as the state's, each matched in turn;
- a key ending in `~` matches a string that contains the given text
  (`{"line": 7, "reason~": "only possible for the caller"}`);
- anything else must be equal, of the same JSON type (1 is not true or 1.0);
- `rejected` not listed means no line may be rejected;
- `{"error~": "..."}` alone: the log has no valid first line, so replay
  refuses it as a whole (`buzzerbox replay` exits 2) with that text.

The case is named for the rule it pins. Lines are read as `buzzerbox replay`
reads them, so blank lines count in the line numbers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from buzzerbox.rules import InvalidEventError, replay_state

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.name.removesuffix(".jsonl") for p in GOLDEN.glob("*.jsonl"))
GAMES = ("ligretto", "twist", "kids", "twinit")


def mismatches(expected: Any, actual: Any, where: str = "$") -> list[str]:
    """Where `actual` does not match `expected`, one line per difference."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {actual!r}"]
        found: list[str] = []
        for key, want in expected.items():
            if key.endswith("~"):
                name = key[:-1]
                got = actual.get(name)
                if not isinstance(got, str) or want not in got:
                    found.append(f"{where}.{name}: expected text containing {want!r}, got {got!r}")
            elif key not in actual:
                found.append(f"{where}.{key}: missing")
            else:
                found.extend(mismatches(want, actual[key], f"{where}.{key}"))
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{where}: expected a list, got {actual!r}"]
        if len(expected) != len(actual):
            return [f"{where}: expected {len(expected)} items, got {len(actual)}: {actual!r}"]
        return [
            line
            for i, (want, got) in enumerate(zip(expected, actual, strict=True))
            for line in mismatches(want, got, f"{where}[{i}]")
        ]
    if type(expected) is not type(actual) or expected != actual:
        return [f"{where}: expected {expected!r}, got {actual!r}"]
    return []


def load(case: str) -> tuple[list[bytes], dict[str, Any]]:
    lines = (GOLDEN / f"{case}.jsonl").read_bytes().splitlines()
    expected = json.loads((GOLDEN / f"{case}.expected.json").read_text(encoding="utf-8"))
    assert isinstance(expected, dict), f"{case}.expected.json must hold an object"
    return lines, expected


@pytest.mark.parametrize("case", CASES)
def test_golden(case: str) -> None:
    lines, expected = load(case)
    if "error~" in expected:
        assert list(expected) == ["error~"], "a refused log has nothing else to match"
        with pytest.raises(InvalidEventError) as refused:
            replay_state(lines)
        assert expected["error~"] in str(refused.value)
        return
    expected.setdefault("rejected", [])
    state = replay_state(lines)
    problems = mismatches(expected, state)
    assert not problems, "\n".join([*problems, "state: " + json.dumps(state, ensure_ascii=False)])


def test_every_log_has_its_expected_state_and_back() -> None:
    logs = {p.name.removesuffix(".jsonl") for p in GOLDEN.glob("*.jsonl")}
    states = {p.name.removesuffix(".expected.json") for p in GOLDEN.glob("*.expected.json")}
    assert logs == states
    assert {p.name for p in GOLDEN.iterdir()} == {
        *(f"{c}.jsonl" for c in logs),
        *(f"{c}.expected.json" for c in states),
    }


def test_golden_cases_cover_every_game() -> None:
    assert len(CASES) >= 60
    for game in GAMES:
        assert sum(c.startswith(f"{game}_") for c in CASES) >= 10, game
    assert sum(c.startswith("log_") for c in CASES) >= 10


def test_match_is_a_subset_match() -> None:
    state = {"a": 1, "b": [{"line": 7, "reason": "only Ben called stop"}], "c": True}
    assert mismatches({"a": 1}, state) == []
    assert mismatches({"b": [{"line": 7, "reason~": "Ben called"}]}, state) == []
    assert mismatches({"b": [{"line": 8}]}, state)
    assert mismatches({"b": []}, state)
    assert mismatches({"b": [{"reason~": "Ann"}]}, state)
    assert mismatches({"c": 1}, state)
    assert mismatches({"a": 1.0}, state)
    assert mismatches({"d": None}, state)
