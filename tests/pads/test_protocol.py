"""Protocol v1 framing: CRC, the spec's examples, parsing, and the streaming decoder."""

from __future__ import annotations

import pytest
from buzzerbox.pads.board import protocol as p
from buzzerbox.pads.errors import FrameError
from hypothesis import given, settings
from hypothesis import strategies as st

SPEC_EXAMPLES = [
    (
        b"HELLO 0 1 pico-e6614103 0.1.0 1000000 16*5099\n",
        p.Hello(0, 1, "pico-e6614103", "0.1.0", 1_000_000, 16),
    ),
    (b"EDGE 1 3 1 5123456*2939\n", p.EdgeFrame(1, 3, 1, 5_123_456)),
    (b"TICK 2 5150000*2425\n", p.Tick(2, 5_150_000)),
    (b"SYNC 3 42 5160123*597F\n", p.SyncReply(3, 42, 5_160_123)),
]


def decode(data: bytes) -> list[p.BoardFrame]:
    return p.board_decoder().feed(data)


def test_crc_check_value() -> None:
    assert p.crc16(b"123456789") == 0x29B1


@pytest.mark.parametrize(("line", "frame"), SPEC_EXAMPLES)
def test_spec_examples_decode(line: bytes, frame: p.BoardFrame) -> None:
    assert decode(line) == [frame]


@pytest.mark.parametrize(("line", "frame"), SPEC_EXAMPLES)
def test_spec_examples_encode(line: bytes, frame: p.BoardFrame) -> None:
    assert p.encode(line[: line.rindex(b"*")].decode()) == line


def test_crc_lower_case_and_crlf_accepted() -> None:
    assert decode(b"TICK 2 5150000*2425\r\n") == [p.Tick(2, 5_150_000)]
    assert decode(b"SYNC 3 42 5160123*597f\n") == [p.SyncReply(3, 42, 5_160_123)]


@pytest.mark.parametrize(
    "line",
    [
        b"TICK 2 5150000*2426\n",  # bad CRC
        b"TICK 2 5150000*242\n",  # short CRC
        b"TICK 2 5150000*+425\n",  # not hex
        b"TICK 2 5150000\n",  # no CRC
        b"TICK  2 5150000*0000\n",  # two spaces (CRC made right below)
        b"\n",
        b"\r\n",
        b"TICK 2 5150000*2425\r\r\n",
    ],
)
def test_bad_lines_are_dropped_and_counted(line: bytes) -> None:
    decoder = p.board_decoder()
    assert decoder.feed(line) == []
    assert decoder.bad == 1


@pytest.mark.parametrize(
    "payload",
    [
        "TICK 02 5",  # leading zero
        "TICK -2 5",  # sign
        "TICK 2",  # field missing
        "TICK 2 5 6",  # field too many
        "EDGE 1 3 2 5",  # state not 0/1
        "SYNC 1 4294967296 5",  # token over u32
        "TICK 4294967296 5",  # seq over u32
        "TICK 1 18446744073709551616",  # t over u64
        "HELLO 0 1 pico 0.1.0 0 16",  # tick_hz 0
        "HELLO 0 1 pico 0.1.0 1000000",  # channels missing
        "BOOM 1 2",  # unknown type
        "TICK 1 5 ",  # trailing space
        "TICK\t1 5",  # not printable
        "ERR 1",  # code missing
    ],
)
def test_malformed_payloads_are_refused(payload: str) -> None:
    raw = payload.encode()
    line = b"%s*%04X\n" % (raw, p.crc16(raw))
    decoder = p.board_decoder()
    assert decoder.feed(line) == []
    assert decoder.bad == 1


def test_other_board_frames() -> None:
    lines = b"".join(
        p.encode(s) for s in ("LOST 4 17", "ERR 5 3", "ERR 6 7 no LED 9", "HELLO 7 2 pico-x")
    )
    assert decode(lines) == [
        p.Lost(4, 17),
        p.Err(5, 3, ""),
        p.Err(6, 7, "no LED 9"),
        p.Hello(7, 2, "pico-x"),  # another protocol: only seq, proto and id are read
    ]


def test_host_frames_round_trip() -> None:
    data = p.hello_request() + p.sync_request(42) + p.led_set(3, True) + p.debounce_set(2500)
    assert data.startswith(b"HELLO?*")
    frames = p.host_decoder().feed(data)
    assert frames == [p.HelloRequest(), p.SyncRequest(42), p.LedSet(3, True), p.DebounceSet(2500)]


@pytest.mark.parametrize("payload", ["", "TICK  1", "TICK 1 *", "TICK é", " TICK", "X" * 130])
def test_encode_refuses_what_the_framing_forbids(payload: str) -> None:
    with pytest.raises(FrameError):
        p.encode(payload)


def test_line_of_128_bytes_is_kept_and_129_dropped() -> None:
    def line(n: int) -> bytes:
        body = b"ERR 1 2 " + b"x" * (n - len(b"ERR 1 2 ") - 6)
        out = b"%s*%04X\n" % (body, p.crc16(body))
        assert len(out) == n
        return out

    decoder = p.board_decoder()
    assert len(decoder.feed(line(128))) == 1
    assert decoder.feed(line(129)) == []
    assert (decoder.bad, decoder.too_long) == (1, 1)


def test_long_line_is_dropped_up_to_the_next_newline_across_feeds() -> None:
    decoder = p.board_decoder()
    tick = p.encode("TICK 9 100")
    assert decoder.feed(b"x" * 100) == []
    assert decoder.feed(b"y" * 100 + tick) == []  # the tick ends the long line: lost with it
    assert decoder.buffered == 0
    assert decoder.feed(tick) == [p.Tick(9, 100)]
    assert decoder.too_long == 1


def test_frames_split_anywhere_across_feeds() -> None:
    data = b"".join(line for line, _ in SPEC_EXAMPLES)
    decoder = p.board_decoder()
    out = [f for i in range(len(data)) for f in decoder.feed(data[i : i + 1])]
    assert out == [frame for _, frame in SPEC_EXAMPLES]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=20))
def test_any_bytes_never_raise_and_stay_bounded(chunks: list[bytes]) -> None:
    decoder = p.board_decoder()
    for chunk in chunks:
        decoder.feed(chunk)
        assert decoder.buffered < p.MAX_LINE


_junk = st.binary(max_size=200).map(lambda b: b.replace(b"\n", b""))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_junk, st.integers(0, 2**32 - 1), st.integers(0, 2**64 - 1)), max_size=10),
    st.integers(1, 64),
)
def test_valid_frames_hidden_in_junk_are_found(
    parts: list[tuple[bytes, int, int]], chunk: int
) -> None:
    """Junk, then a newline, then a frame: every frame is decoded, whatever the junk."""
    data = b"".join(j + b"\n" + p.encode(f"TICK {seq} {t}") for j, seq, t in parts)
    decoder = p.board_decoder()
    out = [f for i in range(0, len(data), chunk) for f in decoder.feed(data[i : i + chunk])]
    assert out == [p.Tick(seq, t) for _, seq, t in parts]


@given(
    st.integers(0, 2**32 - 1), st.integers(0, 1000), st.integers(0, 1), st.integers(0, 2**64 - 1)
)
def test_edge_round_trips(seq: int, ch: int, state: int, t: int) -> None:
    assert decode(p.encode(f"EDGE {seq} {ch} {state} {t}")) == [p.EdgeFrame(seq, ch, state, t)]
