"""The sync wire on a controlled clock: the pulse, the pairing, the clock it gives."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from buzzerbox.appliance import pinout
from buzzerbox.appliance.syncpulse import Pulse, SyncMatcher, SyncPulser
from buzzerbox.pads.fakes.padboard import BoardClock, FakeBoard
from buzzerbox.pads.fakes.pins import ClockedMockFactory
from buzzerbox.pads.timeline.clockmap import ClockMap
from buzzerbox.testing import START_US, ManualClock

SYNC_CH = 23  # the last input of the pads24 layout


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START_US)


@pytest.fixture
def factory(clock: ManualClock) -> Iterator[ClockedMockFactory]:
    f = ClockedMockFactory(clock)
    yield f
    f.close()


def test_the_line_idles_high_and_a_pulse_pulls_it_low(
    clock: ManualClock, factory: ClockedMockFactory
) -> None:
    pulser = SyncPulser(factory, clock)
    pin = factory.pin(pinout.SYNC_GPIO)
    assert pin.state == 1  # idle: a released pad on every board
    pulse = pulser.fall()
    assert pin.state == 0
    assert (pulse.n, pulse.t0_us, pulse.t1_us) == (1, clock(), clock())
    pulser.rise()
    assert pin.state == 1
    assert list(pulser.pulses) == [pulse]
    pulser.close()


def test_the_wire_maps_a_drifting_board_to_the_microsecond(
    clock: ManualClock, factory: ClockedMockFactory
) -> None:
    board = FakeBoard(
        "pico-a", clock=BoardClock(clock, offset_us=7_000_000, drift_ppm=40.0), channels=24
    )
    board.boot()
    pulser = SyncPulser(factory, clock)
    matcher = SyncMatcher(board.clock.tick_hz)

    def usb_guess(t: int) -> int:  # a USB mapping 3 ms off: enough to tell pulses apart
        return round(board.clock.to_host(t)) + 3_000

    for _ in range(6):
        clock.advance(1_000_000)
        pulser.fall()  # on this clock the write takes no time: the board sees it at once
        board.press(SYNC_CH)
        clock.advance(60_000)
        pulser.rise()
        board.release(SYNC_CH)
        sample = matcher.match(board.sent[-2].t, pulser.pulses, usb_guess)
        assert sample is not None
        assert sample.pulse == pulser.pulses[-1]
    wired = matcher.clock_map()
    assert wired.drift_ppm == pytest.approx(-40.0, abs=0.5)
    for edge in board.sent:
        assert abs(wired.to_host(edge.t) - edge.host_us) <= 1
    offsets = matcher.offsets_us()
    assert len(offsets) == 6
    assert max(offsets) - min(offsets) == pytest.approx(40 * 5.3, abs=2)  # 40 ppm over 5.3 s


def test_a_usb_mapping_is_off_by_its_asymmetry_and_the_wire_is_not(clock: ManualClock) -> None:
    board = FakeBoard("pico-a", clock=BoardClock(clock, offset_us=1_000), channels=24)
    board.boot()
    usb = ClockMap(board.clock.tick_hz)
    for _ in range(20):  # USB full speed: 900 µs out, 100 µs back
        sent = clock()
        clock.advance(900)
        t = board.clock.ticks()
        clock.advance(100)
        usb.add(sent, t, clock())
        clock.advance(50_000)
    t = board.clock.ticks()
    assert abs(usb.to_host(t) - clock()) == pytest.approx(400, abs=2)
    matcher = SyncMatcher(board.clock.tick_hz)
    pulse = Pulse(1, clock(), clock() + 4)
    sample = matcher.match(t, [pulse], usb.to_host)
    assert sample is not None
    assert abs(matcher.clock_map().to_host(t) - clock()) <= 2


def test_an_edge_near_no_pulse_or_a_pulse_used_twice_is_not_a_sample() -> None:
    matcher = SyncMatcher(1_000_000)
    pulses = [Pulse(1, 10_000_000, 10_000_004), Pulse(2, 11_000_000, 11_000_003)]
    assert matcher.match(500, pulses, lambda t: 10_500_000) is None  # halfway: ambiguous
    assert matcher.match(500, [], None) is None
    assert matcher.match(500, pulses, lambda t: 11_000_100) is not None
    assert matcher.match(501, pulses, lambda t: 11_000_101) is None  # pulse 2 again
    assert matcher.unmatched == 3
    # without a USB mapping yet, the latest pulse is taken
    fresh = SyncMatcher(1_000_000)
    got = fresh.match(500, pulses, None)
    assert got is not None and got.pulse.n == 2
