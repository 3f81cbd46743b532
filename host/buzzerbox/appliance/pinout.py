"""Where a pad's wire goes: the Pi's 40-pin header and the Pico's pins. PURE data.

The Pi header is the same on the Pi 4, Pi 5 and Zero 2 W (BCM numbering, as in
the pad map's `gpio = N`). A Pico board's input and LED *channels* are mapped to
its GP pins by the firmware; that mapping is hardware/pico-pinout.md (the
firmware's document), repeated here and checked against it by a test.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# Raspberry Pi 40-pin header --------------------------------------------------------

#: physical pin -> BCM GPIO number, for the 28 GPIOs on the header (GPIO 0-27)
PI_GPIO_PIN: Final[dict[int, int]] = {
    3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23, 18: 24,
    19: 10, 21: 9, 22: 25, 23: 11, 24: 8, 26: 7, 27: 0, 28: 1, 29: 5, 31: 6, 32: 12,
    33: 13, 35: 19, 36: 16, 37: 26, 38: 20, 40: 21,
}  # fmt: skip
#: BCM GPIO number -> physical pin
PI_HEADER_PIN: Final[dict[int, int]] = {gpio: pin for pin, gpio in PI_GPIO_PIN.items()}
PI_GROUND_PINS: Final = (6, 9, 14, 20, 25, 30, 34, 39)
PI_3V3_PINS: Final = (1, 17)
PI_5V_PINS: Final = (2, 4)

#: GPIOs a pad should not use, and why (the loader allows 0-27; this is the wiring advice)
PI_AVOID: Final[dict[int, str]] = {
    0: "ID_SD, reserved for a HAT's EEPROM",
    1: "ID_SC, reserved for a HAT's EEPROM",
    2: "I2C SDA, has a fixed 1.8 kΩ pull-up to 3V3",
    3: "I2C SCL, has a fixed 1.8 kΩ pull-up to 3V3",
    14: "UART TXD, the serial console when it is enabled",
    15: "UART RXD, the serial console when it is enabled",
}
#: GPIOs pulled up at power-on (the others are pulled down): a light on one of these
#: turns its AO3400A on and glows until the box starts, so lights go on pins 9-27
PI_PULLED_UP_AT_BOOT: Final = frozenset(range(9))
#: usable for pads: every header GPIO but the avoided ones
PI_USABLE: Final = tuple(sorted(set(PI_HEADER_PIN) - set(PI_AVOID)))


# Raspberry Pi Pico -------------------------------------------------------------------

#: GP number -> physical pin of the Pico (the 26 GPIOs on its edge)
PICO_GP_PIN: Final[dict[int, int]] = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15,
    12: 16, 13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27,
    22: 29, 26: 31, 27: 32, 28: 34,
}  # fmt: skip
PICO_GROUND_PINS: Final = (3, 8, 13, 18, 23, 28, 33, 38)
PICO_3V3_PIN: Final = 36
PICO_VBUS_PIN: Final = 40


@dataclass(frozen=True, slots=True)
class PicoLayout:
    """One of the firmware's layouts (firmware/padboard/config.py, hardware/pico-pinout.md):
    the GP of each input channel and of each LED output, by index."""

    name: str
    inputs: tuple[int, ...]
    leds: tuple[int, ...]

    def input_gp(self, ch: int) -> int | None:
        return self.inputs[ch] if 0 <= ch < len(self.inputs) else None

    def led_gp(self, ch: int) -> int | None:
        return self.leds[ch] if 0 <= ch < len(self.leds) else None

    @property
    def sync_ch(self) -> int:
        """The input channel the sync wire goes to (hardware/sync-wire.md): the last one."""
        return len(self.inputs) - 1


#: the firmware's layouts, by the channel count a board says in HELLO
PICO_LAYOUTS: Final[dict[int, PicoLayout]] = {
    24: PicoLayout("pads24", (*range(23), 26), (27, 28)),
    12: PicoLayout("pads12", tuple(range(12)), (*range(12, 23), 26)),
}
#: GP25 is the firmware's clock probe (the Pico's own LED); GP23, GP24, GP29 are internal
PICO_PROBE_GP: Final = 25


def pico_layout(channels: int | None) -> PicoLayout | None:
    """The layout of a board that says `channels` in HELLO (the pad map's `channels`)."""
    return PICO_LAYOUTS.get(channels) if channels is not None else None


# The sync wire -----------------------------------------------------------------------

#: the Pi GPIO that pulses the sync wire: header pin 26, beside GND on pin 25, and
#: pulled up at power-on like the line's idle level
SYNC_GPIO: Final = 7
