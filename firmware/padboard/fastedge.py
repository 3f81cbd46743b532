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

The word offsets are state.py's, repeated as literals (viper inlines no
names from another module); tests/firmware checks they agree.
"""

import micropython

from padboard.fast import _HEADS, _HEX, _TABLE

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
    is in word 15 (RING_MASK)."""
    p = ptr32(ring)  # noqa: F821  (viper's pointer types are built in)
    s = ptr32(state)  # noqa: F821
    mask = int(s[15])
    if s[6] == 0:  # READY
        return 0
    # Time words are compared as uint (unsigned 32-bit) and a sum's carry is seen
    # by storing it and reading it back (word 14): the same on the Pico's 32-bit
    # words and the unix port's 64-bit ones, where the sum would not wrap.
    i = 0
    while i < count:
        pins = int(p[at])
        low = (0 - int(p[at + 1])) & 0x3FFFFFFF
        changed = pins ^ s[0]  # PINS
        lo = uint(s[1])  # NOW_LO, NOW_HI advanced by the ticks since
        s[14] = lo + ((low - s[3]) & 0x3FFFFFFF)  # SCRATCH, LOW30
        nlo = uint(s[14])
        hi = int(s[2])
        if nlo < lo:
            hi += 1
        pads = changed & s[4]  # PAD_MASK
        if changed & s[5]:  # PROBE_MASK
            # A TICK's probe, alone in its pair, with nothing in core's list and
            # no lock end due (HAS_DUE, DUE_HI, DUE_LO): its TICK joins the ring.
            # Any other probe (a SYNC's) is the plain path's.
            if pads or s[16] == 0 or s[12] == 0:  # PROBE_TICKS, ROOM
                return i
            if s[7] and (hi > int(s[9]) or (hi == int(s[9]) and nlo >= uint(s[8]))):
                return i
            head = int(s[10])
            tail = int(s[11])
            rec = 224 + 3 * ((tail - 1) & 63)
            if tail == head or s[rec] != 64:  # no TICK at the tail to replace
                if ((tail - head) & 0xFFFF) >= 64:
                    return i  # the ring is full
                rec = 224 + 3 * (tail & 63)
                s[rec] = 64  # TICK
                s[11] = (tail + 1) & 0xFFFF
            s[rec + 1] = nlo
            s[rec + 2] = hi
            s[16] = s[16] - 1
            s[17] = s[17] + 1  # TICKS_DONE
        elif pads:
            # a lock end due first: the plain path reports the waiting edge
            # HAS_DUE, DUE_HI, DUE_LO
            if s[7] and (hi > int(s[9]) or (hi == int(s[9]) and nlo >= uint(s[8]))):
                return i
            emits = 0
            for bit in range(30):  # first look: can every change be decided here?
                if (pads >> bit) & 1:
                    ch = s[32 + bit]  # CH_OF
                    level = 1 - ((pins >> bit) & 1)
                    if level != s[96 + ch]:  # REP
                        uhi = int(s[161 + 2 * ch])  # UNTIL
                        if hi < uhi or (hi == uhi and nlo < uint(s[160 + 2 * ch])):
                            return i  # inside its lock
                        emits += 1
            tail = s[11]  # Q_TAIL
            if emits and ((tail - s[10]) & 0xFFFF) + emits > s[12]:  # Q_HEAD, ROOM
                return i
            for bit in range(30):
                if (pads >> bit) & 1:
                    ch = s[32 + bit]
                    level = 1 - ((pins >> bit) & 1)
                    s[64 + ch] = level  # RAW
                    if level != s[96 + ch]:
                        s[96 + ch] = level
                        s[160 + 2 * ch] = nlo + s[128 + ch]  # WIN
                        s[161 + 2 * ch] = hi + (1 if uint(s[160 + 2 * ch]) < nlo else 0)
                        rec = 224 + 3 * (tail & 63)  # QUEUE, QUEUE_RECORDS
                        s[rec] = ch << 1 | level
                        s[rec + 1] = nlo
                        s[rec + 2] = hi
                        tail = (tail + 1) & 0xFFFF
            s[13] = (s[13] + emits) & 0xFFFF  # EDGES
            s[11] = tail
        s[0] = pins
        s[1] = nlo
        s[2] = hi
        s[3] = low
        at = (at + 2) & mask
        i += 1
    return i


@micropython.viper
def write_records(buf, state, at_stop: int, seq: int) -> int:
    """Write the EDGE or TICK frame of every record in the state's ring, numbered from
    `seq`, into `buf` from at = `at_stop` >> 16 while 64 bytes fit before its
    stop (`at_stop` & 0xFFFF); the records written leave the ring. Returns the
    end | the number written << 16. One call for them all: a call costs more
    than a frame's digits and CRC."""
    b = ptr8(buf)  # noqa: F821
    s = ptr32(state)  # noqa: F821
    d = ptr8(_DIGITS)  # noqa: F821
    table = ptr16(_TABLE)  # noqa: F821
    hexd = ptr8(_HEX)  # noqa: F821
    heads = ptr8(_HEADS)  # noqa: F821
    pairs = ptr8(_PAIRS)  # noqa: F821
    at = at_stop >> 16
    stop = at_stop & 0xFFFF
    head = s[10]  # Q_HEAD
    written = 0
    while head != s[11] and at + 64 <= stop:  # Q_TAIL; a frame takes 47 bytes at most
        rec = 224 + 3 * (head & 63)  # QUEUE
        kind = s[rec]
        tick = kind == 64  # TICK
        start = at
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
        # the CRC and tail as fast._write writes them: written out again here, as a
        # call to share them would cost a Pico ~30 us per frame
        crc = 0xFFFF
        for i in range(start, at):
            crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ b[i]]
        b[at] = 42  # *
        b[at + 1] = hexd[crc >> 12]
        b[at + 2] = hexd[(crc >> 8) & 15]
        b[at + 3] = hexd[(crc >> 4) & 15]
        b[at + 4] = hexd[crc & 15]
        b[at + 5] = 10
        at += 6
        seq += 1
        written += 1
        head = (head + 1) & 0xFFFF
    s[10] = head
    return at | written << 16
