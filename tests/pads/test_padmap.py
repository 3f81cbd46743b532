"""The pad map: the examples load; every refusal names the line and what is allowed."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import buzzerbox.pads
import pytest
from buzzerbox.pads.commands import add_commands
from buzzerbox.pads.errors import PadMapError
from buzzerbox.pads.pad import Pad
from buzzerbox.pads.padmap import ROLES, load_pad_map, parse_pad_map
from buzzerbox.rules.events import PADS

EXAMPLES = Path(buzzerbox.pads.__file__).parent / "examples"

BASE = """\
seats = 2
piles = 2

[[board]]
id = "pico-a"
url = "socket://127.0.0.1:7000"
channels = 8

[[pad]]
id = "a-slap"
role = "slap"
seat = 0
gpio = 17

[[pad]]
role = "pile"
seat = 1
pile = 1
board = "pico-a"
ch = 3
light_ch = 3
"""


def refusal(text: str) -> str:
    with pytest.raises(PadMapError) as exc:
        parse_pad_map(text, name="m.toml")
    return str(exc.value)


def run_cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="buzzerbox")
    add_commands(parser.add_subparsers())
    args: Any = parser.parse_args(argv)
    code: int = args.func(args)
    return code


def test_roles_are_the_game_logs_pad_names() -> None:
    assert ROLES == PADS


def test_a_map_reads() -> None:
    pad_map = parse_pad_map(BASE)
    assert pad_map.seats == 2 and pad_map.piles == 2
    assert pad_map.pads == (
        Pad("a-slap", "slap", 0, "gpio", 17, line=9),
        Pad("pico-a:3", "pile", 1, "pico-a", 3, pile=1, light_ch=3, line=15),
    )
    assert pad_map.at("pico-a", 3) == pad_map.pad("pico-a:3")
    assert pad_map.board("pico-a") is not None and pad_map.gpio_pads == pad_map.pads[:1]


@pytest.mark.parametrize("name", ["twinit-gpio.toml", "twist-boards.toml"])
def test_examples_load(name: str) -> None:
    pad_map = load_pad_map(EXAMPLES / name)
    assert pad_map.pads


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("gpio = 17", "gpio = 40"), "line 13: pin 40 does not exist: GPIO pins are 0-27"),
        (
            ('role = "slap"', 'role = "slpa"'),
            "line 11: role 'slpa' is not a pad role: roles are stop, slap, pile",
        ),
        (("seat = 1", "seat = 2"), "line 17: seat 2 does not exist: this map has seats 0-1"),
        (("pile = 1", "pile = 5"), "line 18: pile 5 does not exist: this map has piles 0-1"),
        (
            ('board = "pico-a"\nch', 'board = "pico-b"\nch'),
            "line 19: board 'pico-b' is not declared: boards are pico-a",
        ),
        (("ch = 3", "ch = 8"), "line 20: ch 8 is not allowed: it must be a whole number 0-7"),
        (
            ("seats = 2", "seats = 0"),
            "line 1: seats 0 is not allowed: it must be a whole number 1-12",
        ),
        (("seat = 0", "seat = true"), "line 12: seat True does not exist"),
        (
            ("seat = 0", "seat = 0\ncolour = 'red'"),
            "line 13: key 'colour' is not allowed in a [[pad]]",
        ),
        (("gpio = 17", 'gpio = 17\nboard = "pico-a"'), "line 9: say where the pad is: either gpio"),
        (("seats = 2\n", ""), "seats is missing"),
        (
            ("channels = 8", "channels = 8\nid2 = 1"),
            "line 8: key 'id2' is not allowed in a [[board]]",
        ),
        (
            ('role = "slap"', 'role = "slap"\npile = 0'),
            "line 12: pile 0 is not allowed: only a pile pad has a pile",
        ),
        (
            ("light_ch = 3\n", "light_ch = 3\n[gpio]\npull = 'left'\n"),
            "line 23: pull 'left' is not allowed: it must be 'up' or 'down'",
        ),
        (("seats = 2", "seats = = 2"), "m.toml: not valid TOML"),
    ],
)
def test_refusals_name_the_line_and_what_is_allowed(change: tuple[str, str], message: str) -> None:
    old, new = change
    assert old in BASE
    assert message in refusal(BASE.replace(old, new, 1))


def test_pin_used_twice_names_both() -> None:
    text = BASE + '\n[[pad]]\nrole = "stop"\nseat = 1\ngpio = 17\n'
    assert refusal(text) == (
        "m.toml: pin 17 is used twice: by slap of seat 0 (line 9) and stop of seat 1 (line 23)"
    )


def test_light_on_an_input_pin_and_channels_twice() -> None:
    text = BASE + '\n[[pad]]\nrole = "stop"\nseat = 1\ngpio = 4\nlight_gpio = 17\n'
    assert "pin 17 is used twice: by slap of seat 0 (line 9) and the light of stop" in refusal(text)
    text = BASE + '\n[[pad]]\nrole = "stop"\nseat = 0\nboard = "pico-a"\nch = 3\n'
    assert "board pico-a channel 3 is used twice: by pile 1 of seat 1 (line 15)" in refusal(text)
    text = BASE + '\n[[pad]]\nid = "a-slap"\nrole = "stop"\nseat = 0\ngpio = 4\n'
    assert "pad id 'a-slap' is used twice" in refusal(text)


def test_inline_pads_are_named_by_entry() -> None:
    text = (
        'seats = 2\npad = [{role = "slap", seat = 0, gpio = 3}, '
        '{role = "slap", seat = 5, gpio = 4}]\n'
    )
    assert refusal(text) == "m.toml, pad 2: seat 5 does not exist: this map has seats 0-1"


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(PadMapError, match="cannot be read"):
        load_pad_map(tmp_path / "nope.toml")


def test_pads_command_lists_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.toml"
    path.write_text(BASE)
    assert run_cli("pads", str(path)) == 0
    out = capsys.readouterr().out
    assert "seats 0-1, piles 0-1, 2 pads" in out
    assert "board pico-a: socket://127.0.0.1:7000" in out
    assert "a-slap    gpio 17      slap  0     -     -" in out
    assert "pico-a:3  pico-a ch 3  pile  1     1     pico-a led 3" in out


def test_pads_command_refuses_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.toml"
    path.write_text(BASE.replace("seat = 1", "seat = 3"))
    assert run_cli("pads", str(path)) == 2
    assert "line 17: seat 3 does not exist: this map has seats 0-1" in capsys.readouterr().err


def test_the_sync_wire_in_the_map() -> None:
    text = BASE.replace("channels = 8\n", "channels = 8\nsync = 7\n") + "\n[sync]\ngpio = 7\n"
    pad_map = parse_pad_map(text)
    board = pad_map.board("pico-a")
    assert board is not None and board.sync == 7 and pad_map.sync_gpio == 7
    assert parse_pad_map(BASE).sync_gpio is None and parse_pad_map(BASE).boards[0].sync is None
    assert pad_map.channels_problem("pico-a", 8) is None


def test_a_board_with_its_sync_wire_past_its_last_channel_is_warned_about() -> None:
    text = (
        'seats = 1\n[[board]]\nid = "pico-e6614103e7000001"\nalias = "a"\nsync = 23\n'
        '[[pad]]\nrole = "stop"\nseat = 0\nboard = "a"\nch = 0\n'
    )
    pad_map = parse_pad_map(text)
    assert pad_map.board("a") is pad_map.board("pico-e6614103e7000001")
    assert pad_map.channels_problem("pico-e6614103e7000001", 24) is None
    assert pad_map.channels_problem("pico-e6614103e7000001", 12) == (
        "board a has 12 input channels (layout pads12), but the pad map puts its sync wire "
        "on ch 23: flash it with `buzzerbox firmware install PORT --layout pads24`, or set "
        "sync to a channel 0-11"
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ("channels = 8\n", "channels = 8\nsync = 3\n"),
            "line 21: board pico-a channel 3 is its sync channel (sync = 3): a sync channel "
            "is never a pad; wire the pad to another channel",
        ),
        (
            ("channels = 8\n", "channels = 8\nsync = 8\n"),
            "line 8: sync 8 is not allowed: it must be a whole number 0-7",
        ),
        (
            ("channels = 8\n", "channels = 8\n[sync]\ngpio = 17\n"),
            "pin 17 is used twice: by the sync wire ([sync] gpio) and slap of seat 0 (line 11)",
        ),
        (
            ("channels = 8\n", "channels = 8\n[sync]\ngpio = 30\n"),
            "line 9: pin 30 does not exist: GPIO pins are 0-27",
        ),
        (
            ("channels = 8\n", "channels = 8\n[sync]\npin = 7\n"),
            "line 9: key 'pin' is not allowed in [sync]: allowed are gpio",
        ),
    ],
)
def test_sync_refusals(change: tuple[str, str], message: str) -> None:
    old, new = change
    assert message in refusal(BASE.replace(old, new, 1))


def test_a_board_alias_makes_a_new_board_id_a_one_line_change() -> None:
    text = (
        "seats = 2\n"
        '[[board]]\nid = "pico-e6614103e7000001"\nalias = "left"\nchannels = 24\n'
        '[[pad]]\nrole = "stop"\nseat = 0\nboard = "left"\nch = 0\nlight_ch = 0\n'
        '[[pad]]\nrole = "stop"\nseat = 1\nboard = "pico-e6614103e7000001"\nch = 1\n'
    )
    pad_map = parse_pad_map(text)
    assert [p.board for p in pad_map.pads] == ["pico-e6614103e7000001"] * 2
    assert [p.id for p in pad_map.pads] == ["pico-e6614103e7000001:0", "pico-e6614103e7000001:1"]
    assert pad_map.board("left") is pad_map.board("pico-e6614103e7000001") is pad_map.boards[0]
    assert pad_map.board_name("pico-e6614103e7000001") == "left"
    assert len(pad_map.boards) == 1
    by_alias = text.replace('board = "pico-e6614103e7000001"', 'board = "left"')
    renamed = parse_pad_map(by_alias.replace('id = "pico-e6614103e7000001"', 'id = "pico-ab12"'))
    assert renamed.pads[0].board == "pico-ab12" and renamed.pads[0].light == "pico-ab12 led 0"
    with pytest.raises(
        PadMapError, match=r"line 18: board 'left' is declared twice \(first at line 2\)"
    ):
        parse_pad_map(text + '[[board]]\nid = "left"\n')
    with pytest.raises(PadMapError, match="alias 'gpio' is not allowed"):
        parse_pad_map('seats = 1\n[[board]]\nid = "b"\nalias = "gpio"\n')
    with pytest.raises(PadMapError, match="board 'right' is not declared: boards are"):
        parse_pad_map(text + '[[pad]]\nrole = "stop"\nseat = 1\nboard = "right"\nch = 2\n')
