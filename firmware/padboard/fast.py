"""The board's two hot paths in MicroPython's viper code emitter.

Every edge costs the board a CRC and a trip through the DMA ring; in plain
Python those take a few hundred microseconds of the Pico's time, in viper a
few. `frame` gives byte for byte the frames protocol.frame gives (a test
compares them). A port without viper fails to import this module, and app.py
falls back to plain Python.
"""

import array

import micropython

from padboard import protocol

_TABLE = array.array("H", protocol._TABLE)  # the one CRC table, as 16-bit words


@micropython.viper
def crc16(data, n: int) -> int:
    table = ptr16(_TABLE)  # noqa: F821  (viper's pointer types are built in)
    buf = ptr8(data)  # noqa: F821
    crc = 0xFFFF
    for i in range(n):
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ buf[i]]
    return crc


_TAIL = bytearray(b"*0000\n")  # "*", the CRC in hex, "\n": filled in per frame
_HEX = b"0123456789ABCDEF"


@micropython.viper
def _crc_tail(data, n: int, tail, digits):
    table = ptr16(_TABLE)  # noqa: F821
    buf = ptr8(data)  # noqa: F821
    crc = 0xFFFF
    for i in range(n):
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ buf[i]]
    out = ptr8(tail)  # noqa: F821
    hexd = ptr8(digits)  # noqa: F821
    out[1] = hexd[crc >> 12]
    out[2] = hexd[(crc >> 8) & 15]
    out[3] = hexd[(crc >> 4) & 15]
    out[4] = hexd[crc & 15]


@micropython.native
def frame(payload):
    """One board frame as bytes, like protocol.frame."""
    raw = payload.encode()
    _crc_tail(raw, len(raw), _TAIL, _HEX)
    return raw + _TAIL


@micropython.viper
def copy_pairs(ring, at: int, mask: int, count: int, out) -> int:
    """Copy `count` (pins, counter) pairs from `ring` (32-bit words, `mask` + 1 of
    them) at word `at` into `out` as (pins, ticks mod 2**30): small ints all."""
    src = ptr32(ring)  # noqa: F821
    dst = ptr32(out)  # noqa: F821
    for i in range(count):
        dst[2 * i] = src[at]
        dst[2 * i + 1] = (0 - src[at + 1]) & 0x3FFFFFFF
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
_E16 = 10**16
_POW10 = array.array("i", [100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1])
_EDGE = bytearray(80)  # one EDGE frame is at most 6+11+3+2+21+6 bytes
_EDGE_VIEW = memoryview(_EDGE)
_ROOM = 64  # bytes an EDGE or TICK frame may take, at most


@micropython.viper
def _digits(b, n: int, x: int, pad: int) -> int:
    """Write `x` (< 10**9) in decimal into `b` at `n`: `pad` 9 digits, else no
    leading zeros; returns the new `n`."""
    out = ptr8(b)  # noqa: F821
    p = ptr32(_POW10)  # noqa: F821
    for i in range(9):
        q = 0
        d = p[i]
        while x >= d:
            x -= d
            q += 1
        if q or pad or i == 8:
            out[n] = 48 + q
            n += 1
            pad = 1
    return n


@micropython.viper
def _seal(buf, at: int, n: int) -> int:
    """End the frame written into `buf` from `at` to `n`: "*", its CRC in hex, "\n".
    Returns its end."""
    b = ptr8(buf)  # noqa: F821
    table = ptr16(_TABLE)  # noqa: F821
    crc = 0xFFFF
    for i in range(at, n):
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ b[i]]
    hexd = ptr8(_HEX)  # noqa: F821
    b[n] = 42  # *
    b[n + 1] = hexd[crc >> 12]
    b[n + 2] = hexd[(crc >> 8) & 15]
    b[n + 3] = hexd[(crc >> 4) & 15]
    b[n + 4] = hexd[crc & 15]
    b[n + 5] = 10
    return n + 6


@micropython.viper
def _head(buf, at: int, kind: int, seq: int) -> int:
    """Write "EDGE <seq> " (`kind` 0) or "TICK <seq> " (1) into `buf` at `at`."""
    b = ptr8(buf)  # noqa: F821
    if kind:
        b[at] = 84  # T
        b[at + 1] = 73  # I
        b[at + 2] = 67  # C
        b[at + 3] = 75  # K
    else:
        b[at] = 69  # E
        b[at + 1] = 68  # D
        b[at + 2] = 71  # G
        b[at + 3] = 69  # E
    b[at + 4] = 32
    n = int(_digits(buf, at + 5, seq, 0))
    b[n] = 32
    return n + 1


@micropython.viper
def _time(buf, n: int, hi: int, lo: int) -> int:
    """Write the time hi * 10**9 + lo in decimal into `buf` at `n`."""
    if hi:
        n = int(_digits(buf, n, hi, 0))
        return int(_digits(buf, n, lo, 1))
    return int(_digits(buf, n, lo, 0))


@micropython.viper
def _edge_fields(buf, n: int, ch: int, level: int) -> int:
    """Write "<ch> <level> " into `buf` at `n`."""
    b = ptr8(buf)  # noqa: F821
    n = int(_digits(buf, n, ch, 0))
    b[n] = 32
    b[n + 1] = 48 + level
    b[n + 2] = 32
    return n + 3


@micropython.native
def _time_into(buf, n, t):
    """Write the time `t` in decimal into `buf` at `n`; returns the new `n`, or -1
    past what the fast path writes."""
    if t < _E9:
        return _time(buf, n, 0, t)
    if t < _E16:  # 317 years of uptime
        return _time(buf, n, t // _E9, t % _E9)
    return -1


@micropython.native
def edge_into(buf, at, seq, ch, level, t):
    """Write the EDGE frame protocol.frame would give into `buf` at `at` (at least
    _ROOM bytes free); returns its end, or -1 for a frame it leaves to protocol."""
    if seq >= _E9:
        return -1
    n = _time_into(buf, _edge_fields(buf, _head(buf, at, 0, seq), ch, level), t)
    return -1 if n < 0 else _seal(buf, at, n)


@micropython.native
def tick_into(buf, at, seq, t):
    """Write the TICK frame protocol.frame would give into `buf` at `at`, like
    edge_into."""
    if seq >= _E9:
        return -1
    n = _time_into(buf, _head(buf, at, 1, seq), t)
    return -1 if n < 0 else _seal(buf, at, n)


@micropython.native
def edge_frame(seq, ch, level, t):
    """The EDGE frame protocol.frame would give for these fields, as bytes."""
    n = edge_into(_EDGE, 0, seq, ch, level, t)
    if n < 0:
        return frame("EDGE %d %d %d %d" % (seq, ch, level, t))
    return bytes(_EDGE_VIEW[:n])


@micropython.native
def tick_frame(seq, t):
    """The TICK frame protocol.frame would give, as bytes."""
    n = tick_into(_EDGE, 0, seq, t)
    if n < 0:
        return frame("TICK %d %d" % (seq, t))
    return bytes(_EDGE_VIEW[:n])
