"""`doctor --lamps`, the power-on self-test and the pad map's [test_line] refusals."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from buzzerbox.appliance.lamps import lamp_test
from buzzerbox.pads.errors import PadMapError
from buzzerbox.pads.fakes.padboard import FakeBoard
from buzzerbox.pads.fakes.port import FakeBoardPort
from buzzerbox.pads.padmap import parse_pad_map
from buzzerbox.pads.selftest import SelfTest
from buzzerbox.pads.timeline.arbiter import Edge

MAP = """seats = 2
[[board]]
id = "pico-a"
alias = "a"
channels = 24
sync = 23
[[pad]]
id = "north"
role = "slap"
seat = 0
board = "a"
ch = 0
light_ch = 0
[[pad]]
id = "south"
role = "slap"
seat = 1
board = "a"
ch = 1
light_ch = 1
"""


@pytest.fixture
def port() -> Iterator[FakeBoardPort]:
    p = FakeBoardPort(FakeBoard("pico-a", channels=24)).start()
    yield p
    p.close()


def test_each_lamp_is_lit_in_turn_and_presses_show(port: FakeBoardPort) -> None:
    pad_map = parse_pad_map(MAP)
    lit: list[dict[int, bool]] = []
    port.press(1, after_us=400_000)
    out = io.StringIO()
    assert lamp_test(pad_map, [port.url], None, out, seconds=1.2, step_s=0.3)
    lit.append(dict(port.board.leds))
    text = out.getvalue()
    assert "lamp of north (slap of seat 0): board a led 0: ON" in text
    assert "lamp of south (slap of seat 1): board a led 1: ON" in text
    assert "pads pressed at the end: south" in text
    assert lit[0] == {0: False, 1: False}  # every lamp told, and dark at the end


def test_a_map_without_lamps_says_so() -> None:
    out = io.StringIO()
    assert not lamp_test(parse_pad_map("seats = 1\n"), [], None, out, seconds=0.1)
    assert "gives no pad a light" in out.getvalue()


def test_the_self_test_says_each_problem_in_words() -> None:
    pad_map = parse_pad_map(MAP)
    test = SelfTest(pad_map)
    assert test.problems({}) == [
        "board a did not answer HELLO: plugged in, with the buzzerbox firmware? (buzzerbox doctor)"
    ]
    assert "its clock did not map" in test.problems({"pico-a": None})[0]
    test.take(Edge("pico-a", 1, "south", 1, 10))
    (held,) = test.problems({"pico-a": "sync"})
    assert held.startswith("pad south (slap of seat 1, board pico-a ch 1) reads pressed")
    test.take(Edge("pico-a", 1, "south", 0, 20))
    assert test.problems({"pico-a": "wire"}) == []


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ("gpio = 16\nboards = { a = 23 }", "is its sync channel"),
        ("gpio = 16\nboards = { a = 0 }", "channel 0 is used twice: by the test line"),
        ("gpio = 16\nboards = { z = 3 }", "board 'z' is not declared"),
        ("gpio = 16\ngpio_in = 16", "is the line's output"),
        ("boards = { a = 3 }", "gpio is missing"),
        ("gpio = 16\nboards = { a = 24 }", "it must be a whole number 0-23"),
    ],
)
def test_a_bad_test_line_is_refused_in_words(table: str, words: str) -> None:
    with pytest.raises(PadMapError, match=words):
        parse_pad_map(MAP + "[test_line]\n" + table + "\n")


def test_a_test_line_input_on_a_pull_down_header_is_refused() -> None:
    with pytest.raises(PadMapError, match='gpio_in needs \\[gpio\\] pull = "up"'):
        parse_pad_map('seats = 1\n[gpio]\npull = "down"\n[test_line]\ngpio = 16\ngpio_in = 20\n')
