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


class Debouncer:
    """Debounces `channels` inputs; reports edges through `emit(ch, level, t)`.

    `level` is 1 for a pressed pad, 0 for a released one.
    """

    def __init__(self, channels, window, emit, fixed=None):
        self._fixed = fixed or {}  # channel -> its own window, whatever `window` is
        self._windows = [0] * channels  # each channel's window
        self.window = window
        self._emit = emit
        self._raw = [0] * channels  # the level the PIO saw last
        self._rep = [0] * channels  # the level last reported
        self._until = [0] * channels  # the end of each channel's lock
        self._waiting = []  # channels whose raw level differs from rep inside a lock

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
        return changed

    def start(self, levels):
        """Take the levels at power-up (a list of 0/1) as known, reporting nothing."""
        for ch, level in enumerate(levels):
            self._raw[ch] = level
            self._rep[ch] = level
            self._until[ch] = 0
        self._waiting = []

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
        until = self._until
        while bits:
            low = bits & -bits
            bits ^= low
            ch = ch_of[low]
            level = 0 if pins & low else 1
            raw[ch] = level
            if level == rep[ch]:
                continue
            if t >= until[ch]:
                rep[ch] = level
                until[ch] = t + self._windows[ch]
                self._emit(ch, level, t)
            elif ch not in waiting:
                waiting.append(ch)

    def settle(self, t):
        """Report every edge whose lock ended at or before `t`, oldest first."""
        waiting = self._waiting
        if not waiting:
            return
        until = self._until
        due = [ch for ch in waiting if until[ch] <= t]
        if not due:
            return
        due.sort(key=lambda ch: (until[ch], ch))
        for ch in due:
            waiting.remove(ch)
            level = self._raw[ch]
            if level != self._rep[ch]:
                end = until[ch]
                self._rep[ch] = level
                until[ch] = end + self._windows[ch]
                self._emit(ch, level, end)
