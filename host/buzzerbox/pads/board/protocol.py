"""Board link protocol v1: framing and parsing. PURE: no I/O, no clock, no threads.

The contract is firmware/board-protocol.md at the top of the repository (shipped
in the package as buzzerbox/firmware/board-protocol.md). This module turns bytes
into typed frames and frames into bytes; the host session (`session.py`) and the
board emulator (`fakes/padboard.py`) both build on it, and nothing here ever touches a
port.

- `crc16(data)`: CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF); ``b"123456789"``
  gives ``0x29B1``.
- `encode(payload)`: ``payload "*" CRC "\\n"``, checked against the framing rules.
- `parse_board(payload)` / `parse_host(payload)`: one payload (CRC already
  checked) into a frame dataclass, or None when it is malformed or unknown.
- `FrameDecoder`: a streaming decoder with a bounded buffer. Any bytes may go
  in; a bad line is dropped and counted, never raised.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

from buzzerbox.pads.errors import FrameError

PROTO: Final = 1
MAX_LINE: Final = 128
"""The longest line, counting any ``\\r`` and the ``\\n``."""
U32: Final = 1 << 32
U64: Final = 1 << 64

_HEX: Final = frozenset(b"0123456789abcdefABCDEF")


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of `data`: poly 0x1021, init 0xFFFF, no reflection, xorout 0."""
    return binascii.crc_hqx(data, 0xFFFF)


def encode(payload: str) -> bytes:
    """Frame `payload` (``TYPE *(" " FIELD)``) as one line with its CRC (upper case)."""
    if not payload or not payload.isascii() or not payload.isprintable() or "*" in payload:
        raise FrameError(
            f"payload {payload!r} is not allowed: fields are printable ASCII other than '*'"
        )
    if "" in payload.split(" "):
        raise FrameError(f"payload {payload!r} is not allowed: fields take exactly one space")
    raw = payload.encode("ascii")
    line = b"%s*%04X\n" % (raw, crc16(raw))
    if len(line) > MAX_LINE:
        raise FrameError(f"frame of {len(line)} bytes is too long: a line has at most {MAX_LINE}")
    return line


# Board -> host ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """``HELLO <seq> <proto> <board_id> <fw_version> <tick_hz> <channels>``.

    For a `proto` other than 1 only `seq`, `proto` and (if present) `board_id` are
    read: the rest of such a frame is another version's business.
    """

    seq: int
    proto: int
    board_id: str
    fw_version: str = ""
    tick_hz: int = 0
    channels: int = 0


@dataclass(frozen=True, slots=True)
class EdgeFrame:
    """``EDGE <seq> <ch> <state> <t>``: channel `ch` changed at board time `t`."""

    seq: int
    ch: int
    state: int
    t: int


@dataclass(frozen=True, slots=True)
class Tick:
    """``TICK <seq> <t>``: every edge before board time `t` has been sent."""

    seq: int
    t: int


@dataclass(frozen=True, slots=True)
class SyncReply:
    """``SYNC <seq> <token> <t>``: the board clock when the host's ``SYNC <token>`` ended."""

    seq: int
    token: int
    t: int


@dataclass(frozen=True, slots=True)
class Lost:
    """``LOST <seq> <count>``: the board dropped `count` edges since its last LOST."""

    seq: int
    count: int


@dataclass(frozen=True, slots=True)
class Err:
    """``ERR <seq> <code> <text…>``: the board could not do something."""

    seq: int
    code: int
    text: str


BoardFrame = Hello | EdgeFrame | Tick | SyncReply | Lost | Err


# Host -> board ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HelloRequest:
    """``HELLO?``: the board answers with HELLO."""


@dataclass(frozen=True, slots=True)
class SyncRequest:
    """``SYNC <token>``."""

    token: int


@dataclass(frozen=True, slots=True)
class LedSet:
    """``LED <ch> <0|1>``: light (1) or darken (0) output `ch`."""

    ch: int
    on: bool


@dataclass(frozen=True, slots=True)
class DebounceSet:
    """``DEBOUNCE <us>``: the debounce window of every input."""

    us: int


HostFrame = HelloRequest | SyncRequest | LedSet | DebounceSet


def hello_request() -> bytes:
    return encode("HELLO?")


def sync_request(token: int) -> bytes:
    return encode(f"SYNC {token}")


def led_set(ch: int, on: bool) -> bytes:
    return encode(f"LED {ch} {int(on)}")


def debounce_set(us: int) -> bytes:
    return encode(f"DEBOUNCE {us}")


# Parsing ------------------------------------------------------------------------


def _uint(text: str, limit: int = U64) -> int | None:
    """An unsigned decimal below `limit`: no sign, no leading zero (except ``0``)."""
    if not text.isdigit() or len(text) > 20 or (text[0] == "0" and len(text) > 1):
        return None
    value = int(text)
    return value if value < limit else None


def _fields(payload: str) -> list[str] | None:
    if not payload.isprintable() or "*" in payload:
        return None
    fields = payload.split(" ")
    return None if "" in fields else fields


