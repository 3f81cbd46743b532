"""The answer to a SYNC in MicroPython's viper code emitter: the line checked and
its answer written in one call.

The host splits a SYNC's round trip at its midpoint (board-protocol.md), so every
microsecond between a SYNC's stamp and its answer leaving is half a microsecond of
error in each time the host maps from it; in plain Python, parsing the line and
formatting the answer cost a Pico some 2 ms, in viper ~0.1 ms. `sync_answer` gives
byte for byte the frame protocol.frame gives, for the lines protocol.parse_command
reads as a SYNC (a test compares them); for any other line it returns -1 and
refuses nothing. A port without viper fails to import this module: app.py then
answers every SYNC through the plain path.
"""

import array

import micropython
from micropython import const

from padboard.protocol import crc16

# the CRC table, as 16-bit words (a byte's CRC from 0 is its entry)
_TABLE = array.array("H", [crc16(bytes([i]), 0) for i in range(256)])
_HEX = b"0123456789ABCDEF"
_POW10 = array.array("i", [100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1])
_MASK30 = const(0x3FFFFFFF)  # ticks_us counts mod 2**30
_HALF = const(0x20000000)  # a difference mod 2**30 this or more: negative
_E9 = const(1000000000)
_HI_MAX = const(8192)  # times below 8192 * 10**9 (95 days); later ones are protocol's

# the words of `w` (array "i"), as core.PadBoard fills them
_W_AT = const(0)  # where the frame starts in buf
_W_SEQ = const(1)  # its seq
_W_LO = const(2)  # a board time: lo + hi * 10**9 ...
_W_HI = const(3)
_W_MARK = const(4)  # ... at this ticks_us ...
_W_ARRIVED = const(5)  # ... and the answer's time: when the line arrived (ticks_us)
WORDS = 6


@micropython.viper
def sync_answer(line, buf, w) -> int:
    """protocol.parse_command of a SYNC line (bytes, without "\\r\\n") and the frame
    of its answer, in one call, for the common line only: "SYNC ", 1 to 9 digits (no
    leading zero), "*", its CRC in 4 hex digits. Writes "SYNC <seq> <token> <t>", "*",
    its CRC and "\\n" into `buf` from w[_W_AT] (at least 64 bytes free): t is the
    board time lo + hi * 10**9 at ticks_us `mark`, moved on to ticks_us `arrived`
    (the same crystal: a microsecond is a tick). Returns its end; -1 for every other
    line, which protocol.parse_command then reads (-1 refuses nothing), or for a
    seq or a time too large (the plain path writes those)."""
    b = ptr8(line)  # noqa: F821
    n = int(len(line))
    star = n - 5
    if star < 6 or star > 14 or b[star] != 42:  # 42: "*"
        return -1
    if b[0] != 83 or b[1] != 89 or b[2] != 78 or b[3] != 67 or b[4] != 32:  # "SYNC "
        return -1
    if star > 6 and b[5] == 48:  # a leading zero
        return -1
    for i in range(5, star):
        if b[i] < 48 or b[i] > 57:
            return -1
    table = ptr16(_TABLE)  # noqa: F821
    crc = 0xFFFF
    for i in range(star):
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ b[i]]
    got = 0
    for i in range(star + 1, n):
        c = b[i]
        if c >= 48 and c <= 57:
            c -= 48
        elif c >= 65 and c <= 70:
            c -= 55
        elif c >= 97 and c <= 102:
            c -= 87
        else:
            return -1
        got = (got << 4) | c
    if got != crc:
        return -1
    f = ptr32(w)  # noqa: F821
    d = (int(f[_W_ARRIVED]) - int(f[_W_MARK])) & _MASK30
    if d >= _HALF:  # arrived before the mark: ticks_diff's negative
        d = d - _MASK30 - 1  # (2**30 is no small int: a literal would be an object)
    lo = int(f[_W_LO]) + d
    hi = int(f[_W_HI])
    if lo < 0:
        lo += _E9
        hi -= 1
    elif lo >= _E9:
        lo -= _E9
        hi += 1
    seq = int(f[_W_SEQ])
    if seq < 0 or seq >= _E9 or hi < 0 or hi >= _HI_MAX:
        return -1
    # the answer: "SYNC ", the seq, the token's digits as they came, the time
    o = ptr8(buf)  # noqa: F821
    p = ptr32(_POW10)  # noqa: F821
    at = int(f[_W_AT])
    m = at + 5
    for i in range(5):
        o[at + i] = b[i]
    for k in range(4):  # seq, token, hi, lo
        if k == 1:
            for i in range(5, star):
                o[m] = b[i]
                m += 1
            o[m] = 32
            m += 1
            continue
        x = seq
        width = 0  # digits: 0 for as many as it takes
        if k == 2:
            if not hi:
                continue
            x = hi
        elif k == 3:
            x = lo
            if hi:
                width = 9
        if not width:
            width = 1
            while width < 9 and x >= p[8 - width]:
                width += 1
        i = m + width - 1
        while i >= m:
            q = x // 10
            o[i] = 48 + x - 10 * q
            x = q
            i -= 1
        m += width
        if k == 0:
            o[m] = 32
            m += 1
    hexd = ptr8(_HEX)  # noqa: F821
    crc = 0xFFFF
    for i in range(at, m):
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ o[i]]
    o[m] = 42  # *
    o[m + 1] = hexd[crc >> 12]
    o[m + 2] = hexd[(crc >> 8) & 15]
    o[m + 3] = hexd[(crc >> 4) & 15]
    o[m + 4] = hexd[crc & 15]
    o[m + 5] = 10
    return m + 6
