"""The Picos plugged into this machine: its USB serial ports of vendor 0x2E8A (Raspberry
Pi: Pico, Pico W, Pico 2), found by pyserial's `serial.tools.list_ports`.

`buzzerbox firmware install` with no port takes the one Pico there is, and refuses
when there are several (mpremote's `auto` would take the first it finds: maybe not
the board meant), listing them so that one can be named.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from buzzerbox.errors import PicoChoiceError

PICO_VID = 0x2E8A  # Raspberry Pi (Pico, RP2040, RP2350)

#: the serial ports as `serial.tools.list_ports.comports` gives them
Comports = Callable[[], Iterable[Any]]


def system_comports() -> Iterable[Any]:
    from serial.tools import list_ports

    return list_ports.comports()


def plugged_picos(comports: Comports = system_comports) -> list[Any]:
    """The ports of the Picos plugged in, by device path."""
    return sorted((p for p in comports() if p.vid == PICO_VID), key=lambda p: str(p.device))


def describe(port: Any) -> str:
    serial_no = f", serial {port.serial_number}" if port.serial_number else ""
    return f"{port.device} ({port.description}{serial_no})"


def the_one_pico(comports: Comports = system_comports) -> str | None:
    """The device of the one Pico plugged in; None if there is none (mpremote then
    looks for itself); PicoChoiceError if there are several."""
    found = plugged_picos(comports)
    if len(found) > 1:
        raise PicoChoiceError(
            f"{len(found)} Picos are plugged in: {'; '.join(describe(p) for p in found)}. "
            f"Name the one to install, e.g. buzzerbox firmware install {found[0].device}"
        )
    return str(found[0].device) if found else None
