"""The USB serial link to the host (the REPL's stdin/stdout), polled, never
waited on: host bytes in (stamped when their packet landed), frames out.

Hardware glue like app.py: it touches machine, select and sys. Under test the
same code runs in the MicroPython unix port with a stand-in machine.

A SYNC's answer. The host splits a SYNC's round trip at its midpoint
(board-protocol.md), so every microsecond between the stamp (its "\\n" landing)
and the answer leaving is half a microsecond of error in every time the host maps
from it. The host sends a SYNC's line first and its "\\n" alone a few ms later
(host/buzzerbox/pads/board/syncrounds.py), so the board has read the line when the
"\\n" comes. After a burst of host bytes that leaves a whole SYNC line but for its
"\\n" (`PadBoard.arm`), the look at the USB RAM (fast.look) also reads the byte of
a one-byte packet that lands: a "\\n" is answered at once (`ahead`), before the USB
stack has handed the byte over (the line, once read, is not answered again).
Otherwise a SYNC is answered the moment its line is read (`read`), ahead of the
frames waiting: either way from viper (fastsync.py), written at once.
"""

import array
import select
import sys
import time

import machine
import micropython

from padboard.chip import on_pico

try:
    from padboard.fast import look
except (ImportError, SyntaxError, ValueError):  # a port without the viper emitter
    look = None

_ticks_us = time.ticks_us
_mem32 = machine.mem32
_FRAMES_PER_WRITE = 6  # the write buffer holds this many of the longest frames
_LINE = 128  # bytes a frame may take (protocol.MAX_LINE)
_FRAMES_ROOM = _FRAMES_PER_WRITE * _LINE  # one global, not two, on every pass
_USB_RAM = 0x50100000  # the RP2040's USB DPRAM
# MicroPython's USB serial receives the host's bytes on endpoint 2 (OUT): the
# buffer control word of that endpoint in the USB RAM changes when a packet lands
# (FULL set, with its length; then a new DATA0/1 when the USB stack takes it and
# re-arms). The endpoint's control word says where its buffer is.
_CDC_OUT_CONTROL = _USB_RAM + 0x80 + 8 * 2 + 4
_CDC_OUT_ENDPOINT = _USB_RAM + 0x08 + 8 * (2 - 1) + 4
_FULL = 1 << 15
_ENABLED = 1 << 31  # the endpoint's: it is on
_DOUBLE = 1 << 30  # it has two buffers (this firmware then reads no byte itself)
_TIMERAWL = 0x40054028  # the RP2040's microsecond timer, its raw low word
# A packet heard after a step of the loop landed during it; stamped this long
# before the look that heard it, never before the look before: a stamp is early
# by this at most, and late only when a step takes longer.
_EARLY_US = 30
# HostLink's `hs` stays indexed by number (fast.py names its words _H_*). Seven
# `_H_X = const(n)` in app.py made the emulated Pico's EDGEs at 2,000/s later (bench
# firmware.py --syncs 3 --presses 3 --rates 2000, interleaved: p50 522-535 us, min
# 376-379; main 494-502, 371-374), as late when defined but unused with the indices
# bare, or put first in the module. Not the indexing (mpy-cross -march=armv6m: the
# same bytes but line numbers), nor the lines (the same lines as comments: 494-497);
# cause not found then. `from micropython import const` alone: p50 510 (a global more).
# The cause: at 2,000 edges/s the loop had ~1 % to spare (tests/bench/README.md,
# "The steady stream's margin").