def parse_board(payload: str) -> BoardFrame | None:
    """A board's frame from its payload (ASCII, CRC checked), or None if malformed."""
    f = _fields(payload)
    if f is None:
        return None
    kind, n = f[0], len(f)
    if kind == "EDGE":
        if n != 5 or f[3] not in ("0", "1"):
            return None
        seq, ch, t = _uint(f[1], U32), _uint(f[2], U32), _uint(f[4])
        if seq is None or ch is None or t is None:
            return None
        return EdgeFrame(seq, ch, 1 if f[3] == "1" else 0, t)
    if kind == "TICK":
        if n != 3:
            return None
        seq, t = _uint(f[1], U32), _uint(f[2])
        return None if seq is None or t is None else Tick(seq, t)
    if kind == "SYNC":
        if n != 4:
            return None
        seq, token, t = _uint(f[1], U32), _uint(f[2], U32), _uint(f[3])
        return None if seq is None or token is None or t is None else SyncReply(seq, token, t)
    if kind == "HELLO":
        return _parse_hello(f)
    if kind == "LOST":
        if n != 3:
            return None
        seq, count = _uint(f[1], U32), _uint(f[2])
        return None if seq is None or count is None else Lost(seq, count)
    if kind == "ERR":
        if n < 3:
            return None
        seq, code = _uint(f[1], U32), _uint(f[2], U32)
        return None if seq is None or code is None else Err(seq, code, " ".join(f[3:]))
    return None


def _parse_hello(f: list[str]) -> Hello | None:
    if len(f) < 3:
        return None
    seq, proto = _uint(f[1], U32), _uint(f[2])
    if seq is None or proto is None:
        return None
    if proto != PROTO:
        return Hello(seq, proto, f[3] if len(f) > 3 else "")
    if len(f) != 7:
        return None
    tick_hz, channels = _uint(f[5]), _uint(f[6], U32)
    if tick_hz is None or tick_hz == 0 or channels is None:
        return None
    return Hello(seq, proto, f[3], f[4], tick_hz, channels)


def parse_host(payload: str) -> HostFrame | None:
    """A host's frame from its payload (ASCII, CRC checked), or None if malformed."""
    f = _fields(payload)
    if f is None:
        return None
    kind, n = f[0], len(f)
    if kind == "HELLO?":
        return HelloRequest() if n == 1 else None
    if kind == "SYNC" and n == 2:
        token = _uint(f[1], U32)
        return None if token is None else SyncRequest(token)
    if kind == "LED" and n == 3 and f[2] in ("0", "1"):
        ch = _uint(f[1], U32)
        return None if ch is None else LedSet(ch, f[2] == "1")
    if kind == "DEBOUNCE" and n == 2:
        us = _uint(f[1], U32)
        return None if us is None else DebounceSet(us)
    return None


F = TypeVar("F")


def board_decoder() -> FrameDecoder[BoardFrame]:
    """The host's decoder: frames a board sends."""
    return FrameDecoder(parse_board)


def host_decoder() -> FrameDecoder[HostFrame]:
    """A board's decoder: frames the host sends."""
    return FrameDecoder(parse_host)


def check_line(line: bytes | bytearray) -> str | None:
    """The payload of one line (with or without its ``\\n``) if its framing and CRC hold."""
    end = len(line)
    if end and line[end - 1] == 0x0A:
        end -= 1
    if end and line[end - 1] == 0x0D:
        end -= 1
    star = line.rfind(b"*", 0, end)
    if star < 1 or end - star != 5:
        return None
    crc = line[star + 1 : end]
    if not _HEX.issuperset(crc):
        return None
    body = bytes(line[:star])
    if crc16(body) != int(crc, 16) or not body.isascii():
        return None
    return body.decode("ascii")


class FrameDecoder(Generic[F]):
    """Bytes in, frames out. Holds at most `MAX_LINE` bytes between calls.

    `parse` turns a checked payload into a frame (`parse_board` on the host,
    `parse_host` on a board); None means malformed. A line with bad framing, a
    bad CRC or a malformed payload is dropped and counted in `bad`; a line over
    `MAX_LINE` bytes is dropped up to the next ``\\n`` and counted in `bad` and
    `too_long`. `feed` never raises for any input.
    """

    def __init__(self, parse: Callable[[str], F | None], *, max_line: int = MAX_LINE) -> None:
        self._parse = parse
        self._max = max_line
        self._buf = bytearray()
        self._skipping = False
        self.frames = 0
        self.bad = 0
        self.too_long = 0

    @property
    def buffered(self) -> int:
        """Bytes held for a line not yet ended (never more than `max_line`)."""
        return len(self._buf)

    def reset(self) -> None:
        """Forget a partial line (after the port was reopened)."""
        self._buf.clear()
        self._skipping = False

    def feed(self, data: bytes) -> list[F]:
        """Every complete frame in `data` (after what was held), in order."""
        buf = self._buf
        buf += data
        out: list[F] = []
        start = 0
        limit = self._max
        while True:
            nl = buf.find(b"\n", start)
            if nl < 0:
                break
            if self._skipping:
                self._skipping = False
            elif nl + 1 - start > limit:
                self.bad += 1
                self.too_long += 1
            else:
                frame = self._frame(buf[start : nl + 1])
                if frame is None:
                    self.bad += 1
                else:
                    self.frames += 1
                    out.append(frame)
            start = nl + 1
        if start:
            del buf[:start]
        if len(buf) >= limit:
            # The line will be longer than allowed whatever follows: drop it now.
            if not self._skipping:
                self.bad += 1
                self.too_long += 1
            self._skipping = True
            buf.clear()
        return out

    def _frame(self, line: bytearray) -> F | None:
        payload = check_line(line)
        return None if payload is None else self._parse(payload)
