"""The board's two hot paths in MicroPython's viper code emitter.

Every edge costs the board a CRC and a trip through the DMA ring; in plain
Python those take a few hundred microseconds of the Pico's time, in viper a
few. `frame` gives byte for byte the frames protocol.frame gives (a test
compares them). A port without viper fails to import this module, and app.py
falls back to plain Python.

The words of the arrays `look` and `probe` keep are named below by `const()`:
the compiler puts a const's value in place of its name, so they cost nothing.
"""

import array

import micropython
from micropython import const

from padboard import protocol
from padboard.protocol import TICK_KIND

_TABLE = array.array("H", protocol._TABLE)  # the one CRC table, as 16-bit words
_MASK30 = const(0x3FFFFFFF)  # ticks_us counts mod 2**30
_HALF = const(0x20000000)  # a difference mod 2**30 this or more: negative


_HEX = b"0123456789ABCDEF"
_ONE = array.array("H", [0])  # the `ends` of one frame


@micropython.viper
def _seal(buf, at: int, ends, count: int) -> int:
    """The viper code's one CRC loop (protocol.crc16 is the reference): finish the
    `count` frames laid one after another in `buf` from `at`, where frame k's
    payload ends at `ends[k]` (16-bit words): its "*", CRC in hex and "\n" (6
    bytes) go there, and the next frame starts after them. Returns the end of the
    last. One call for a batch: a call costs a Pico more than a frame's CRC."""
    b = ptr8(buf)  # noqa: F821  (viper's pointer types are built in)
    e = ptr16(ends)  # noqa: F821
    table = ptr16(_TABLE)  # noqa: F821
    hexd = ptr8(_HEX)  # noqa: F821
    for k in range(count):
        n = int(e[k])
        crc = 0xFFFF
        for i in range(at, n):
            crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ b[i]]
        b[n] = 42  # *
        b[n + 1] = hexd[crc >> 12]
        b[n + 2] = hexd[(crc >> 8) & 15]
        b[n + 3] = hexd[(crc >> 4) & 15]
        b[n + 4] = hexd[crc & 15]
        b[n + 5] = 10
        at = n + 6
    return at


@micropython.native
def frame(payload):
    """One board frame as bytes, like protocol.frame."""
    raw = payload.encode()
    n = len(raw)
    buf = bytearray(n + 6)
    buf[:n] = raw
    _ONE[0] = n
    _seal(buf, 0, _ONE, 1)
    return bytes(buf)


@micropython.viper
def copy_pairs(ring, at: int, mask: int, count: int, out) -> int:
    """Copy `count` (pins, counter) pairs from `ring` (32-bit words, `mask` + 1 of
    them) at word `at` into `out` as (pins, ticks mod 2**30): small ints all."""
    src = ptr32(ring)  # noqa: F821
    dst = ptr32(out)  # noqa: F821
    for i in range(count):
        dst[2 * i] = src[at]
        dst[2 * i + 1] = (0 - src[at + 1]) & _MASK30
        at = (at + 2) & mask
    return count


@micropython.viper
def count_changes(ring, at: int, mask: int, count: int, pads: int, pins: int) -> int:
    """The pad bits (`pads`) that changed over `count` pairs of `ring` from word
    `at`, starting from `pins`: the edges in pairs the board skips unread."""
    src = ptr32(ring)  # noqa: F821
    n = 0
    for _ in range(count):
        p = src[at]
        x = (p ^ pins) & pads
        while x:
            x &= x - 1
            n += 1
        pins = p
        at = (at + 2) & mask
    return n


_E9 = 1000000000
_POW10 = array.array("i", [100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1])
_EDGE = bytearray(80)  # one EDGE frame is at most 6+11+3+2+21+6 bytes
_EDGE_VIEW = memoryview(_EDGE)
_FRAME_ROOM = const(64)  # bytes an EDGE or TICK frame may take, at most


_HEADS = b"EDGE TICK "
_HI = 8192 * _E9  # the fast path writes times below this (95 days of uptime)


@micropython.viper
def _write(buf, packed: int, seq: int, lo: int) -> int:
    """Write "EDGE <seq> <ch> <level> <t>" or "TICK <seq> <t>", "*", its CRC in
    hex and "\n" into `buf`, in one call (each call costs): `packed` is
    hi << 17 | at << 7 | tick << 6 | ch << 1 | level, where t = hi * 10**9 + lo
    and `at` is where the frame starts. Returns its end."""
    b = ptr8(buf)  # noqa: F821
    p = ptr32(_POW10)  # noqa: F821
    heads = ptr8(_HEADS)  # noqa: F821
    at = (packed >> 7) & 1023
    hi = packed >> 17
    tick = (packed >> 6) & 1
    for i in range(5):
        b[at + i] = heads[5 * tick + i]
    n = at + 5
    for f in range(5):  # seq, ch, level, hi, lo
        width = 0  # digits: 0 for as many as it takes
        if f == 0:
            x = seq
        elif f == 1 or f == 2:
            if tick:
                continue
            x = (packed >> 1) & 31 if f == 1 else packed & 1
        elif f == 3:
            if not hi:
                continue
            x = hi
        else:
            x = lo
            if hi:
                width = 9
        if not width:
            width = 1
            while width < 9 and x >= p[8 - width]:
                width += 1
        i = n + width - 1
        while i >= n:
            q = x // 10
            b[i] = 48 + x - 10 * q
            x = q
            i -= 1
        n += width
        if f != 3:  # hi and lo are one number
            b[n] = 32
            n += 1
    n -= 1  # no space after the time
    one = ptr16(_ONE)  # noqa: F821
    one[0] = n
    return int(_seal(buf, at, _ONE, 1))