class HostLink:
    """The USB serial link (the REPL's stdin/stdout), polled, never waited on.

    Host bytes are read one at a time while select says one is there; the time
    the first of a burst was seen is its arrival (`PadBoard.arrived_us`), which a
    SYNC answer is stamped with. `look(hs)` sees a packet land in the USB RAM
    within a few microseconds, before the USB stack has taken it: the loop asks
    it between its steps. Frames are written into one buffer, a few at once, and
    sent with one write when the host can take bytes.
    """

    def __init__(self, poll_us, tick_us):
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._rd = select.poll()
        self._rd.register(sys.stdin, select.POLLIN)
        self._wr = select.poll()
        self._wr.register(sys.stdout, select.POLLOUT)
        # frames, a few at once, and room after them for a SYNC answered at once
        self._buf = bytearray((_FRAMES_PER_WRITE + 1) * _LINE)
        self._one = bytearray(1)  # a host byte
        self._sent = 0  # bytes of _buf written
        self._end = 0  # bytes of _buf filled
        self._closed = False
        self.polled_us = time.ticks_us()  # when the USB stack was last asked
        # what heard() keeps (fast.look): the endpoint's control word as last
        # seen, 1 while bytes heard are unread, their stamp, when it last looked,
        # the two addresses it reads, when the USB stack was last asked, how
        # often, when the next TICK is due; where the endpoint's buffer is, and
        # 1 while a SYNC line waits for its "\n" (2: a lone "\n" landed)
        now = self.polled_us
        words = [machine.mem32[_CDC_OUT_CONTROL], 0, 0, now, _CDC_OUT_CONTROL, _TIMERAWL]
        words += [now, poll_us, time.ticks_add(now, tick_us), 0, 0]
        self._tick_us = tick_us
        # the loop calls look(hs) between its steps: viper on a Pico (it reads the
        # RP2040's addresses), else heard(), with a list (the unix port's ticks
        # outgrow 32 bits)
        self._pico = pico = on_pico(look)
        self.hs = array.array("I", words) if pico else words
        self.look = look if pico else heard

    @micropython.native
    def readable(self):
        """Did the host send bytes? Asks the USB stack (tens of us). The first
        check that says so stamps them with the time it began, unless look()
        stamped them already."""
        if self._closed:
            return False
        t = self.polled_us = _ticks_us()
        hs = self.hs
        hs[6] = t
        for _ in self._rd.ipoll(0):
            if not hs[1]:
                hs[1] = 1
                hs[2] = t
            return True
        hs[3] = t  # nothing had landed then
        return False

    @micropython.native
    def _more(self):
        for _ in self._rd.ipoll(0):
            return True
        return False

    @micropython.native
    def read(self, board, room):
        """Give `board` the bytes the host sent, while it has `room` frames free
        (a lone "\n" the look saw for a SYNC line read is answered first)."""
        hs = self.hs
        if hs[10] == 2:
            self.ahead(board)
        if not self.readable():
            hs[1] = 0  # heard a packet that brought no bytes
            return 0
        armed = hs[10]  # the line read waits for its "\n" (the look did not see it)
        hs[10] = 0  # bytes come: the line read so far is no longer the whole
        board.arrived_us = hs[2]
        hs[1] = 0
        n = 0
        one = self._one
        if self._sent >= self._end:
            self._sent = self._end = 0
        board.out_buf = self._buf  # a SYNC answered at once goes there, after the
        board.out_at = self._end  # frames waiting (PadBoard._sync)
        free = room - board.pending()  # a byte adds at most one frame (a line's answer)
        while free > 0:
            free -= 1
            try:
                got = self._in.readinto(one)
            except OSError:
                got = 0
            if not got:  # the host end is gone for good (a closed pty under test)
                self._closed = True
                break
            if armed:  # its "\n" first: answered before the line is read (ahead)
                armed = 0
                if one[0] == 10:
                    self.ahead(board)
            end = board.rx(one[0])
            if end:  # a SYNC answered at once: sent now, ahead of the rest
                if end > 0:  # written into the buffer (else it waits in the queue)
                    self._end = board.out_at = end
                    self._send()
                board.after_sync()
            n += 1
            if not self._more():
                word = _mem32[_CDC_OUT_CONTROL]
                if not word & _FULL:  # the USB stack took every packet: all read
                    hs[0] = word
                    if self._pico and board.arm():  # a SYNC line read but for its "\n"
                        hs[9] = self._buffer()
                        hs[10] = 1 if hs[9] else 0
                break
        return n

    @staticmethod
    def _buffer():
        """The address of the OUT endpoint's buffer in the USB RAM; 0 if the
        endpoint is off or has two (the byte would not be known to be there)."""
        control = _mem32[_CDC_OUT_ENDPOINT]
        if control & (_ENABLED | _DOUBLE) != _ENABLED:
            return 0
        return _USB_RAM + (control & 0xFFC0)

    @micropython.native
    def ahead(self, board):
        """The look saw a lone "\n" land for the SYNC line read: answer it now."""
        self.hs[10] = 0
        if self._sent >= self._end:
            self._sent = self._end = 0
        end = board.sync_ahead(self._buf, self._end, self.hs[2])
        if end > 0:
            self._end = end
            self._send()
            board.after_sync()

    @micropython.native
    def write(self, board):
        """Send the next frames (a few at once) if the host can take bytes; returns
        1 if some went, 2 if more may wait."""
        more = 1
        buf = self._buf
        if self._sent >= self._end:
            end = board.next_frames_into(buf, 0, _FRAMES_ROOM)
            if not end:
                return 0
            if end + _LINE > _FRAMES_ROOM:
                more = 2
            self._sent = 0
            self._end = end
            self.look(self.hs)
        for _ in self._wr.ipoll(0):  # _send(), inline: this runs on every pass
            n = self._out.write(buf, self._sent, self._end - self._sent)
            self._sent = self._end if n is None or n <= 0 else self._sent + n
            return more
        return 0

    @micropython.native
    def _send(self):
        """Write what waits in the buffer if the host can take bytes: the host splits
        a SYNC's round trip at its midpoint, so half the time an answer waits is an
        error in every time it maps."""
        for _ in self._wr.ipoll(0):
            n = self._out.write(self._buf, self._sent, self._end - self._sent)
            self._sent = self._end if n is None or n <= 0 else self._sent + n
            return True
        return False

    @micropython.native
    def next_tick(self):
        """A TICK was asked for: the next one is due tick_us later (or from now,
        when the loop fell behind: skipped, never a burst)."""
        hs = self.hs
        due = time.ticks_add(hs[8], self._tick_us)
        now = _ticks_us()
        if time.ticks_diff(due, now) <= 0:
            due = time.ticks_add(now, self._tick_us)
        hs[8] = due

    def wait(self, ms):
        if self._closed:
            time.sleep_ms(ms)
        else:
            self._rd.poll(ms)


@micropython.native
def heard(hs):
    """fast.look in Python (the unix port under test): did a packet from the
    host land since the last look? The first look that sees the endpoint's
    control word change stamps it."""
    t = _ticks_us()
    word = _mem32[_CDC_OUT_CONTROL]
    if word != hs[0] or word & _FULL:
        hs[0] = word
        if not hs[1]:
            # It landed since the last look: stamped _EARLY_US before this look,
            # never before the last one (off by -_EARLY_US at most).
            early = time.ticks_add(t, -_EARLY_US)
            if time.ticks_diff(early, hs[3]) < 0:
                early = hs[3]
            hs[1] = 1
            hs[2] = early
    hs[3] = t
    flags = hs[1]
    if time.ticks_diff(t, hs[6]) >= hs[7]:
        flags |= 2
    if time.ticks_diff(t, hs[8]) >= 0:
        flags |= 4
    return flags


