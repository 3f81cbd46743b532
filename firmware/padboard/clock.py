"""The board clock: the PIO's 32-bit down-counter unwrapped into 64-bit ticks.

PURE: no machine, rp2 or time.

The edge timer (pio.py) starts its counter X at 0 and takes one from it every
tick, so a word it pushes holds (-ticks) mod 2**32. Words arrive in the order
the PIO pushed them, and the board sees at least one every TICK_MS (the clock
probe), far less than the 2**30 ticks (17 minutes at 1 MHz) after which two
readings could not be told apart. Only the low 30 bits are used: on the Pico
they stay small ints (MicroPython's are 31-bit), which costs no allocation.
"""

from padboard.native import micropython

MASK30 = 0x3FFFFFFF


class CounterClock:
    """Turns counter readings, fed in order, into ticks since the counter started."""

    def __init__(self):
        self.now = 0  # the latest time seen, in ticks
        self.low = 0  # its low 30 bits (PadBoard.feed_ticks advances it inline)

    def unwrap(self, counter):
        """The 64-bit time of a counter reading not older than the last one fed."""
        return self.advance((-counter) & MASK30)

    @micropython.native
    def advance(self, low):
        """The 64-bit time of a reading given as ticks mod 2**30 (`fast.copy_pairs`)."""
        self.now += (low - self.low) & MASK30
        self.low = low
        return self.now
