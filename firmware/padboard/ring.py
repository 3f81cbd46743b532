"""The edge timer's DMA ring: the PIO's (pins, ticks) pairs from its RX FIFO into
RAM, and out again to the board a batch at a time (app.py drives it).

Hardware glue like app.py: it touches machine, rp2 and the DMA's registers.
"""

import array
import time

import machine
import micropython
import rp2
import uctypes

try:
    from padboard.fast import copy_pairs, count_changes
    from padboard.fastedge import feed_pairs
except (ImportError, SyntaxError, ValueError):  # a port without the viper emitter
    feed_pairs = None

    def count_changes(ring, at, mask, count, pads, pins):
        n = 0
        for _ in range(count):
            x = (ring[at] ^ pins) & pads
            pins = ring[at]
            while x:
                x &= x - 1
                n += 1
            at = (at + 2) & mask
        return n

    def copy_pairs(ring, at, mask, count, out):
        for i in range(count):
            out[2 * i] = ring[at]
            out[2 * i + 1] = (-ring[at + 1]) & 0x3FFFFFFF
            at = (at + 2) & mask
        return count


SM_ID = 0  # PIO 0, state machine 0
_DREQ_PIO0_RX0 = 4  # the DMA request line of that state machine's RX FIFO
_DMA_COUNT = 0xFFFFFFFF  # transfers per DMA sequence; re-armed if ever used up
_BATCH = 16  # pairs copied out of the ring at once
_DMA_BASE = 0x50000000  # DMA channel registers, 0x40 apart (RP2040 and RP2350 alike)
_TRANS_COUNT = 0x08  # a channel's remaining transfer count
_WORDS_MASK = 0x0FFFFFFF  # words written and read are counted mod 2**28: small ints
# words (128 pairs, ~30 ms of work) the reader may lag the DMA: after a flood
# the TICK behind them stays well within 100 ms
_BEHIND_MAX = 256
POLL_US = 200  # the idle loop asks the USB stack itself at least this often

_ticks_us = time.ticks_us
try:
    _mem16 = machine.mem16
except AttributeError:  # the unix port's stand-in machine: the DMA's count instead
    _mem16 = None


