"""The test bench behind the stand-in `machine` and `rp2` modules (MicroPython unix port).

It holds the level of every GPIO, the board clock (microseconds since the state
machine started, from the port's monotonic clock) and the pad changes a test
scheduled. The stand-in state machine turns each change into the (pins,
counter) pair the real edge timer pushes.

A test drives it through two file descriptors named in the environment:
BUZZ_BENCH_IN, lines the bench reads, and BUZZ_BENCH_OUT, lines it writes.

    B                       the following E lines count from now
    E <dt> <gpio> <level>   set <gpio> to <level> <dt> us after the last B

It answers `base <t>` for a B (the board time it stands for) and `done <t>` when
the last scheduled change has been applied (at board time t).
"""

import array
import os
import select
import time

try:
    from typing import Protocol

    class Listener(Protocol):
        def changed(self, levels: int, t: int) -> None: ...

except ImportError:  # MicroPython has no typing
    pass

MASK32 = 0xFFFFFFFF
CAPACITY = 4096  # scheduled changes not yet applied
ALL_GPIOS = (1 << 30) - 1  # GPIO 0-29; 30 and 31 do not exist and read 0


def _ticks_us() -> int:
    value: int = time.ticks_us()  # type: ignore[attr-defined]  # MicroPython's
    return value


def _ticks_diff(a: int, b: int) -> int:
    value: int = time.ticks_diff(a, b)  # type: ignore[attr-defined]  # MicroPython's
    return value


def _fd(name: str) -> int | None:
    value = os.getenv(name)
    return int(value) if value else None


class Bench:
    def __init__(self) -> None:
        self.levels = ALL_GPIOS  # pulled up
        self._t = 0
        self._last_us = _ticks_us()
        self._base = 0
        # The schedule is a ring of preallocated arrays: a list growing among the
        # garbage of byte-wise reads fragments the heap until it cannot grow.
        self._at = array.array("q", bytes(8 * CAPACITY))
        self._gpio = bytearray(CAPACITY)
        self._level = bytearray(CAPACITY)
        self._head = 0  # next change to apply
        self._tail = 0  # where the next scheduled change goes
        self._listener: Listener | None = None
        fd_in = _fd("BUZZ_BENCH_IN")
        fd_out = _fd("BUZZ_BENCH_OUT")
        # open for the whole run: MicroPython has no ExitStack to hold them
        self._in = open(fd_in, "rb") if fd_in is not None else None  # noqa: SIM115
        self._out = open(fd_out, "wb") if fd_out is not None else None  # noqa: SIM115
        self._poll = select.poll()
        if self._in is not None:
            self._poll.register(self._in, select.POLLIN)
        self._line = bytearray()

    def now(self) -> int:
        us = _ticks_us()
        self._t += _ticks_diff(us, self._last_us)
        self._last_us = us
        return self._t

    def start(self, listener: "Listener") -> None:
        """The state machine starts: the board clock starts at 0 and changes flow."""
        self.now()
        self._t = 0
        self._listener = listener
        listener.changed(self.levels, 0)

    def level(self, gpio: int) -> int:
        return self.levels >> gpio & 1

    def set(self, gpio: int, level: int) -> None:
        """The firmware drives `gpio` (an output) to `level` now."""
        self.pump()
        self._apply(gpio, level, self.now())

    def pump(self) -> None:
        """Read the test's lines; apply the scheduled changes that are due."""
        self._read()
        if self._head == self._tail:
            return
        now = self.now()
        t = -1
        while self._head != self._tail and self._at[self._head] <= now:
            i = self._head
            t = self._at[i]
            self._apply(self._gpio[i], self._level[i], t)
            self._head = (i + 1) % CAPACITY
        if t >= 0 and self._head == self._tail:
            self._say(f"done {t}")

    def _apply(self, gpio: int, level: int, t: int) -> None:
        old = self.levels
        if level:
            self.levels |= 1 << gpio
        else:
            self.levels &= ~(1 << gpio)
        if self.levels != old and self._listener is not None:
            self._listener.changed(self.levels, t)

    def _read(self) -> None:
        stream = self._in
        while stream is not None and self._poll.poll(0):
            data = stream.read(1)
            if not data:
                self._poll.unregister(stream)
                self._in = None
                return
            if data[0] != 0x0A:
                self._line.append(data[0])
                continue
            fields = bytes(self._line).split()
            self._line = bytearray()
            if fields[0] == b"B":
                self._base = self.now()
                self._say(f"base {self._base}")
            elif fields[0] == b"E":
                dt, gpio, level = (int(f) for f in fields[1:])
                self._add(self._base + dt, gpio, level)

    def _add(self, t: int, gpio: int, level: int) -> None:
        tail = self._tail
        last = (tail - 1) % CAPACITY
        if (tail + 1) % CAPACITY == self._head:
            raise ValueError(f"the bench holds {CAPACITY - 1} scheduled changes")
        if self._head != tail and self._at[last] > t:
            raise ValueError("scheduled changes must come in time order")
        self._at[tail] = t
        self._gpio[tail] = gpio
        self._level[tail] = level
        self._tail = (tail + 1) % CAPACITY

    def _say(self, line: str) -> None:
        if self._out is not None:
            self._out.write((line + "\n").encode())  # unbuffered (flush would fsync)


BENCH = Bench()
