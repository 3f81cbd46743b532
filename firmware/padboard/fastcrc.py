"""protocol.frame, fast: the CRC in MicroPython's viper code emitter.

The board writes one frame per edge; the CRC in plain Python takes a few
hundred microseconds of the Pico's time per frame, in viper a few. Byte for
byte the same frames as protocol.frame (a test compares them). A port without
viper fails to import this module, and app.py uses protocol.frame instead.
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


def frame(payload):
    """One board frame as bytes, like protocol.frame."""
    raw = payload.encode()
    return raw + ("*%04X\n" % crc16(raw, len(raw))).encode()
