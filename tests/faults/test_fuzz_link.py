"""The host side of the board link against whatever a broken, rebooting or lying board
sends (tests/pads/test_protocol.py fuzzes the framing alone; this is the whole session
and the arbiter behind it, then real ports).

In-process, on a controlled clock: pico-a is fed hypothesis's mix of its own real frames,
well-framed frames with any field values (CRC right, so they reach the session), raw
bytes, reboots, seq wraps, silences and SYNCs unanswered; pico-b behaves. Nothing raises,
every buffer stays bounded, pico-b's presses are decided on time whatever pico-a does,
decisions come in time order, and once pico-a behaves again (after a reboot) its presses
are decided too.
"""

from __future__ import annotations

import time
from typing import Any

from buzzerbox.pads.board import protocol as p
from buzzerbox.pads.board.syncrounds import SYNC_TIMEOUT_US
from buzzerbox.pads.fakes.padboard import FakeBoard
from buzzerbox.pads.fakes.port import FakeBoardPort
from buzzerbox.pads.fakes.wires import Wire, collect, edges, make_wire, presses, run_wires
from buzzerbox.pads.sources import PadSources
from buzzerbox.pads.timeline.arbiter import Arbiter, BoardStatusChanged, Edge
from buzzerbox.testing import START_US, ManualClock
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

STEP_US = 10_000
#: pico-a's time to be decided once it behaves, and a script's time to settle: the spec
#: lets an unmapped board that talks but answers no SYNC hold decisions for 2 s
SETTLE_US = SYNC_TIMEOUT_US + 200_000
#: a behaving board's press is decided within this, whatever the other board does: a
#: board may hold decisions while quiet, up to the arbiter's 500 ms, then reboot and
#: hold them 2 s more while it talks but answers no SYNC (each as the spec allows)
ON_TIME_US = Arbiter().silence_us + SETTLE_US
U32, U64 = 2**32, 2**64

u32 = st.one_of(st.integers(0, 3), st.integers(U32 - 3, U32 - 1), st.integers(0, U32 - 1))
u64 = st.one_of(st.integers(0, 10**7), st.integers(U64 - 3, U64 - 1), st.integers(0, U64 - 1))
field = st.text(
    st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="*"), max_size=40
)
payloads = st.one_of(
    st.builds("EDGE {} {} {} {}".format, u32, st.integers(0, 9), st.integers(0, 1), u64),
    st.builds("TICK {} {}".format, u32, u64),
    st.builds("SYNC {} {} {}".format, u32, u32, u64),
    st.builds("LOST {} {}".format, u32, u64),
    st.builds("ERR {} {} {}".format, u32, u32, field.filter(bool)),
    st.builds(
        "HELLO {} {} {} 0.1.0 {} {}".format,
        u32,
        st.sampled_from([0, 1, 2]),
        st.sampled_from(["pico-a", "pico-x"]),
        st.sampled_from([1, 1_000, 1_000_000, U64 - 1]),
        st.sampled_from([0, 1, 8, U32 - 1]),
    ),
)
actions = st.one_of(
    st.tuples(st.just("frame"), payloads.map(p.encode)),
    st.tuples(st.just("bytes"), st.binary(max_size=300)),
    st.tuples(st.just("press"), st.integers(0, 7)),
    st.tuples(st.just("release"), st.integers(0, 7)),
    st.tuples(st.just("run"), st.integers(1, 80)),  # steps of STEP_US
    st.tuples(st.sampled_from(["reboot", "wrap", "mute", "unmute", "nosync", "sync"])),
)


