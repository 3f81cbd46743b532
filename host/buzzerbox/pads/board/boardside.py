"""Board link protocol v1, the board's side, for the emulator: the firmware's own code.

A pad board reads host lines and refuses bad ones with ERR codes (1 a bad frame, 2 a
line too long, 3 an unknown command, 4 bad fields, 5 no such output, 6 out of range;
firmware/board-protocol.md, firmware/README.md). The emulator (fakes/padboard.py) must
answer exactly as the Pico does, so it does not rewrite that logic: it runs the
firmware's pure modules, `padboard/protocol.py` (line reader, command parser, ERR
codes) and `padboard/config.py` (the DEBOUNCE range), loaded from the firmware that
ships in this package (buzzerbox/firmware). They import nothing and run under
CPython as under MicroPython. tests/pads/test_boardside.py runs one protocol script
against the emulator and the firmware.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Final

from buzzerbox.errors import FirmwareMissingError
from buzzerbox.pads.errors import CommandRefusedError

FIRMWARE: Final = Path(str(importlib.resources.files("buzzerbox") / "firmware"))


def firmware_module(name: str) -> ModuleType:
    """The firmware's pure module padboard/`name`.py, loaded as a private module."""
    path = FIRMWARE / "padboard" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"buzzerbox.pads._padboard_{name}", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise FirmwareMissingError(
            f"the firmware's padboard/{name}.py is not in {FIRMWARE}: reinstall buzzerbox"
        )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_protocol: Final = firmware_module("protocol")
_config: Final = firmware_module("config")

ERR_FRAME: Final[int] = _protocol.ERR_FRAME
ERR_TOO_LONG: Final[int] = _protocol.ERR_TOO_LONG
ERR_UNKNOWN: Final[int] = _protocol.ERR_UNKNOWN
ERR_ARGS: Final[int] = _protocol.ERR_ARGS
ERR_NO_OUTPUT: Final[int] = _protocol.ERR_NO_OUTPUT
ERR_RANGE: Final[int] = _protocol.ERR_RANGE
ERR_BUSY: Final[int] = _protocol.ERR_BUSY
ERR_INTERNAL: Final[int] = _protocol.ERR_INTERNAL
#: DEBOUNCE takes 0 up to this many µs
DEBOUNCE_MAX_US: Final[int] = _config.DEBOUNCE_MAX_US

#: a command as the firmware parses it: its name, then its fields as unsigned ints
Command = tuple[str | int, ...]


class LineReader:
    """Host bytes in, lines out, as the board reads them (at most 128 bytes held)."""

    def __init__(self) -> None:
        self._reader = _protocol.LineReader()

    def feed(self, data: bytes) -> list[bytes | None]:
        """Every line that `data` completes (without "\\r\\n"); None for a line that was
        too long and was dropped (the board answers ERR_TOO_LONG)."""
        lines: list[bytes | None] = []
        for byte in data:
            line = self._reader.feed(byte)
            if line is _protocol.TOO_LONG:
                lines.append(None)
            elif line is not None:
                lines.append(bytes(line))
        return lines


def parse_command(line: bytes) -> Command:
    """A host line (without "\\r\\n") as the firmware reads it; CommandRefusedError if not."""
    try:
        command: Command = _protocol.parse_command(line)
    except _protocol.CommandError as e:
        raise CommandRefusedError(int(e.code), str(e.text)) from None
    return command


def too_long() -> CommandRefusedError:
    return CommandRefusedError(ERR_TOO_LONG, f"line too long: at most {_protocol.MAX_LINE} bytes")


def check_led(output: int, level: int, outputs: int) -> None:
    """`LED output level` on a board with `outputs` lights (CommandRefusedError if not)."""
    if output >= outputs:
        allowed = (
            f"this board has outputs 0-{outputs - 1}" if outputs else "this board has no outputs"
        )
        raise CommandRefusedError(ERR_NO_OUTPUT, f"output {output} does not exist: {allowed}")
    if level > 1:
        raise CommandRefusedError(ERR_RANGE, f"LED level {level} is out of range: 0 or 1")


def check_debounce(us: int) -> None:
    if us > DEBOUNCE_MAX_US:
        said = f"DEBOUNCE {us} us is out of range: 0-{DEBOUNCE_MAX_US}"
        raise CommandRefusedError(ERR_RANGE, said)
