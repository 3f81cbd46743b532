"""Reading a pad map's TOML tables: each value checked, each refusal naming its line.

`TableReader` is what every table of the map is read with (load.py reads the map,
testline.py its [test_line]): a table's keys, a whole number in a range, a protocol
name, a GPIO pin; a refusal is a PadMapError that names the file, the line (or the
entry) and what is allowed. `Where` is one entry of the map, to name in messages.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from buzzerbox.pads.errors import PadMapError
from buzzerbox.pads.padmap.tomllines import TomlLines

GPIO_PINS: Final = range(28)
_NAME = re.compile(r"[\x21-\x29\x2b-\x7e]+")  # a protocol field: printable, no '*' or space


class TableReader:
    """Checks the values of the parsed TOML, finding lines in the text for the messages."""

    def __init__(self, text: str, name: str) -> None:
        self.name = name
        self.where = TomlLines(text)

    def line(self, header: str | None, index: int = 0, key: str | None = None) -> int | None:
        return self.where.line(header, index, key)

    def fail(self, msg: str, line: int | None, entry: str | None = None) -> PadMapError:
        if line is not None:
            return PadMapError(f"{self.name} line {line}: {msg}")
        if entry is not None:
            return PadMapError(f"{self.name}, {entry}: {msg}")
        return PadMapError(f"{self.name}: {msg}")

    def whole(self, table: Mapping[str, Any], key: str, lo: int, hi: int, where: Where) -> int:
        value = table[key]
        if type(value) is not int or not lo <= value <= hi:
            raise where.fail(
                key, f"{key} {value!r} is not allowed: it must be a whole number {lo}-{hi}"
            )
        return value

    def text(self, table: Mapping[str, Any], key: str, where: Where) -> str:
        value = table[key]
        if not isinstance(value, str) or not _NAME.fullmatch(value):
            raise where.fail(
                key, f"{key} {value!r} is not allowed: it must be printable text, no spaces or '*'"
            )
        return value

    def table(self, value: object, header: str, index: int, entry: str) -> Where:
        where = Where(self, header, index, entry)
        if not isinstance(value, dict):
            raise where.fail(None, f"{entry} must be a table, not {value!r}")
        return where

    def keys(
        self, table: Mapping[str, Any], allowed: tuple[str, ...], what: str, where: Where
    ) -> None:
        for key in table:
            if key not in allowed:
                raise where.fail(
                    key, f"key {key!r} is not allowed in {what}: allowed are {', '.join(allowed)}"
                )

    def pin(self, raw: Mapping[str, Any], key: str, where: Where) -> int:
        pin = raw[key]
        if type(pin) is not int or pin not in GPIO_PINS:
            raise where.fail(key, f"pin {pin!r} does not exist: GPIO pins are 0-{GPIO_PINS[-1]}")
        return pin


class Where:
    """One entry of the map, to name in messages: its line, or its number."""

    def __init__(
        self, reader: TableReader, header: str | None, index: int, entry: str | None
    ) -> None:
        self.reader, self.header, self.index, self.entry = reader, header, index, entry

    def line(self, key: str | None = None) -> int | None:
        return self.reader.line(self.header, self.index, key)

    def fail(self, key: str | None, msg: str) -> PadMapError:
        return self.reader.fail(msg, self.line(key), self.entry)