@micropython.native
def frame_into(buf, at, seq, kind, t):
    """Write the frame protocol.frame would give into `buf` at `at` (at least
    _FRAME_ROOM bytes free): "EDGE <seq> <ch> <level> <t>" for `kind` ch << 1 | level,
    "TICK <seq> <t>" for `kind` TICK_KIND. Returns its end, or -1 for a frame it
    leaves to protocol."""
    if t < _E9:
        hi = 0
        lo = t
    elif t < _HI:
        hi = t // _E9
        lo = t % _E9
    else:
        return -1
    if seq >= _E9 or at >= 1024:
        return -1
    return _write(buf, hi << 17 | at << 7 | kind, seq, lo)


@micropython.native
def edge_frame(seq, ch, level, t):
    """The EDGE frame protocol.frame would give for these fields, as bytes."""
    n = frame_into(_EDGE, 0, seq, ch << 1 | level, t)
    if n < 0:
        return frame("EDGE %d %d %d %d" % (seq, ch, level, t))
    return bytes(_EDGE_VIEW[:n])


@micropython.native
def tick_frame(seq, t):
    """The TICK frame protocol.frame would give, as bytes."""
    n = frame_into(_EDGE, 0, seq, TICK_KIND, t)
    if n < 0:
        return frame("TICK %d %d" % (seq, t))
    return bytes(_EDGE_VIEW[:n])


# the words of app.HostLink's `hs`
_H_WORD = const(0)  # the endpoint's control word as last seen
_H_UNREAD = const(1)  # 1 while bytes heard are unread
_H_STAMP = const(2)  # when they were stamped
_H_LOOKED = const(3)  # when the last look was
_H_CONTROL = const(4)  # the address of that control word
_H_TIMER = const(5)  # the address of the timer's raw low word
_H_ASKED = const(6)  # when the USB stack was last asked
_H_EVERY = const(7)  # how often it is
_H_TICK_DUE = const(8)  # when the next TICK is due
_H_BUFFER = const(9)  # the address of the endpoint's buffer in the USB RAM
_H_ARMED = const(10)  # 1: a SYNC line read waits for its "\n"; 2: a lone "\n" landed
_FULL = const(0x8000)  # the control word's FULL bit (hostlink._FULL)
_FULL_ONE = const(0x83FF)  # FULL and the length: 0x8001, a one-byte packet
_EARLY_US = const(30)  # hostlink._EARLY_US
# the words of app.Pins's `ps`
_P_TOGGLED = const(0)  # when the probe last toggled
_P_TIMER = const(1)  # the address of the timer's raw low word
_P_XOR = const(2)  # the address of the SIO's GPIO_OUT_XOR
_P_BIT = const(3)  # the probe's bit


@micropython.viper
def look(hs) -> int:
    """hostlink.HostLink's look at the USB RAM and the clock, in one cheap call: 1
    if a packet from the host landed (and waits unread), | 2 if the USB stack is
    due to be asked, | 4 if a TICK is due, | 8 if a lone "\n" landed for the SYNC
    line read. `hs` (array "I"): the endpoint's control word as last seen, 1
    while bytes heard are unread, when they were stamped, when the last look
    was, the addresses of that control word and of the timer's raw low word
    (ticks_us is its count mod 2**30), when the USB stack was last asked, how
    often it is, when the next TICK is due, the address of the endpoint's
    buffer, and 1 while a SYNC line read waits for its "\n" (the look makes it 2
    when a one-byte packet holding "\n" lands). A packet first seen now is
    stamped EARLY_US before this look, never before the last one."""
    h = ptr32(hs)  # noqa: F821
    t = int(ptr32(h[_H_TIMER])[0]) & _MASK30  # noqa: F821
    word = int(ptr32(h[_H_CONTROL])[0])  # noqa: F821
    if word != int(h[_H_WORD]) or (word & _FULL):  # changed, or FULL
        h[_H_WORD] = word
        if h[_H_UNREAD] == 0:
            early = (t - _EARLY_US) & _MASK30
            if ((early - int(h[_H_LOOKED])) & _MASK30) >= _HALF:  # before the last look
                early = int(h[_H_LOOKED])
            h[_H_STAMP] = early
            h[_H_UNREAD] = 1
        if h[_H_ARMED] == 1 and (word & _FULL_ONE) == _FULL + 1:
            if int(ptr8(h[_H_BUFFER])[0]) == 10:  # noqa: F821
                h[_H_ARMED] = 2
    h[_H_LOOKED] = t
    flags = int(h[_H_UNREAD])
    if h[_H_ARMED] == 2:
        flags |= 8
    every = int(h[_H_EVERY])
    if h[_H_ARMED]:  # the USB stack, asked, could take a lone "\n" before a look sees it
        every = every << 3
    if ((t - int(h[_H_ASKED])) & _MASK30) >= every:
        flags |= 2
    if ((t - int(h[_H_TICK_DUE])) & _MASK30) < _HALF:
        flags |= 4
    return flags


@micropython.viper
def probe(ps) -> int:
    """app.Pins's probe in one cheap call: toggle the clock probe, at least 4 us
    after the last toggle (two closer than the PIO's two-tick pass could merge
    into none); returns the timer then (ticks_us). `ps` (array "I"): when it last
    toggled, the addresses of the timer's raw low word and of the SIO's
    GPIO_OUT_XOR, the probe's bit."""
    p = ptr32(ps)  # noqa: F821
    timer = ptr32(p[_P_TIMER])  # noqa: F821
    t = int(timer[0]) & _MASK30
    while ((t - int(p[_P_TOGGLED])) & _MASK30) < 4:
        t = int(timer[0]) & _MASK30
    ptr32(p[_P_XOR])[0] = p[_P_BIT]  # noqa: F821
    t = int(timer[0]) & _MASK30
    p[_P_TOGGLED] = t
    return t