class EdgeRing:
    """DMA from the edge timer's RX FIFO into a RAM ring of `words` (a power of 2).

    The DMA wraps its write address on the ring's size, so the ring must be
    aligned to it: it is carved out of a buffer twice as large. The words
    written so far are counted from the DMA's remaining transfer count, so the
    reader knows when it fell a whole ring behind (those pairs are lost): from
    its low half, read far more often than every 65,536 words, so the counts
    stay small ints (no allocation, which the loop avoids: a collection stops
    the board for ~3 ms).
    """

    def __init__(self, sm, words):
        nbytes = 4 * words
        self._words = words
        self._buf = array.array("I", bytes(2 * nbytes))
        skip = (-uctypes.addressof(self._buf)) % nbytes
        self._ring = memoryview(self._buf)[skip // 4 : skip // 4 + words]
        self._sm = sm
        self._dma = rp2.DMA()
        ring_size = 0
        while 1 << ring_size < nbytes:
            ring_size += 1
        self._ctrl = self._dma.pack_ctrl(
            size=2,
            inc_read=False,
            inc_write=True,
            ring_size=ring_size,
            ring_sel=True,
            treq_sel=_DREQ_PIO0_RX0 + SM_ID,
        )
        self._pairs = array.array("i", bytes(8 * _BATCH))  # (pins, ticks mod 2**30)
        # the low half of the channel's TRANS_COUNT: it changes with every word
        self._count_at = _DMA_BASE + 0x40 * self._dma.channel + _TRANS_COUNT
        self._written = 0  # words written, mod 2**28
        self._read = 0  # words read, mod 2**28
        self._arm()

    def _arm(self):
        at = self._written % self._words
        self._low = _DMA_COUNT & 0xFFFF  # the low half of the count when last read
        self._dma.config(
            read=self._sm,
            write=self._ring[at:],
            count=_DMA_COUNT,
            ctrl=self._ctrl,
            trigger=True,
        )

    @micropython.native
    def written(self):
        """The words the DMA wrote so far, mod 2**28."""
        if _mem16 is not None:
            low = _mem16[self._count_at]
        else:
            low = self._dma.count & 0xFFFF
        self._written = (self._written + ((self._low - low) & 0xFFFF)) & _WORDS_MASK
        self._low = low
        if low == 0 and not self._dma.active():  # its sequence ran out: a new one
            self._arm()
        return self._written

    @micropython.native
    def drain(self, board, most, link):
        """Feed up to `most` (at most _BATCH) pairs to `board`, the host's link
        heard before each; returns the number fed."""
        start = self._read
        behind = (self.written() - start) & _WORDS_MASK
        if behind < 2:
            return 0
        if behind > _BEHIND_MAX:
            # Flooded: skip to now (the edges skipped are counted as LOST) rather
            # than fall further behind: TICKs and SYNC answers stay on time.
            self._lose(board)
            return 0
        n = behind >> 1
        if n > most:
            n = most
        pairs = self._pairs
        words = self._words
        mask = words - 1
        if behind > words - 4 * _BATCH:
            # close behind the DMA: copied out first, then checked it did not lap them
            copy_pairs(self._ring, start & mask, mask, n, pairs)
            if (self.written() - start) & _WORDS_MASK > words:
                self._lose(board)
                return 0
            return self._feed_copied(board, n, link)
        heard = link.look
        hs = link.hs
        fast = feed_pairs
        state = board.state
        i = 0
        while i < n:
            heard(hs)
            if fast is not None:
                # the common pairs, all in one call, straight from the ring
                i += fast(self._ring, state, (start + 2 * i) & mask, n - i)
                if i == n:
                    break
                heard(hs)
            copy_pairs(self._ring, (start + 2 * i) & mask, mask, 1, pairs)
            board.feed_ticks(pairs[0], pairs[1])  # a pair the fast path leaves
            i += 1
        self._read = (start + 2 * n) & _WORDS_MASK
        return n

    @micropython.native
    def _feed_copied(self, board, n, link):
        """Feed the `n` pairs copied out, the host's link heard before each."""
        pairs = self._pairs
        for i in range(0, 2 * n, 2):
            link.look(link.hs)
            board.feed_ticks(pairs[i], pairs[i + 1])
        self._read = (self._read + 2 * n) & _WORDS_MASK
        return n

    @micropython.native
    def watch(self, link, most_us):
        """Wait until the DMA has written a word drain has not seen, or the host
        sends a byte, at most `most_us`: the idle loop, as short as it can be
        (SYNC stamps). It looks at the USB RAM (a few us) and asks the USB stack
        itself (tens of us) only every POLL_US. Returns the look's flags (1: it
        heard the host; fast.look), or 0."""
        count = machine.mem16
        look = link.look
        hs = link.hs
        at = self._count_at
        seen = self._low  # as drain last saw it: words since then are waiting
        start = _ticks_us()
        while count[at] == seen:
            due = look(hs)
            if due & 13:  # heard from the host (8: a lone "\n" for a SYNC), a TICK due
                return due
            if due & 2:  # time to ask the USB stack itself
                if link.readable():
                    return 1
                if time.ticks_diff(_ticks_us(), start) >= most_us:
                    return 0
        return 0

    def _lose(self, board):
        skip = ((self.written() - self._read) & _WORDS_MASK) // 2
        if 2 * skip <= self._words - 4 * _BATCH:
            # the words skipped are still in the ring: count the pad changes in them
            words = self._words
            at = self._read % words
            edges = count_changes(self._ring, at, words - 1, skip, board.pad_mask(), board.pins())
            self._read = (self._read + 2 * skip) & _WORDS_MASK
            board.skipped(self._ring[(at + 2 * skip - 2) % words], edges)
        else:  # overwritten: the board can only tell which pads changed meanwhile
            self._read = (self._read + 2 * skip) & _WORDS_MASK
            board.lost_pairs(skip)
