"""Board link protocol v1, the board's side: CRC, frames out, commands in.

PURE: no machine, rp2, sys or time; runs unchanged on the Pico, under the
MicroPython unix port and under CPython (the tests). The contract is
firmware/board-protocol.md.
"""

MAX_LINE = 128  # bytes in a line, counting any "\r" and the "\n"
TICK_KIND = 64  # a TICK's `kind` for fast.frame_into (an EDGE's: ch << 1 | level)
U32 = 0xFFFFFFFF

# ERR codes this board sends (the text after the code says more).
ERR_FRAME = 1  # no CRC, a malformed CRC, or a CRC that does not match
ERR_TOO_LONG = 2  # the line was longer than MAX_LINE and was discarded
ERR_UNKNOWN = 3  # the command type is not one this board knows
ERR_ARGS = 4  # wrong number of fields, or a field that is not an integer
ERR_NO_OUTPUT = 5  # LED for an output this board does not have
ERR_RANGE = 6  # a well-formed value outside what is allowed
ERR_BUSY = 7  # too many SYNC requests waiting for their time
ERR_INTERNAL = 99  # the firmware caught one of its own faults and carried on


def _make_table():
    table = []
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_TABLE = _make_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of `data` (bytes): poly 0x1021, init 0xFFFF, no reflection."""
    table = _TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ b]
    return crc


def frame(payload):
    """One board frame as bytes: `payload` (a str) "*" CRC in upper-case hex, "\\n"."""
    raw = payload.encode()
    return raw + ("*%04X\n" % crc16(raw)).encode()


def safe_field(text, limit=24):
    """`text` made fit for one field: printable ASCII but "*", at most `limit` chars."""
    out = []
    for ch in text[:limit]:
        o = ord(ch)
        out.append(ch if 0x21 <= o <= 0x7E and ch != "*" else "?")
    return "".join(out) or "?"


class CommandError(Exception):
    """A host line this board will not act on: `code` and `text` go into an ERR frame."""

    def __init__(self, code, text):
        super().__init__(code, text)
        self.code = code
        self.text = text


TOO_LONG = b"\x00too-long"  # what LineReader.feed returns for a discarded line


class LineReader:
    """Splits the byte stream from the host into lines; holds at most MAX_LINE bytes.

    `feed(byte)` takes one byte (an int) and returns None until a line ends; then
    it returns the line without "\\r\\n", or TOO_LONG when the line was longer than
    MAX_LINE (it was discarded up to its "\\n").
    """

    def __init__(self):
        self._buf = bytearray()
        self._overflow = False

    @property
    def partial(self):
        """The bytes of the line read so far, no "\\n" yet (b"" for one too long)."""
        return b"" if self._overflow else bytes(self._buf)

    def feed(self, byte):
        if byte != 0x0A:
            if self._overflow:
                return None
            if len(self._buf) >= MAX_LINE - 1:  # no room left for the "\n"
                self._overflow = True
                self._buf = bytearray()
                return None
            self._buf.append(byte)
            return None
        if self._overflow:
            self._overflow = False
            return TOO_LONG
        line = bytes(self._buf)
        self._buf = bytearray()
        if line and line[-1] == 0x0D:
            line = line[:-1]
        return line


def _uint(field, what, top=U32):
    """The unsigned decimal integer in `field` (bytes), or CommandError."""
    if not field or (len(field) > 1 and field[0] == 0x30):
        raise CommandError(ERR_ARGS, "%s %s is not an unsigned integer" % (what, _show(field)))
    for b in field:
        if not 0x30 <= b <= 0x39:
            raise CommandError(
                ERR_ARGS, "%s %s is not an unsigned integer" % (what, _show(field))
            )
    value = int(field.decode())
    if value > top:
        raise CommandError(ERR_RANGE, "%s %d is out of range: 0-%d" % (what, value, top))
    return value


def _show(field):
    return safe_field("".join(chr(b) for b in field[:24]))


# The commands a host may send: name -> its field names.
COMMANDS = {
    "HELLO?": (),
    "SYNC": ("token",),
    "LED": ("ch", "state"),
    "DEBOUNCE": ("us",),
}


def parse_command(line):
    """A host line (bytes, without "\\r\\n") as a tuple: (name, *unsigned ints).

    Checks the framing (CRC, fields, integers) and the field count; what the values
    may be on this board (an LED that exists, a debounce in range) is the board's
    business. Raises CommandError, whose code and text make the ERR frame.
    """
    star = line.rfind(b"*")
    if star < 0:
        raise CommandError(ERR_FRAME, "no crc: a frame ends with a star and 4 hex digits")
    payload = line[:star]
    crc_field = line[star + 1 :]
    if len(crc_field) != 4 or not all(b in b"0123456789abcdefABCDEF" for b in crc_field):
        raise CommandError(ERR_FRAME, "crc %s is not 4 hex digits" % _show(crc_field))
    got = int(crc_field.decode(), 16)
    want = crc16(payload)
    if got != want:
        raise CommandError(ERR_FRAME, "crc %04X does not match the payload: %04X" % (got, want))
    for b in payload:
        if b != 0x20 and not (0x21 <= b <= 0x7E):
            raise CommandError(ERR_ARGS, "byte 0x%02X is not allowed in a frame" % b)
    fields = payload.split(b" ")
    for f in fields:
        if not f:
            raise CommandError(ERR_ARGS, "fields are separated by exactly one space")
    name = fields[0].decode()
    names = COMMANDS.get(name)
    if names is None:
        raise CommandError(
            ERR_UNKNOWN, "command %s is unknown: HELLO? SYNC LED DEBOUNCE" % safe_field(name)
        )
    if len(fields) - 1 != len(names):
        raise CommandError(
            ERR_ARGS,
            "%s takes %d fields, not %d" % (name, len(names), len(fields) - 1),
        )
    return (name,) + tuple(_uint(f, n) for f, n in zip(fields[1:], names))
