"""The board's pad edges in viper, from the DMA ring's pairs to the EDGE frames.

On the Pico every Python call costs about 15 us and every attribute a few: the
plain path (core.PadBoard.feed_ticks, debounce.py, the frame list) spends some
300 us on one pad edge, too slow for 2,000 edges/s within 1 ms each. Here the
common pairs are decided in one call for a batch: the board's hot state is one
array of words (state.py) and these functions read and write it through
pointers, as core.py and debounce.py do through indices.

`feed_pairs` decides pairs until one needs the plain path (a clock probe, a
change inside a channel's lock, a lock end due, no room); it reports each
edge as a record in the state's ring. `write_records` writes those records as
EDGE frames, byte for byte what protocol.frame gives (a test compares them).
A port without viper fails to import this module: app.py then uses the plain
path only.

The word offsets are state.py's, named again below by `const()`: the
compiler puts a const's value in place of its name, so `s[_Q_TAIL]` is the
same code as `s[11]` (a name imported from state.py would be looked up on
every use); tests/firmware checks that they agree with state.py's.
"""

import array

import micropython
from micropython import const

from padboard.fast import _HEADS, _seal

# state.py's word offsets and sizes (the underscore keeps them out of the
# module's globals: they exist only in the compiled code)
_PINS = const(0)
_NOW_LO = const(1)
_NOW_HI = const(2)
_LOW30 = const(3)
_PAD_MASK = const(4)
_PROBE_MASK = const(5)
_READY = const(6)
_HAS_DUE = const(7)
_DUE_LO = const(8)
_DUE_HI = const(9)
_Q_HEAD = const(10)
_Q_TAIL = const(11)
_ROOM = const(12)
_EDGES = const(13)
_SCRATCH = const(14)
_RING_MASK = const(15)
_PROBE_TICKS = const(16)
_TICKS_DONE = const(17)
_CHANNELS = const(32)
_CH_OF = const(32)
_RAW = const(_CH_OF + _CHANNELS)
_REP = const(_RAW + _CHANNELS)
_WIN = const(_REP + _CHANNELS)
_UNTIL = const(_WIN + _CHANNELS)  # + 2 ch: the lock's end, low word
_UNTIL_HI = const(_UNTIL + 1)  # + 2 ch: its high word
_QUEUE = const(_UNTIL + 2 * _CHANNELS)
_QUEUE_RECORDS = const(64)
_TICK = const(64)
_MASK30 = const(0x3FFFFFFF)
# and this module's own
_RECORD_AT = const(_QUEUE_RECORDS - 1)  # a count & this: its record's index in the ring
_COUNT = const(0xFFFF)  # Q_HEAD, Q_TAIL and EDGES count mod 2**16
_PIN_BITS = const(30)  # the GPIOs of a pins word (the RP2040's bank 0)
_FRAME_ROOM = const(64)  # bytes an EDGE or TICK frame may take, at most (47 and its tail)

_ENDS = array.array("H", bytes(2 * _QUEUE_RECORDS))  # where write_records' payloads end
_DIGITS = bytearray(24)  # the digits of one number, last first
_PAIRS = bytearray(200)  # "00", "01", ... "99": two digits a division
for _i in range(100):
    _PAIRS[2 * _i] = 48 + _i // 10
    _PAIRS[2 * _i + 1] = 48 + _i % 10


