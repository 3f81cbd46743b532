"""The sync wire in arbitration, on emulated boards with a realistic USB link (pads/
pads/fakes/usb.py) and a driven clock: boards with offsets and drifts line up to the µs by
the host's stamped pulses or by common pulses of an outside pulser; a missing or
silent wire falls back to SYNC round trips and the status says so; a missed pulse
changes nothing."""

from __future__ import annotations

import random

import pytest
from buzzerbox.pads.fakes.usb import UsbLink, UsbRig, UsbTiming
from buzzerbox.pads.timeline.arbiter import BoardStatusChanged, Edge, PadEvent
from buzzerbox.pads.timeline.syncgroup import PulseTimer, SyncGroup
from buzzerbox.testing import ManualClock

SYNC_CH = 7
BOARDS = (  # offset, drift (ppm), USB timing: each board its own asymmetry
    (3_000_000, 48.0, UsbTiming(out_us=40, in_us=380, stamp_us=45, edge_us=800)),
    (71_000_000, -45.0, UsbTiming(out_us=240, in_us=70, stamp_us=5, edge_us=100)),
    (9_500_000, 12.5, UsbTiming(out_us=120, in_us=200, stamp_us=20, edge_us=400)),
)


def rig_of(
    clock: ManualClock, wire: str | None, *, wired: tuple[bool, ...] = (True,) * 3
) -> UsbRig:
    rig = UsbRig(clock, wire=wire, silence_us=60_000_000)  # type: ignore[arg-type]
    for i, ((offset, drift, timing), is_wired) in enumerate(zip(BOARDS, wired, strict=True)):
        rig.add_board(
            f"pico-{'abc'[i]}",
            offset_us=offset,
            drift_ppm=drift,
            timing=timing,
            sync_ch=SYNC_CH,
            is_wired=is_wired,
        )
    return rig


def status(events: list[PadEvent], board: str) -> BoardStatusChanged:
    return [e for e in events if isinstance(e, BoardStatusChanged) and e.board == board][-1]


def pairs(rig: UsbRig, spacing_us: int, n: int = 30) -> list[tuple[Edge, int, Edge, int]]:
    """`n` pairs of presses on two boards `spacing_us` apart: (first, its true time,
    second, its true time), as the arbiter handed them out."""
    rng = random.Random(spacing_us)
    start = len(rig.edges())
    plan = []
    t = rig.clock() + 10_000
    for _ in range(n):
        a, b = rng.sample(rig.links, 2)
        t += 30_000
        rig.press(a, 0, t)
        rig.press(b, 0, t + spacing_us)
        plan.append((a, t, b, t + spacing_us))
    rig.run(t - rig.clock() + 1_000_000)
    got = [e for e in rig.edges()[start:] if e.is_press]

    def find(link: UsbLink, at: int) -> Edge:
        presses = [e for e in got if e.board == link.board.board_id]
        trues = [t for ch, state, t in link.truth if state == 1 and ch == 0]
        return presses[trues.index(at)]

    out = [(find(a, ta), ta, find(b, tb), tb) for a, ta, b, tb in plan]
    for first, _, second, _ in out:
        assert got.index(first) != got.index(second)
    return out


def test_host_pulses_align_boards_with_offsets_and_drifts_to_the_microsecond(
    clock: ManualClock,
) -> None:
    rig = rig_of(clock, "host")
    events = rig.run(500_000)
    assert status(events, "pico-a") == BoardStatusChanged("pico-a", "online", "sync", "waiting")
    events = rig.run(5_000_000)
    for board in ("pico-a", "pico-b", "pico-c"):
        assert status(events, board) == BoardStatusChanged(board, "online", "wire", "live")
    got = pairs(rig, 20)
    for first, t_first, second, t_second in got:
        assert first.t_us < second.t_us  # 20 µs apart, in order
        assert abs(first.t_us - t_first) <= 10 and abs(second.t_us - t_second) <= 10
    assert not any(e.late for e in rig.edges())
    assert all(e.ch != SYNC_CH for e in rig.edges())  # a sync channel is never a pad


def test_the_release_hold_never_holds_the_sync_wire(clock: ManualClock) -> None:
    rig = UsbRig(clock, wire="host", silence_us=60_000_000)
    for board, (offset, drift, timing) in zip(("pico-a", "pico-b"), BOARDS, strict=False):
        rig.add_board(
            board,
            offset_us=offset,
            drift_ppm=drift,
            timing=timing,
            sync_ch=SYNC_CH,
            release_us=lambda b, ch: 120_000,  # asked even of the sync channel: not taken
        )
    events = rig.run(5_000_000)
    for board in ("pico-a", "pico-b"):
        assert status(events, board) == BoardStatusChanged(board, "online", "wire", "live")
    a, b = rig.links
    t = rig.clock() + 10_000
    rig.press(a, 0, t, hold_us=50_000)
    rig.press(a, 0, t + 100_000, hold_us=30_000)  # back within the hold: one card
    rig.press(b, 0, t + 20, hold_us=400_000)
    events = rig.run(3_000_000)  # three pulses pass meanwhile
    assert not [e for e in events if isinstance(e, BoardStatusChanged)]  # still "wire"
    assert all(e.ch != SYNC_CH for e in rig.edges())  # a sync channel is never a pad
    got = [(e.board, e.state, e.t_us) for e in rig.edges()]
    assert [(board, state) for board, state, _ in got] == [
        ("pico-a", 1),
        ("pico-b", 1),
        ("pico-a", 0),
        ("pico-b", 0),
    ]
    truth = [t, t + 20, t + 130_000, t + 400_020]
    assert all(abs(e[2] - true) <= 10 for e, true in zip(got, truth, strict=True))


