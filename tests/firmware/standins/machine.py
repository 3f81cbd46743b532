"""A stand-in for MicroPython's `machine` on a Pico, for the firmware under the unix port.

Pins read and drive the bench's GPIO levels (benchpins); the flash unique id
comes from BUZZ_UNIQUE_ID (hex) so a test can name its board.
"""

import os

BENCH = __import__("benchpins").BENCH  # a sibling on the MicroPython path

_PADS_BANK0 = 0x4001C000
_PAD_IE = 1 << 6
_CHIP_ID = 0x40000000  # SYSINFO CHIP_ID
_RP2040_B2 = 0x10002927  # revision 1, part 2 (RP2040), manufacturer 0x927


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, gpio: int, mode: int = -1, pull: int = -1, *, value: int | None = None):
        if not 0 <= gpio < 30:
            raise ValueError("invalid pin")
        self.gpio = gpio
        self.mode = mode
        if mode == Pin.OUT and value is not None:
            BENCH.set(gpio, value)

    def value(self, level: int | None = None) -> int | None:
        if level is None:
            now: int = BENCH.level(self.gpio)
            return now
        if self.mode != Pin.OUT:
            raise ValueError(f"pin {self.gpio} is not an output")
        BENCH.set(self.gpio, 1 if level else 0)
        return None

    def toggle(self) -> None:
        self.value(1 - BENCH.level(self.gpio))

    def on(self) -> None:
        self.value(1)

    def off(self) -> None:
        self.value(0)


class _Mem32:
    """Memory as 32-bit words: keeps what was written; a pad whose input is off reads 0."""

    def __init__(self) -> None:
        self.words: dict[int, int] = {}

    def __getitem__(self, address: int) -> int:
        if address == _CHIP_ID:
            return _RP2040_B2  # this stand-in is a Pico's RP2040
        return self.words.get(address, _PAD_IE)

    def __setitem__(self, address: int, value: int) -> None:
        self.words[address] = value & 0xFFFFFFFF
        gpio = (address - _PADS_BANK0 - 4) // 4
        if address & 3 == 0 and 0 <= gpio < 30 and not value & _PAD_IE:
            BENCH.set(gpio, 0)


mem32 = _Mem32()


def unique_id() -> bytes:
    return bytes.fromhex(os.getenv("BUZZ_UNIQUE_ID") or "e66141030b2c5a21")


def freq(hz: int | None = None) -> int:
    return 125000000
