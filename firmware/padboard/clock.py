"""The board clock: the PIO's 32-bit down-counter unwrapped into 64-bit ticks.

PURE: no machine, rp2 or time.

The edge timer (pio.py) starts its counter X at 0 and takes one from it every
tick, so a word it pushes holds (-ticks) mod 2**32. Words arrive in the order
the PIO pushed them, and the board sees at least one every 100 ms (the clock
probe of an idle TICK, probes.IDLE_TICK_MS), far less than the 2**30 ticks
(17 minutes at 1 MHz) after which two readings could not be told apart. Only the low 30 bits are used: on the Pico
they stay small ints (MicroPython's are 31-bit), which costs no allocation.
"""

from padboard.native import micropython
from padboard.state import LOW30, NOW_LO, get_time, new_state, set_time

MASK30 = 0x3FFFFFFF


class CounterClock:
    """Turns counter readings, fed in order, into ticks since the counter started.

    Its time is kept in the board's state (state.py), which the fast path
    (fast.py) advances too."""

    def __init__(self, state=None):
        self._state = new_state() if state is None else state

    @property
    def now(self):
        """The latest time seen, in ticks."""
        return get_time(self._state, NOW_LO)

    @property
    def low(self):
        """Its low 30 bits."""
        return self._state[LOW30]

    def unwrap(self, counter):
        """The 64-bit time of a counter reading not older than the last one fed."""
        return self.advance((-counter) & MASK30)

    @micropython.native
    def advance(self, low):
        """The 64-bit time of a reading given as ticks mod 2**30 (`fast.copy_pairs`)."""
        state = self._state
        now = get_time(state, NOW_LO) + ((low - state[LOW30]) & MASK30)
        set_time(state, NOW_LO, now)
        state[LOW30] = low
        return now
