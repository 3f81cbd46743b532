"""How deep a log line may nest is the log's own limit (rules/log.py MAX_DEPTH), not
the parser's: Python 3.11 gives up at about 1,000 levels, 3.13 at about 10,000, and a
line refused on one must be refused on the other."""

from __future__ import annotations

from buzzerbox.rules.gamelog import MAX_DEPTH, Unreadable, read_lines


def nested(levels: int) -> str:
    """A `round` line whose note nests `levels` deep below the line's object."""
    return '{"type": "round", "note": ' + "[" * levels + "]" * levels + "}"


def test_a_line_at_the_limit_is_read() -> None:
    [(number, obj)] = read_lines([nested(MAX_DEPTH)])
    assert number == 1
    assert isinstance(obj, dict) and obj["type"] == "round"


def test_a_line_one_level_deeper_is_refused_on_every_python() -> None:
    for levels in (MAX_DEPTH + 1, 200, 5_000, 20_000):  # under and over both parsers' limits
        [(_, obj)] = read_lines([nested(levels)])
        assert isinstance(obj, Unreadable), levels
        assert f"nests too deep to read (over {MAX_DEPTH} levels)" in obj.reason


def test_brackets_inside_a_text_are_no_nesting() -> None:
    note = "[" * (MAX_DEPTH * 3)
    [(_, obj)] = read_lines(['{"type": "round", "note": "' + note + '"}'])
    assert isinstance(obj, dict) and obj["note"] == note
