"""A box whose config is wrong says so at start-up and exits non-zero: one line on
stderr naming the file, the thing and what is allowed; no traceback, no half-started box
with pads nobody reads. (A board that is only unplugged at start is no config error:
the box starts and takes it when it comes, see test_unplug.py.)"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from buzzerbox.pads.pifactory import pi_model

from .boxproc import ServedBox, serve_command, write_config

BOARD = '[[board]]\nid = "pico-a"\nurl = "socket://127.0.0.1:9"\n'
PAD = '[[pad]]\nrole = "stop"\nseat = {seat}\nboard = "{board}"\nch = {ch}\n'
STOPS = PAD.format(seat=0, board="pico-a", ch=0) + PAD.format(seat=1, board="pico-a", ch=1)

CASES = {
    "unknown pin": (
        'seats = 1\n[[pad]]\nrole = "stop"\nseat = 0\ngpio = 40\n',
        "map.toml line 5: pin 40 does not exist: GPIO pins are 0-27",
    ),
    "pad used twice": (
        "seats = 2\n" + BOARD + STOPS + PAD.format(seat=1, board="pico-a", ch=0),
        "board pico-a channel 0 is used twice: by stop of seat 0 (line 5) and stop of seat 1",
    ),
    "pad id used twice": (
        "seats = 2\n" + BOARD + STOPS.replace('role = "stop"', 'id = "stop"\nrole = "stop"'),
        "pad id 'stop' is used twice",
    ),
    "undeclared board": (
        "seats = 2\n" + BOARD + PAD.format(seat=0, board="pico-b", ch=0),
        "board 'pico-b' is not declared: boards are pico-a",
    ),
    "board without an address": (
        'seats = 2\n[[board]]\nid = "pico-a"\n' + STOPS,
        "board 'pico-a' has no url",
    ),
    "no map": (None, "map.toml' cannot be read"),
}


def refused_at_start(data: Path, config: Path) -> tuple[int, list[str]]:
    """The exit code and stderr of a serve that must not start; fails if it does."""
    process = subprocess.Popen(
        serve_command(data, config=config),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    served = ServedBox(process, data)
    try:
        served.wait_started()
    except RuntimeError:
        served.kill()
        return process.returncode, list(served.tail)
    served.kill()
    pytest.fail(f"serve started with a wrong config; it said {list(served.tail)}")


@pytest.mark.parametrize("case", CASES)
def test_a_wrong_pad_map_stops_the_box_at_start(case: str, data: Path) -> None:
    pad_map, expected = CASES[case]
    if pad_map is not None:
        (data.parent / "map.toml").write_text(pad_map)
    config = write_config(data.parent, '[pads]\nmap = "map.toml"\n')
    code, stderr = refused_at_start(data, config)
    assert code not in (0, -9)
    assert len(stderr) == 1 and stderr[0].startswith("buzzerbox serve: "), stderr
    assert expected in stderr[0]


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ("colour = 'red'\n", "box.toml: unknown keys colour"),
        ("max_phones = 'many'\n", "max_phones 'many'"),
        ("countdown_s = 'soon'\n", "countdown_s 'soon'"),
        ("phone_offline_s = 0\n", "phone_offline_s 0 is not allowed: it is seconds, above 0"),
        ("fanout_threads = 0\n", "fanout_threads 0 is not allowed: it is 1 to 8"),
        ("fanout_threads = 2.5\n", "fanout_threads 2.5"),
        ("[pads]\nboards = ['/dev/ttyACM0']\n", '[pads] needs map = "<pad map file>"'),
        ('[pads]\nmap = "map.toml"\nspeed = 3\n', "[pads]: unknown keys speed"),
        ("countdown_s = \n", "box.toml: "),
    ],
)
def test_a_wrong_config_stops_the_box_at_start(config: str, expected: str, data: Path) -> None:
    (data.parent / "map.toml").write_text("seats = 1\n")
    code, stderr = refused_at_start(data, write_config(data.parent, config))
    assert code not in (0, -9)
    assert len(stderr) == 1 and stderr[0].startswith("buzzerbox serve: "), stderr
    assert expected in stderr[0]


@pytest.mark.skipif(pi_model() is not None, reason="this machine has GPIO")
def test_gpio_pads_without_gpio_stop_the_box_at_start(data: Path) -> None:
    (data.parent / "map.toml").write_text(
        'seats = 1\n[[pad]]\nrole = "stop"\nseat = 0\ngpio = 17\n'
    )
    code, stderr = refused_at_start(data, write_config(data.parent, '[pads]\nmap = "map.toml"\n'))
    assert code not in (0, -9)
    assert len(stderr) == 1 and "GPIO pads need a Raspberry Pi" in stderr[0], stderr