@micropython.viper
def feed_pairs(ring, state, at: int, count: int) -> int:
    """Decide up to `count` pairs of the DMA ring `ring` ((pins, counter) words,
    the counter counting down) from word `at` on, as PadBoard.feed_ticks would;
    returns how many it decided: the next is left to it. The ring's size - 1
    is in the state's RING_MASK."""
    p = ptr32(ring)  # noqa: F821  (viper's pointer types are built in)
    s = ptr32(state)  # noqa: F821
    mask = int(s[_RING_MASK])
    if s[_READY] == 0:
        return 0
    # Time words are compared as uint (unsigned 32-bit) and a sum's carry is seen
    # by storing it and reading it back (SCRATCH): the same on the Pico's 32-bit
    # words and the unix port's 64-bit ones, where the sum would not wrap.
    i = 0
    while i < count:
        pins = int(p[at])
        low = (0 - int(p[at + 1])) & _MASK30
        changed = pins ^ s[_PINS]
        lo = uint(s[_NOW_LO])  # NOW_LO, NOW_HI advanced by the ticks since
        s[_SCRATCH] = lo + ((low - s[_LOW30]) & _MASK30)
        nlo = uint(s[_SCRATCH])
        hi = int(s[_NOW_HI])
        if nlo < lo:
            hi += 1
        pads = changed & s[_PAD_MASK]
        if changed & s[_PROBE_MASK]:
            # A TICK's probe, alone in its pair, with nothing in core's list and
            # no lock end due: its TICK joins the ring. Any other probe (a
            # SYNC's) is the plain path's.
            if pads or s[_PROBE_TICKS] == 0 or s[_ROOM] == 0:
                return i
            if s[_HAS_DUE] and (
                hi > int(s[_DUE_HI]) or (hi == int(s[_DUE_HI]) and nlo >= uint(s[_DUE_LO]))
            ):
                return i
            head = int(s[_Q_HEAD])
            tail = int(s[_Q_TAIL])
            rec = _QUEUE + 3 * ((tail - 1) & _RECORD_AT)
            if tail == head or s[rec] != _TICK:  # no TICK at the tail to replace
                if ((tail - head) & _COUNT) >= _QUEUE_RECORDS:
                    return i  # the ring is full
                rec = _QUEUE + 3 * (tail & _RECORD_AT)
                s[rec] = _TICK
                s[_Q_TAIL] = (tail + 1) & _COUNT
            s[rec + 1] = nlo
            s[rec + 2] = hi
            s[_PROBE_TICKS] = s[_PROBE_TICKS] - 1
            s[_TICKS_DONE] = s[_TICKS_DONE] + 1
        elif pads:
            # a lock end due first: the plain path reports the waiting edge
            if s[_HAS_DUE] and (
                hi > int(s[_DUE_HI]) or (hi == int(s[_DUE_HI]) and nlo >= uint(s[_DUE_LO]))
            ):
                return i
            emits = 0
            for bit in range(_PIN_BITS):  # first look: can every change be decided here?
                if (pads >> bit) & 1:
                    ch = s[_CH_OF + bit]
                    level = 1 - ((pins >> bit) & 1)
                    if level != s[_REP + ch]:
                        uhi = int(s[_UNTIL_HI + 2 * ch])
                        if hi < uhi or (hi == uhi and nlo < uint(s[_UNTIL + 2 * ch])):
                            return i  # inside its lock
                        emits += 1
            tail = s[_Q_TAIL]
            if emits and ((tail - s[_Q_HEAD]) & _COUNT) + emits > s[_ROOM]:
                return i
            for bit in range(_PIN_BITS):
                if (pads >> bit) & 1:
                    ch = s[_CH_OF + bit]
                    level = 1 - ((pins >> bit) & 1)
                    s[_RAW + ch] = level
                    if level != s[_REP + ch]:
                        s[_REP + ch] = level
                        s[_UNTIL + 2 * ch] = nlo + s[_WIN + ch]
                        s[_UNTIL_HI + 2 * ch] = hi + (1 if uint(s[_UNTIL + 2 * ch]) < nlo else 0)
                        rec = _QUEUE + 3 * (tail & _RECORD_AT)
                        s[rec] = ch << 1 | level
                        s[rec + 1] = nlo
                        s[rec + 2] = hi
                        tail = (tail + 1) & _COUNT
            s[_EDGES] = (s[_EDGES] + emits) & _COUNT
            s[_Q_TAIL] = tail
        s[_PINS] = pins
        s[_NOW_LO] = nlo
        s[_NOW_HI] = hi
        s[_LOW30] = low
        at = (at + 2) & mask
        i += 1
    return i