class Table:
    """pico-a (fuzzed) and pico-b (behaving) wired to one arbiter on one clock."""

    def __init__(self) -> None:
        self.clock = ManualClock(START_US)
        self.arbiter = Arbiter()
        self.a = make_wire(self.clock, self.arbiter, "pico-a")
        self.b = make_wire(self.clock, self.arbiter, "pico-b")
        for wire in (self.a, self.b):
            wire.open()
        self.decided: list[Edge] = []
        self.b_presses: list[int] = []  # when pico-b was pressed (host µs)
        self.steps = 0
        self.run(20)

    def run(self, steps: int) -> None:
        for _ in range(steps):
            self.decided += edges(run_wires(self.clock, [self.a, self.b], STEP_US, STEP_US))
            self.check()
            self.steps += 1
            if self.steps % 7 == 0:  # pico-b is pressed every 70 ms
                self.b_presses.append(self.clock())
                self.b.to_host(self.b.board.press(len(self.b_presses) % 8))

    def act(self, action: tuple[Any, ...]) -> None:
        a, kind = self.a, action[0]
        if kind == "frame" or kind == "bytes":
            a.to_host(action[1])
        elif kind == "press":
            a.to_host(a.board.press(action[1]))
        elif kind == "release":
            a.to_host(a.board.release(action[1]))
        elif kind == "run":
            self.run(action[1])
        elif kind == "reboot":
            a.to_host(a.board.boot())
        elif kind == "wrap":
            a.board.seq = U32 - 2
        elif kind in ("mute", "unmute"):
            a.is_ticking = kind == "unmute"
        else:
            a.board.answers_sync = kind == "sync"
        self.check()

    def check(self) -> None:
        for wire in (self.a, self.b):
            assert wire.session.decoder.buffered < p.MAX_LINE
            assert len(wire.session.errors) <= 16
        in_order = [(e.t_us, e.board, e.ch) for e in self.decided if not e.late]
        assert in_order == sorted(in_order), "decided out of time order"
        b_decided = [e for e in self.decided if e.board == "pico-b" and e.is_press]
        due = [t for t in self.b_presses if self.clock() - t > ON_TIME_US]
        assert len(b_decided) >= len(due), f"pico-b's press at {due[len(b_decided)]} waits"

    def behave(self) -> None:
        """pico-a behaves again: it reboots, ticks, answers; then a press of it counts."""
        a = self.a
        a.is_ticking = a.board.answers_sync = True
        a.to_host(a.board.boot())
        self.run(100)
        pressed_at = self.clock()
        a.to_host(a.board.press(7))
        self.run(SETTLE_US // STEP_US)
        mine = [e for e in self.decided if e.board == "pico-a" and e.ch == 7 and e.is_press]
        assert mine and abs(mine[-1].t_us - pressed_at) <= 1_000, f"pico-a's press: {mine}"


def play(script: list[tuple[Any, ...]]) -> None:
    table = Table()
    for action in script:
        table.act(action)
    table.run(SETTLE_US // STEP_US + 1)
    table.behave()


# The same 150 scripts every run (derandomize): about one script in a few thousand
# failed, drawn afresh each run, and the suite with the luck of the draw: the one below,
# and once in CI a behaving pico-b's press waited past ON_TIME_US, then 2.2 s (not
# reproduced; two causes found by reading: a SYNC answer too slow to map pico-a started
# its 2 s again, fixed, tests/pads/test_session.py; and a quiet board that rebooted, as
# the spec allows, test_a_board_quiet_then_rebooted_... below). To look for more, run it
# with derandomize off and more examples.
@settings(
    max_examples=150,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(actions, max_size=30))
def test_whatever_a_board_sends_the_host_goes_on(script: list[tuple[Any, ...]]) -> None:
    play(script)


def test_a_board_that_lied_then_rebooted_has_its_presses_decided() -> None:
    """Found by the fuzz test above: a HELLO that was no board's (1 tick/s, no channels),
    one SYNC answered, then silence; the board really reboots and its HELLO is lost to
    the junk byte before it. The host took its presses for channels it lacks, for good,
    until a SYNC answer far from the map had it ask HELLO? again (session.py)."""
    edge, tick = p.encode("EDGE 0 0 0 0"), p.encode("TICK 0 0")
    play(
        [("frame", edge)] * 3
        + [("frame", tick), ("mute",), ("frame", edge)]
        + [("frame", p.encode("HELLO 0 1 pico-a 0.1.0 1 0")), ("frame", tick), ("nosync",)]
        + [("frame", edge)] * 2
        + [("bytes", b"\x00")]
    )


def test_a_board_quiet_then_rebooted_holds_decisions_no_longer_than_the_spec_lets() -> None:
    """pico-a is quiet (no TICK, no SYNC answered: its last watermark before pico-b's
    press), reboots 210 ms after the press and ticks without answering: the press waits
    about 2.2 s, past SETTLE_US (2 s of SYNC_TIMEOUT_US from the reboot's first SYNC),
    within ON_TIME_US. Built after reading the session and the arbiter: maybe the press
    that waited once in CI, which ON_TIME_US, then SETTLE_US, did not allow for."""
    play([("mute",), ("nosync",), ("run", 22), ("reboot",), ("unmute",), ("run", 300)])


def test_a_time_from_the_far_future_does_not_stall_a_board_for_good() -> None:
    """One well-framed TICK with a time years ahead (a corrupt board clock) must not
    freeze the board: neither its next presses, nor those after a reboot."""
    table = Table()
    a = table.a
    a.to_host(p.encode(f"TICK {a.board.seq} {U64 - 1}"))
    a.board.skip(1)
    table.run(10)
    table.behave()


def test_a_board_whose_time_stands_still_does_not_hold_up_the_others() -> None:
    """pico-a keeps saying TICK with the same time (its clock stuck, its link alive):
    pico-b's presses must not wait for it for good."""
    table = Table()
    a = table.a
    a.is_ticking = False
    stuck = a.board.clock.ticks()
    for _ in range(2 * SETTLE_US // (10 * STEP_US)):  # 4.4 s
        a.to_host(p.encode(f"TICK {a.board.seq} {stuck}"))
        a.board.skip(1)
        table.run(10)


def test_seq_wraps_and_reboots_in_a_long_session_lose_nothing() -> None:
    clock, arbiter = ManualClock(START_US), Arbiter()
    wire: Wire = make_wire(clock, arbiter, "pico-a")
    wire.open()
    run_wires(clock, [wire], 100_000)
    wire.session.events()
    decided: list[Edge] = []
    for round_ in range(3):
        wire.board.seq = U32 - 3  # the board has been up for years
        wire.to_host(wire.board.hello())  # asked again: same board, seq far on
        for ch in range(6):  # seq wraps in the middle of these
            wire.to_host(wire.board.press(ch) + wire.board.release(ch))
            decided += edges(run_wires(clock, [wire], 20_000))
        if round_ == 1:
            wire.to_host(wire.board.boot())
        decided += edges(run_wires(clock, [wire], 100_000))
    expected = [(ch, state) for ch in range(6) for state in (1, 0)]
    assert [(e.ch, e.state) for e in decided] == expected * 3
    assert [e for e in wire.session.events() if not isinstance(e, BoardStatusChanged)] == []


def test_a_megabyte_without_a_newline_on_a_real_port_costs_nothing(tmp_path: Any) -> None:
    """Junk with no end of line, 256 KiB of it in 1 KiB writes, on a pty and on TCP: the
    next press is decided at once and the decoder holds at most one line."""
    for tcp in (False, True):
        port = FakeBoardPort(FakeBoard("pico-a"), tcp=tcp).start()
        try:
            with PadSources(boards=[port.url]) as src:
                collect(src, lambda evs: BoardStatusChanged("pico-a", "online") in evs)
                for i in range(256):
                    port.do(lambda board: b"\x00junk" * 205, after_us=i * 1_000)
                port.do(lambda board: b"\n", after_us=257_000)
                port.press(3, after_us=260_000)
                started = time.monotonic()
                got = presses(collect(src, lambda evs: len(presses(evs)) == 1, timeout=30))
                took = time.monotonic() - started
                assert src.sessions[0].decoder.buffered < p.MAX_LINE
        finally:
            port.close()
        assert got[0].ch == 3
        assert took < 0.26 + 0.25, f"{'TCP' if tcp else 'pty'}: the press took {took:.2f} s"
