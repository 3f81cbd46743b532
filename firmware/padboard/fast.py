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
