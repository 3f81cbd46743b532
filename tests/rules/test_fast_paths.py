"""Replay's fast paths (rules/gamelog.py, rules/events.py) read what the full checks read.

Most lines of a log are pad edges written as plain ASCII JSON: replay reads them with
JSON's scanner alone and makes their events without a frozen dataclass's setattrs.
Every other line, and every line with something to say about it, takes the full path:
these tests hold that both give the same events, states and refusals.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from buzzerbox.rules import InvalidEventError, parse_event, replay_state
from buzzerbox.rules.eventjson import _pad_fields
from buzzerbox.rules.events import PadPressed, PadReleased
from buzzerbox.rules.gamelog import fold, read_lines
from hypothesis import given
from hypothesis import strategies as st

from .test_properties import FAST

HEAD = {"type": "game", "game": "twist", "players": ["Ann", "Ben"]}
EDGE_VALUES = st.one_of(
    st.integers(-2, 9), st.booleans(), st.none(), st.floats(0, 9), st.sampled_from(["1", "pile"])
)


@FAST
@given(
    st.sampled_from(["press", "release"]),
    st.fixed_dictionaries(
        {},
        optional={
            "seat": EDGE_VALUES,
            "pad": st.sampled_from(["stop", "slap", "pile", "foot", 1]),
            "t_us": EDGE_VALUES,
            "pile": EDGE_VALUES,
        },
    ),
)
def test_a_pad_edge_is_parsed_as_its_dataclass_parses_it(kind: str, fields: dict[str, Any]) -> None:
    """The fast path against the full checks (`_pad_fields`) and the dataclass's own
    constructor: the same event, hash and refusal; and the event is frozen."""
    cls = PadPressed if kind == "press" else PadReleased
    obj = {"type": kind, **fields}
    try:
        expected = cls(*_pad_fields(obj))
    except InvalidEventError as exc:
        with pytest.raises(InvalidEventError) as refused:
            parse_event(obj)
        assert str(refused.value) == str(exc)
        return
    event = parse_event(obj)
    assert type(event) is cls
    assert event == expected
    assert hash(event) == hash(expected)
    assert repr(event) == repr(expected)
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.seat = 1  # type: ignore[misc]


def _lines(texts: list[str]) -> list[str]:
    return [json.dumps(HEAD), '{"type": "round"}', '{"type": "go", "t_us": 1}', *texts]


@pytest.mark.parametrize(
    "text",
    [
        '{"type": "press", "seat": 0, "pad": "pile", "t_us": 5, "pile": 1}',
        ' {"type": "press", "seat": 0, "pad": "pile", "t_us": 5, "pile": 1}\r\n',
        '{"type":"press","seat":0,"pad":"pile","t_us":5,"pile":1}',
        '{"type": "press", "seat": 0, "pad": "pile", "t_us": 5, "pile": 1} x',
        '{"type": "press", "seat": 0, "pad": "pile", "t_us": 05, "pile": 1}',
        '{"type": "press", "seat": 0, "pad": "pile", "t_us": 5, "pile": 1}{}',
        '{"type": "pr\\u0065ss", "seat": 0, "pad": "pile", "t_us": 5, "pile": 1}',
        '{"type": "press", "seat": 0, "pad": "pile", "t_us": 5, "pile": "\\ud800"}',
        '{"type": "press", "seat": 0, "pad": "pile", "t_us": 5, "pile": "\ud800"}',
        '{"type": "press", "seat": 0, "pad": "pile", "t_us": 5, "pile": "é"}',
        "[" * 100_000,
        "null",
        "",
        "   ",
        "\x0b",
    ],
)
def test_replay_reads_a_line_as_the_full_path_reads_it(text: str) -> None:
    """replay's own reading (str lines) against fold over read_lines (the store's path),
    and against the same lines as bytes (the CLI's), which replay reads in full."""
    lines = _lines([text, '{"type": "release", "seat": 0, "pad": "pile", "t_us": 9, "pile": 1}'])
    engine, _, rejected = fold(read_lines(lines))
    full: dict[str, Any] = dict(engine.state())
    full["rejected"] = [r.to_json() for r in rejected]
    full["rejected_count"] = len(rejected)
    assert replay_state(lines) == full
    if "\ud800" not in text:
        assert replay_state([line.encode() for line in lines]) == full