def test_without_the_wire_the_same_boards_misorder_close_presses(clock: ManualClock) -> None:
    rig = rig_of(clock, None)
    events = rig.run(5_500_000)
    assert status(events, "pico-a") == BoardStatusChanged("pico-a", "online")
    got = pairs(rig, 20)
    worst = max(abs(e.t_us - t) for f, tf, s, ts in got for e, t in ((f, tf), (s, ts)))
    assert worst > 50  # the USB asymmetry: what the wire is for
    assert any(first.t_us > second.t_us for first, _, second, _ in got)


def test_a_board_the_wire_does_not_reach_falls_back_and_says_so(clock: ManualClock) -> None:
    rig = rig_of(clock, "host", wired=(True, True, False))
    events = rig.run(8_000_000)
    assert status(events, "pico-a").clock == "wire"
    assert status(events, "pico-c") == BoardStatusChanged("pico-c", "online", "sync", "silent")
    assert rig.group is not None and rig.group.samples("pico-c") == (0, 0)
    for first, _, second, _ in pairs(rig, 1000):  # SYNC maps it to ~0.3 ms
        assert first.t_us < second.t_us


def test_a_wire_that_falls_silent_falls_back_and_comes_back(clock: ManualClock) -> None:
    rig = rig_of(clock, "host")
    rig.run(6_000_000)
    rig.is_pulsing = False  # the pulses stop (a cut wire, a stopped pulser)
    events = rig.run(6_000_000)
    for board in ("pico-a", "pico-b", "pico-c"):
        assert status(events, board) == BoardStatusChanged(board, "online", "sync", "silent")
    rig.is_pulsing = True
    events = rig.run(3_000_000)
    assert status(events, "pico-b") == BoardStatusChanged("pico-b", "online", "wire", "live")


def test_an_outside_pulser_lines_the_boards_up_by_common_pulses(clock: ManualClock) -> None:
    rig = rig_of(clock, "external")
    events = rig.run(6_000_000)
    for board in ("pico-a", "pico-b", "pico-c"):
        assert status(events, board).clock == "wire"
    for first, t_first, second, t_second in pairs(rig, 20):
        assert first.t_us < second.t_us
        # each board is off the host timeline by the same amount (the group's SYNC
        # mean), so what counts between boards, the spacing, is good to the µs
        assert abs((second.t_us - first.t_us) - (t_second - t_first)) <= 10


@pytest.mark.parametrize("wire", ["host", "external"])
def test_a_missed_pulse_on_one_board_changes_nothing(clock: ManualClock, wire: str) -> None:
    rig = rig_of(clock, wire)
    rig.run(6_000_000)
    c = rig.links[2]
    timer = PulseTimer()
    assert timer.due(0) == "fall" and timer.due(1_000_000) == "rise"
    c.sees_wire = False  # pico-c misses the next pulse
    events = rig.run(1_000_000)
    c.sees_wire = True
    events += rig.run(2_000_000)
    assert not [e for e in events if isinstance(e, BoardStatusChanged)]  # all stay "wire"
    assert rig.group is not None
    paired, unpaired = rig.group.samples("pico-c")
    assert paired >= 6 and unpaired == 0  # the next pulse was not taken for the missed one
    for first, t_first, second, t_second in pairs(rig, 20):
        assert first.t_us < second.t_us
        assert abs((second.t_us - first.t_us) - (t_second - t_first)) <= 10


def test_a_pulse_is_paired_once_and_only_when_near() -> None:
    group = SyncGroup(is_stamped=True)
    group.join("a", 1_000_000, 0)
    assert group.state("a", 0) == "waiting" and group.state("zz", 0) is None
    group.pulse(10_000_000, 10_000_004)
    group.edge("a", 500, 10_500_000, 10_500_000)  # halfway to nowhere: not a pulse
    group.edge("a", 600, 10_000_300, 10_001_000)
    group.edge("a", 601, 10_000_301, 10_001_000)  # the same pulse again
    assert group.samples("a") == (1, 2)
    assert group.state("a", 10_001_000) == "waiting"  # one sample: no drift yet
    group.pulse(11_000_000, 11_000_004)
    group.edge("a", 1_000_600, 11_000_300, 11_001_000)
    assert group.state("a", 11_001_000) == "live"
    wired = group.clock("a", 11_001_000)
    assert wired is not None and abs(wired.to_host(600) - 10_000_002) <= 1
    assert group.state("a", 16_001_001) == "silent" and group.clock("a", 16_001_001) is None


def test_an_anchor_without_one_board_is_where_it_would_be_with_it() -> None:
    group = SyncGroup(is_stamped=False)
    for board in ("a", "b", "c"):
        group.join(board, 1_000_000, 0)
    # rough (SYNC) mappings off by +300, -100 and -200 µs: the group's mean is 0
    bias = {"a": 300, "b": -100, "c": -200}
    ticks = {"a": 5_000_000, "b": 9_000_000, "c": 1_000_000}  # board clock at host 0
    for k in range(4):
        host = 1_000_000 + k * 1_000_000
        for board in ("a", "b") if k == 3 else ("a", "b", "c"):  # c misses the last
            group.edge(board, ticks[board] + host, host + bias[board], host + 5_000)
        group.poll(host + 200_000)
    for board in ("a", "b", "c"):
        wired = group.clock(board, 4_300_000)
        assert wired is not None
        assert abs(wired.to_host(ticks[board] + 4_000_000) - 4_000_000) <= 1
