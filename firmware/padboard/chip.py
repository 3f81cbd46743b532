"""Which chip the firmware runs on: the viper code that reads the RP2040's
registers (fast.py) runs only on one.

Hardware glue: it reads the chip's SYSINFO through machine.
"""

import sys

import machine

_CHIP_ID = 0x40000000  # SYSINFO CHIP_ID, the same address on RP2040 and RP2350


def on_pico(fast):
    """`fast` (a viper function reading the RP2040's registers) may run here."""
    return fast is not None and sys.platform == "rp2" and is_rp2040()


def is_rp2040():
    """The chip is an RP2040 (SYSINFO CHIP_ID: part 2, manufacturer 0x927).

    The pad registers app.Pins writes are the RP2040's; an RP2350 (Pico 2) keeps
    them elsewhere, so there the inputs are left as they are."""
    return machine.mem32[_CHIP_ID] & 0x0FFFFFFF == 0x0002927
