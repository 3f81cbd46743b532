"""Fake boards on real ptys and TCP (127.0.0.1) read by `PadSources`: real threads and
ports, so these wait on events with timeouts; presses are scheduled on the boards'
own timers, and their true times come from the boards' records."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

from buzzerbox.pads.fakes.padboard import SyncLine
from buzzerbox.pads.fakes.port import FakeBoardPort
from buzzerbox.pads.fakes.pulse import LinePulser
from buzzerbox.pads.fakes.wires import collect, edges, presses, status_is
from buzzerbox.pads.padmap import parse_pad_map
from buzzerbox.pads.sources import PadSources
from buzzerbox.pads.timeline.arbiter import BoardStatusChanged, Edge, PadEvent

StartPort = Callable[..., FakeBoardPort]


def both_online(src: PadSources, *ids: str) -> list[PadEvent]:
    return collect(src, lambda evs: all(BoardStatusChanged(i, "online") in evs for i in ids))


def test_two_boards_pty_and_tcp_offsets_and_drifts_in_true_order(fake_port: StartPort) -> None:
    a = fake_port("pico-a", offset_us=3_000_000, drift_ppm=45.0)
    b = fake_port("pico-b", offset_us=60_000_000, drift_ppm=-40.0, tcp=True)
    assert a.url.startswith("/dev/") and b.url.startswith("socket://127.0.0.1:")
    with PadSources(boards=[a.url, b.url]) as src:
        both_online(src, "pico-a", "pico-b")
        for i in range(8):  # alternate boards, 15 ms apart, on the boards' own timers
            (a if i % 2 == 0 else b).press(i, after_us=200_000 + 15_000 * i)
        got = presses(collect(src, lambda evs: len(presses(evs)) == 8))
    sent = sorted(
        [(e.host_us, "pico-a", e.ch) for e in a.board.sent]
        + [(e.host_us, "pico-b", e.ch) for e in b.board.sent]
    )
    assert [(e.board, e.ch) for e in got] == [(board, ch) for _, board, ch in sent]
    assert all(abs(e.t_us - t) < 5_000 for e, (t, _, _) in zip(got, sent, strict=True))
    assert not any(e.late for e in got)


def test_a_tcp_link_sends_each_frame_at_once_both_ways(fake_port: StartPort) -> None:
    """Nagle's algorithm would hold a SYNC (or its answer) until the frame before it is
    acknowledged: round trips of ~20 ms, one way only, and a map ~10 ms off."""
    b = fake_port("pico-b", tcp=True)
    with PadSources(boards=[b.url]) as src:
        both_online(src, "pico-b")
        host_end = src._links[0]._port._socket  # pyserial's socket:// keeps it there
        board_end = b._client
        assert board_end is not None
        for end in (host_end, board_end):
            assert end.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)


def test_one_stalls_while_the_other_presses(fake_port: StartPort) -> None:
    a = fake_port("pico-a")
    b = fake_port("pico-b")
    with PadSources(boards=[a.url, b.url]) as src:
        both_online(src, "pico-a", "pico-b")
        b.stall()  # its link sticks: no TICK, no EDGE gets through
        b.press(6)
        a.press(1, after_us=2_000)
        events = collect(src, lambda evs: len(presses(evs, "pico-a")) == 1)
        assert BoardStatusChanged("pico-b", "silent") in events  # a's press waited for that
        assert events.index(BoardStatusChanged("pico-b", "silent")) < events.index(
            presses(events)[0]
        )
        b.resume()  # the stuck press arrives, older than what was decided
        events = collect(src, lambda evs: len(presses(evs, "pico-b")) == 1)
    (late,) = presses(events, "pico-b")
    assert late.late and late.ch == 6
    assert BoardStatusChanged("pico-b", "online") in events


def test_junk_on_the_line(fake_port: StartPort) -> None:
    a = fake_port("pico-a")
    with PadSources(boards=[a.url]) as src:
        both_online(src, "pico-a")
        a.send_raw(b"\x00\xfe\xff noise *ZZZZ\r\n" + b"#" * 300 + b"\nTICK 1 2*0000\n")
        a.press(2)
        a.send_raw(b"half a line with no end")  # swallows the next frame: a seq gap
        a.press(3)
        a.press(4, after_us=20_000)
        events = collect(src, lambda evs: len(presses(evs)) == 2)
    assert [e.ch for e in presses(events)] == [2, 4]
    assert src.sessions[0].decoder.bad >= 4
    assert any(getattr(e, "frames", 0) >= 1 for e in events)  # the lost EDGE 3 frame


def test_pty_unplug_and_replug_behind_a_stable_path(fake_port: StartPort, tmp_path: Path) -> None:
    a = fake_port("pico-a", link=tmp_path / "ttyPAD0", offset_us=1_000_000)
    assert a.url == str(tmp_path / "ttyPAD0")
    with PadSources(boards=[a.url], retry_s=0.05) as src:
        both_online(src, "pico-a")
        a.tap(1, hold_us=5_000)
        first = collect(src, lambda evs: len(edges(evs)) == 2)
        a.unplug()
        collect(src, status_is("pico-a", "gone"))
        a.replug()  # a new pty (the board rebooted), the same path
        events = collect(src, status_is("pico-a", "online"))
        a.press(5)
        events = collect(src, lambda evs: len(edges(evs)) == 1, into=events)
    assert [(e.ch, e.state) for e in edges(first)] == [(1, 1), (1, 0)]
    assert [e.ch for e in edges(events)] == [5]  # nothing decided before comes again
    assert edges(events)[0].t_us > edges(first)[1].t_us


def test_tcp_unplug_and_replug(fake_port: StartPort) -> None:
    a = fake_port("pico-a", tcp=True)
    b = fake_port("pico-b")
    with PadSources(boards=[a.url, b.url], retry_s=0.05) as src:
        both_online(src, "pico-a", "pico-b")
        a.unplug()
        collect(src, status_is("pico-a", "gone"))
        b.press(0)  # not held for the board that is gone
        collect(src, lambda evs: len(presses(evs)) == 1)
        a.replug(reboot=False)  # the same board, still running: its clock map holds
        collect(src, status_is("pico-a", "online"))
        a.press(7)
        b.press(1, after_us=30_000)
        got = presses(collect(src, lambda evs: len(presses(evs)) == 2))
    assert [(e.board, e.ch) for e in got] == [("pico-a", 7), ("pico-b", 1)]


def test_lights_go_over_the_board_link(fake_port: StartPort) -> None:
    a = fake_port("pico-a")
    pad_map = parse_pad_map(
        'seats = 1\n[[board]]\nid = "pico-a"\n'
        '[[pad]]\nid = "stop"\nrole = "stop"\nseat = 0\nboard = "pico-a"\nch = 2\nlight_ch = 6\n'
    )
    with PadSources(pad_map, boards=[a.url]) as src:
        src.set_light("stop", True)  # before it is online: sent after its HELLO
        both_online(src, "pico-a")
        collect(src, lambda evs: a.board.leds == {6: True})
        src.set_light("stop", False)
        collect(src, lambda evs: a.board.leds == {6: False})
        a.press(2)
        (edge,) = presses(collect(src, lambda evs: len(presses(evs)) == 1))
    assert edge == Edge("pico-a", 2, "stop", 1, edge.t_us)
    assert src.pad(edge.pad) == pad_map.pad("stop")


def test_a_port_that_is_not_there_is_reported_gone(tmp_path: Path) -> None:
    url = str(tmp_path / "nothing-here")
    with PadSources(boards=[url], retry_s=0.05) as src:
        collect(src, status_is(url, "gone"))


def test_the_hosts_pulses_map_boards_on_ports_by_the_sync_wire(fake_port: StartPort) -> None:
    a = fake_port("pico-a", offset_us=3_000_000, drift_ppm=45.0, frame_us=1000)
    b = fake_port("pico-b", offset_us=60_000_000, drift_ppm=-40.0, tcp=True, frame_us=1000)
    line = SyncLine()
    a.wire(line, 7)
    b.wire(line, 7)
    pad_map = parse_pad_map(
        f'seats = 1\n[[board]]\nid = "pico-a"\nurl = "{a.url}"\nsync = 7\n'
        f'[[board]]\nid = "pico-b"\nurl = "{b.url}"\nsync = 7\n'
    )
    wired = [BoardStatusChanged(x, "online", "wire", "live") for x in ("pico-a", "pico-b")]
    pulser = LinePulser(line)
    with PadSources(pad_map, pulser=pulser, pulse_period_us=300_000) as src:
        collect(src, lambda evs: all(w in evs for w in wired))
        for i in range(6):  # alternate boards, 5 ms apart, on the boards' own timers
            (a if i % 2 == 0 else b).press(i, after_us=300_000 + 5_000 * i)
        got = presses(collect(src, lambda evs: len(presses(evs)) == 6))
    assert len(pulser.pulses) >= 3
    sent = sorted(
        [(e.host_us, "pico-a", e.ch) for e in a.board.sent if e.ch != 7]
        + [(e.host_us, "pico-b", e.ch) for e in b.board.sent if e.ch != 7]
    )
    assert [(e.board, e.ch) for e in got] == [(board, ch) for _, board, ch in sent]
    bracket = max(p.t1_us - p.t0_us for p in pulser.pulses)
    assert all(abs(e.t_us - t) <= bracket + 10 for e, (t, _, _) in zip(got, sent, strict=True))
