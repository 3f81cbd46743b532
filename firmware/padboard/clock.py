"""The board clock: the PIO's 32-bit down-counter unwrapped into 64-bit ticks.

PURE: no machine, rp2 or time.

The edge timer (pio.py) starts its counter X at 0 and takes one from it every
tick, so a word it pushes holds (-ticks) mod 2**32. Words arrive in the order
the PIO pushed them, and the board sees at least one every TICK_MS (the clock
probe), far less than the 2**32 ticks (71 minutes at 1 MHz) after which two
readings could not be told apart.
"""

MASK32 = 0xFFFFFFFF


class CounterClock:
    """Turns counter readings, fed in order, into ticks since the counter started."""

    def __init__(self):
        self.now = 0  # the latest time seen, in ticks

    def unwrap(self, counter):
        """The 64-bit time of a counter reading not older than the last one fed."""
        elapsed = (-counter) & MASK32
        self.now += (elapsed - self.now) & MASK32
        return self.now
