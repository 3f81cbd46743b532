"""One protocol script, two boards: the emulator (buzzerbox.pads.fakes.padboard) and the
whole firmware (firmware/main.py in the MicroPython unix port) answer every host line
alike: the same frames, the same ERR codes and texts, seq numbers without a gap."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from buzzerbox.pads.board import boardside
from buzzerbox.pads.fakes.padboard import FakeBoard

from .fwbench import BOARD_ID, FirmwareProcess, Frame, crc16, fw

ANY = "*"  # a SYNC answer's time is the board's own
HELLO = ("HELLO", "1", BOARD_ID, "0.1.0", "1000000", "24")


def line(payload: str, crc: str | None = None, end: str = "\n") -> bytes:
    raw = payload.encode()
    return raw + b"*" + (crc or "%04X" % crc16(raw)).encode() + end.encode()


# what the host sends, and what the board answers (type, then the fields after seq)
SCRIPT: list[tuple[bytes, list[tuple[str, ...]]]] = [
    (b"", [HELLO]),  # at boot, with seq 0
    (line("HELLO?"), [HELLO]),
    (line("HELLO?", "c851", end="\r\n"), [HELLO]),  # lower-case CRC, CR LF
    (line("SYNC 42"), [("SYNC", "42", ANY)]),
    (line("SYNC 4294967295"), [("SYNC", "4294967295", ANY)]),
    (line("LED 1 1") + line("LED 0 0") + line("DEBOUNCE 2000") + b"\n\r\n", []),
    (line("LED 2 1"), [("ERR", "5", "output 2 does not exist: this board has outputs 0-1")]),
    (line("LED 1 2"), [("ERR", "6", "LED level 2 is out of range: 0 or 1")]),
    (line("DEBOUNCE 1000001"), [("ERR", "6", "DEBOUNCE 1000001 us is out of range: 0-1000000")]),
    (line("DEBOUNCE 1000000"), []),
    (line("SYNC 07"), [("ERR", "4", "token 07 is not an unsigned integer")]),
    (line("SYNC 4294967296"), [("ERR", "6", "token 4294967296 is out of range: 0-4294967295")]),
    (line("REBOOT"), [("ERR", "3", "command REBOOT is unknown: HELLO? SYNC LED DEBOUNCE")]),
    (line("LED 1"), [("ERR", "4", "LED takes 2 fields, not 1")]),
    (line("SYNC  1"), [("ERR", "4", "fields are separated by exactly one space")]),
    (line("SYNC 1", "0000"), [("ERR", "1", "crc 0000 does not match the payload: A585")]),
    (line("SYNC 1", "12G4"), [("ERR", "1", "crc 12G4 is not 4 hex digits")]),
    (b"SYNC 1\n", [("ERR", "1", "no crc: a frame ends with a star and 4 hex digits")]),
    (b"x" * 200 + b"\n", [("ERR", "2", "line too long: at most 128 bytes")]),
]

#: send bytes, then `SYNC <marker>`; every frame up to the marker's answer
Exchange = Callable[[bytes, int], list[Frame]]


def parse(raw: bytes) -> Frame:
    payload, _, crc = raw.rpartition(b"*")
    assert crc == b"%04X" % crc16(payload), raw
    kind, *fields = payload.decode().split(" ")
    return Frame(kind, tuple(fields))


def answer(f: Frame) -> tuple[str, ...]:
    """A frame as the script says it: no seq; an ERR's text whole; no SYNC time."""
    if f.type == "ERR":
        return ("ERR", f.fields[1], " ".join(f.fields[2:]))
    if f.type == "SYNC":
        return ("SYNC", f.fields[1], ANY)
    return (f.type, *f.fields[1:])


@pytest.fixture(params=["emulator", "firmware"])
def exchange(request: pytest.FixtureRequest) -> Iterator[Exchange]:
    if request.param == "emulator":
        board = FakeBoard(BOARD_ID, channels=24, leds=2, fw_version="0.1.0")
        booted = [parse(raw) for raw in board.boot().splitlines()]

        def emulated(data: bytes, marker: int) -> list[Frame]:
            out = board.received(data + line(f"SYNC {marker}"))
            frames = booted + [parse(raw) for raw in out.splitlines()]
            booted.clear()
            return frames

        yield emulated
    else:
        firmware: FirmwareProcess = request.getfixturevalue("firmware")
        link = firmware.link
        started = link.until("HELLO", 10)

        def flashed(data: bytes, marker: int) -> list[Frame]:
            link.send_raw(data + line(f"SYNC {marker}"))
            frames = started + link.until("SYNC", _1=str(marker))
            started.clear()
            return frames

        yield flashed


def test_one_script_gets_the_same_answers_from_both(exchange: Exchange) -> None:
    seqs: list[int] = []
    for marker, (sent, expected) in enumerate(SCRIPT, start=1000):
        frames = exchange(sent, marker)
        seqs += [f.seq for f in frames]
        got = [answer(f) for f in frames if f.type != "TICK"]
        assert got == [*expected, ("SYNC", str(marker), ANY)], sent
    assert seqs == list(range(len(seqs)))  # from 0 at boot, no gap (TICKs included)


def test_both_name_the_err_codes_and_the_debounce_range_alike() -> None:
    protocol, config = fw("protocol"), fw("config")
    names = sorted(n for n in vars(protocol) if n.startswith("ERR_"))
    assert names == sorted(n for n in vars(boardside) if n.startswith("ERR_"))
    assert len(names) == 8
    for name in names:
        assert getattr(boardside, name) == getattr(protocol, name), name
    assert boardside.DEBOUNCE_MAX_US == config.DEBOUNCE_MAX_US
