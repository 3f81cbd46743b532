"""The pad map's ``[test_line]`` table, read and checked (load.py reads the rest).

The self-test line (hardware/self-test.md) runs from one Pi output (`gpio`) to a spare
input of every board (`boards`: board id or alias = channel) and, with `gpio_in`, to a
Pi input: the direct-GPIO path. `buzzerbox doctor --fairness` pulses it and measures
how far apart the box puts one pulse on every input. Its pins and channels are never a
pad's: load.py claims them (`_unique`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from buzzerbox.pads.padmap.reading import TableReader
from buzzerbox.pads.padmap.spec import BoardSpec, GpioSettings, TestLine

TEST_KEYS: Final = ("gpio", "gpio_in", "boards")


def read_test_line(
    reader: TableReader, raw: object, boards: Mapping[str, BoardSpec], gpio: GpioSettings
) -> TestLine:
    where = reader.table(raw, "[test_line", 0, "[test_line]")
    assert isinstance(raw, dict)
    reader.keys(raw, TEST_KEYS, "[test_line]", where)
    if "gpio" not in raw:
        raise where.fail(None, "gpio is missing: name the Pi's output pin that pulses the line")
    out = reader.pin(raw, "gpio", where)
    gpio_in = reader.pin(raw, "gpio_in", where) if "gpio_in" in raw else None
    if gpio_in == out:
        raise where.fail(
            "gpio_in",
            f"gpio_in {gpio_in} is the line's output (gpio = {out}): wire the line to another pin",
        )
    if gpio_in is not None and gpio.pull != "up":
        raise where.fail(
            "gpio_in",
            'gpio_in needs [gpio] pull = "up": the test line idles high and a pulse pulls '
            "it low, as a pad to GND does",
        )
    table = raw.get("boards", {})
    if not isinstance(table, dict):
        raise where.fail("boards", "boards must be a table: boards = { BOARD = CH, ... }")
    channels: dict[str, int] = {}
    for name in table:
        spec = boards.get(name)
        if spec is None:
            known = ", ".join(boards) or "none"
            raise where.fail("boards", f"board {name!r} is not declared: boards are {known}")
        if spec.id in channels:
            raise where.fail("boards", f"board {spec.name} is named twice in boards")
        limit = (spec.channels or 1024) - 1
        ch = table[name]
        if type(ch) is not int or not 0 <= ch <= limit:
            raise where.fail(
                "boards",
                f"board {name} channel {ch!r} is not allowed: it must be a whole number 0-{limit}",
            )
        if ch == spec.sync:
            raise where.fail(
                "boards",
                f"board {name} channel {ch} is its sync channel: the test line needs a "
                "spare input of its own",
            )
        channels[spec.id] = ch
    return TestLine(out, gpio_in, channels)