@micropython.viper
def write_records(buf, state, at_stop: int, seq: int) -> int:
    """Write the EDGE or TICK frame of every record in the state's ring, numbered from
    `seq`, into `buf` from at = `at_stop` >> 16 while 64 bytes fit before its
    stop (`at_stop` & 0xFFFF); the records written leave the ring. Returns the
    end | the number written << 16. One call for them all, and one to
    fast._seal for their CRCs: a call costs more than a frame's digits and CRC."""
    b = ptr8(buf)  # noqa: F821
    s = ptr32(state)  # noqa: F821
    d = ptr8(_DIGITS)  # noqa: F821
    ends = ptr16(_ENDS)  # noqa: F821
    heads = ptr8(_HEADS)  # noqa: F821
    pairs = ptr8(_PAIRS)  # noqa: F821
    at = at_stop >> 16
    first = at
    stop = at_stop & 0xFFFF
    head = s[_Q_HEAD]
    written = 0
    while head != s[_Q_TAIL] and at + _FRAME_ROOM <= stop and written < _QUEUE_RECORDS:
        rec = _QUEUE + 3 * (head & _RECORD_AT)
        kind = s[rec]
        tick = kind == _TICK
        for i in range(5):  # "EDGE " or "TICK "
            b[at + i] = heads[5 * int(tick) + i]
        at += 5
        for f in range(4):  # seq, ch, level, t: each in decimal and a space
            hi = 0
            if f == 0:
                lo = seq
            elif tick and f < 3:
                continue  # a TICK has its seq and its time
            elif f == 1:
                lo = kind >> 1
            elif f == 2:
                lo = kind & 1
            else:
                lo = s[rec + 1]
                hi = s[rec + 2]
            n = 0  # the digits go into d last first, two a division
            if hi == 0 and lo >= 0:  # fits a signed word
                while lo >= 100:
                    q = lo // 100
                    r = 2 * (lo - 100 * q)
                    d[n] = pairs[r + 1]
                    d[n + 1] = pairs[r]
                    n += 2
                    lo = q
                if lo >= 10:
                    d[n] = pairs[2 * lo + 1]
                    d[n + 1] = pairs[2 * lo]
                    n += 2
                else:
                    d[n] = 48 + lo
                    n += 1
            else:  # 16-bit limbs divided by 10,000: a remainder times 65,536 fits a word
                l3 = (hi >> 16) & 0xFFFF
                l2 = hi & 0xFFFF
                l1 = (lo >> 16) & 0xFFFF
                l0 = lo & 0xFFFF
                while True:
                    q3 = l3 // 10000
                    x = (l3 - 10000 * q3) << 16 | l2
                    q2 = x // 10000
                    x = (x - 10000 * q2) << 16 | l1
                    q1 = x // 10000
                    x = (x - 10000 * q1) << 16 | l0
                    q0 = x // 10000
                    x = x - 10000 * q0  # the next four digits
                    l3 = q3
                    l2 = q2
                    l1 = q1
                    l0 = q0
                    q = x // 100
                    r = 2 * (x - 100 * q)
                    d[n] = pairs[r + 1]
                    d[n + 1] = pairs[r]
                    d[n + 2] = pairs[2 * q + 1]
                    d[n + 3] = pairs[2 * q]
                    n += 4
                    if (l3 | l2 | l1 | l0) == 0:
                        break
                while n > 1 and d[n - 1] == 48:  # no leading zeros
                    n -= 1
            while n > 0:
                n -= 1
                b[at] = d[n]
                at += 1
            b[at] = 32
            at += 1
        at -= 1  # no space after the time
        ends[written] = at  # its "*", CRC and "\n" go here: fast._seal writes them all
        at += 6
        seq += 1
        written += 1
        head = (head + 1) & _COUNT
    s[_Q_HEAD] = head
    if written:
        _seal(buf, first, _ENDS, written)
    return at | written << 16
