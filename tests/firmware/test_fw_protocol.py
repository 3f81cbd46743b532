"""The firmware's side of board-protocol.md: CRC, frames out, lines and commands in."""

from __future__ import annotations

import binascii
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .fwbench import fw

protocol = fw("protocol")

SPEC_EXAMPLES = [
    b"HELLO 0 1 pico-e6614103 0.1.0 1000000 16*5099",
    b"EDGE 1 3 1 5123456*2939",
    b"TICK 2 5150000*2425",
    b"SYNC 3 42 5160123*597F",
]


def line(payload: str) -> bytes:
    raw = payload.encode()
    return raw + b"*%04X" % binascii.crc_hqx(raw, 0xFFFF)


def test_crc_check_value() -> None:
    assert protocol.crc16(b"123456789") == 0x29B1


@pytest.mark.parametrize("example", SPEC_EXAMPLES)
def test_frames_match_the_spec_examples(example: bytes) -> None:
    payload = example.rpartition(b"*")[0]
    assert protocol.frame(payload.decode()) == example + b"\n"


@given(st.binary(max_size=200))
def test_crc_matches_an_independent_implementation(data: bytes) -> None:
    assert protocol.crc16(data) == binascii.crc_hqx(data, 0xFFFF)


def feed(reader: Any, data: bytes) -> list[bytes]:
    lines = []
    for b in data:
        got = reader.feed(b)
        if got is not None:
            lines.append(got)
    return lines


def test_lines_drop_the_cr_and_keep_128_bytes() -> None:
    reader = protocol.LineReader()
    longest = b"x" * 127 + b"\n"  # 128 bytes with the "\n"
    with_cr = b"y" * 126 + b"\r\n"
    assert feed(reader, b"A\r\nB\n" + longest + with_cr) == [b"A", b"B", b"x" * 127, b"y" * 126]


def test_a_longer_line_is_discarded_up_to_its_newline() -> None:
    reader = protocol.LineReader()
    got = feed(reader, b"z" * 128 + b"\n" + b"q" * 500 + b"\nok\n")
    assert got == [protocol.TOO_LONG, protocol.TOO_LONG, b"ok"]


@pytest.mark.parametrize(
    ("payload", "parsed"),
    [
        ("HELLO?", ("HELLO?",)),
        ("SYNC 0", ("SYNC", 0)),
        ("SYNC 4294967295", ("SYNC", 4294967295)),
        ("LED 1 1", ("LED", 1, 1)),
        ("DEBOUNCE 5000", ("DEBOUNCE", 5000)),
    ],
)
def test_commands_parse(payload: str, parsed: tuple[object, ...]) -> None:
    assert protocol.parse_command(line(payload)) == parsed


def test_a_lower_case_crc_is_accepted() -> None:
    assert protocol.parse_command(line("SYNC 7").lower().replace(b"sync", b"SYNC")) == ("SYNC", 7)


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"SYNC 7", protocol.ERR_FRAME),  # no CRC
        (b"SYNC 7*12G4", protocol.ERR_FRAME),
        (b"SYNC 7*123", protocol.ERR_FRAME),
        (b"SYNC 7*%04X" % (binascii.crc_hqx(b"SYNC 7", 0xFFFF) ^ 1), protocol.ERR_FRAME),
        (line("SYNC  7"), protocol.ERR_ARGS),  # two spaces
        (line("SYNC 7 "), protocol.ERR_ARGS),
        (line(" SYNC 7"), protocol.ERR_ARGS),
        (line("SYNC 07"), protocol.ERR_ARGS),  # leading zero
        (line("SYNC -7"), protocol.ERR_ARGS),
        (line("SYNC 7x"), protocol.ERR_ARGS),
        (line("SYNC"), protocol.ERR_ARGS),
        (line("LED 1"), protocol.ERR_ARGS),
        (line("HELLO? 1"), protocol.ERR_ARGS),
        (line("SYNC\t7"), protocol.ERR_ARGS),
        (line("SYNC 4294967296"), protocol.ERR_RANGE),
        (line("RESET"), protocol.ERR_UNKNOWN),
        (line("hello?"), protocol.ERR_UNKNOWN),
    ],
)
def test_bad_lines_are_refused_with_a_code(raw: bytes, code: int) -> None:
    with pytest.raises(protocol.CommandError) as err:
        protocol.parse_command(raw)
    assert err.value.code == code


@given(st.binary(max_size=140))
def test_any_bytes_give_a_command_or_a_command_error(data: bytes) -> None:
    reader = protocol.LineReader()
    for got in feed(reader, data + b"\n"):
        if got is protocol.TOO_LONG:
            continue
        try:
            protocol.parse_command(got)
        except protocol.CommandError as e:
            frame = protocol.frame(f"ERR 0 {e.code} {e.text}")
            assert len(frame) <= protocol.MAX_LINE
            assert all(0x20 <= b <= 0x7E for b in frame[:-1])


@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_sync_tokens_round_trip(token: int) -> None:
    assert protocol.parse_command(line(f"SYNC {token}")) == ("SYNC", token)
