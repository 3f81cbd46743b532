"""Leading-edge debounce: the first edge of a burst is kept, with its own time.

PURE: no machine, rp2 or time. Times are board ticks (ints), fed in order.

A channel whose level changes outside its lockout reports the change at once,
stamped with the time the PIO saw it, and is then locked for `window` ticks:
changes inside the lock (the bounce) are not reported. When the lock ends, the
channel's level is checked again: if it settled away from what was last
reported (a tap shorter than the window), that change is reported stamped with
the end of the lock, and a new lock starts there. So every reported edge is
true to the level the pad settled at, times never go backwards, and a deferred
edge is reported as soon as the board knows the time has passed the lock's end
(the next input change or clock probe, at most TICK_MS later).
"""


from padboard.native import micropython
from padboard.state import DUE_LO, HAS_DUE, RAW, REP, UNTIL, WIN, get_time, new_state, set_time


class Debouncer:
    """Debounces `channels` inputs; reports edges through `emit(ch, level, t)`.

    `level` is 1 for a pressed pad, 0 for a released one.
    """

    def __init__(self, channels, window, emit, fixed=None, state=None):
        self._fixed = fixed or {}  # channel -> its own window, whatever `window` is
        # its levels, windows and locks live in the board's state (state.py), where
        # the fast path (fast.py) reads and writes them too
        self._state = new_state() if state is None else state
        words = memoryview(self._state)
        self._windows = words[WIN : WIN + channels]  # each channel's window
        self.window = window
        self._emit = emit
        self._raw = words[RAW : RAW + channels]  # the level the PIO saw last
        self._rep = words[REP : REP + channels]  # the level last reported
        self._waiting = []  # channels whose raw level differs from rep inside a lock

    def _until(self, ch):
        """The end of channel `ch`'s lock."""
        return get_time(self._state, UNTIL + 2 * ch)

    def _lock(self, ch, t):
        """Lock channel `ch` for its window from `t`."""
        set_time(self._state, UNTIL + 2 * ch, t + self._windows[ch])

    def _due(self):
        """Tell the fast path the earliest lock end among the waiting channels."""
        state = self._state
        if not self._waiting:
            state[HAS_DUE] = 0
            return
        set_time(state, DUE_LO, min(self._until(ch) for ch in self._waiting))
        state[HAS_DUE] = 1

    def rebase(self, levels):
        """Take `levels` as reported without reporting them (after a gap in the
        input); returns the number of channels whose level differs from before."""
        changed = 0
        for ch, level in enumerate(levels):
            if level != self._rep[ch]:
                changed += 1
            self._raw[ch] = level
            self._rep[ch] = level
        self._waiting = []
        self._due()
        return changed

    def start(self, levels):
        """Take the levels at power-up (a list of 0/1) as known, reporting nothing."""
        for ch, level in enumerate(levels):
            self._raw[ch] = level
            self._rep[ch] = level
            set_time(self._state, UNTIL + 2 * ch, 0)
        self._waiting = []
        self._due()

    @property
    def window(self):
        """The window of every channel but those with one of their own."""
        return self._window

    @window.setter
    def window(self, ticks):
        self._window = ticks
        for ch in range(len(self._windows)):
            self._windows[ch] = self._fixed.get(ch, ticks)

    def levels(self):
        """The reported level of every channel."""
        return list(self._rep)

    def change(self, ch, level, t):
        """Channel `ch` went to `level` at time `t`."""
        self.change_bits(1, 0 if level else 1, t, {1: ch})

    @micropython.native
    def change_bits(self, bits, pins, t, ch_of):
        """Every channel with a bit in `bits` changed at time `t`: `ch_of[bit]` is
        its channel, and its level is 1 (pressed) when its bit in `pins` is 0.
        The board's hot path: one call for all the changes of one sample."""
        waiting = self._waiting
        if waiting:
            self.settle(t)
        raw = self._raw
        rep = self._rep
        while bits:
            low = bits & -bits
            bits ^= low
            ch = ch_of[low]
            level = 0 if pins & low else 1
            raw[ch] = level
            if level == rep[ch]:
                continue
            if t >= self._until(ch):
                rep[ch] = level
                self._lock(ch, t)
                self._emit(ch, level, t)
            elif ch not in waiting:
                waiting.append(ch)
                self._due()

    def settle(self, t):
        """Report every edge whose lock ended at or before `t`, oldest first."""
        waiting = self._waiting
        if not waiting:
            return
        ends = [(self._until(ch), ch) for ch in waiting]
        due = [end_ch for end_ch in ends if end_ch[0] <= t]
        if not due:
            return
        due.sort()
        for end, ch in due:
            waiting.remove(ch)
            level = self._raw[ch]
            if level != self._rep[ch]:
                self._rep[ch] = level
                self._lock(ch, end)
                self._emit(ch, level, end)
        self._due()
