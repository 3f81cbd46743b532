"""Clock mapping from SYNC round trips: offset, drift, the fastest samples win."""

from __future__ import annotations

import random

import pytest
from buzzerbox.errors import InputError
from buzzerbox.pads.timeline.clockmap import ClockMap


def board_t(host_us: float, offset_us: float, drift_ppm: float, tick_hz: int = 1_000_000) -> int:
    """What a board clock reads at `host_us` (host 0 = board `offset_us`)."""
    return round((offset_us + host_us * (1 + drift_ppm * 1e-6)) * tick_hz / 1_000_000)


def feed(cmap: ClockMap, host_us: int, rtt_us: int, offset_us: float, drift: float) -> None:
    """A round trip of `rtt_us` whose board reading is taken at its true midpoint."""
    cmap.add(
        host_us, board_t(host_us + rtt_us / 2, offset_us, drift, cmap.tick_hz), host_us + rtt_us
    )


def test_one_sample_maps_the_offset() -> None:
    cmap = ClockMap()
    assert not cmap.is_mapped
    cmap.add(10_000, 5_000_400, 10_800)  # board read 5_000_400 at the midpoint 10_400
    assert cmap.is_mapped
    assert cmap.to_host(5_000_400) == 10_400
    assert cmap.to_host(5_100_400) == 110_400


@pytest.mark.parametrize("drift", [-50.0, -12.5, 0.0, 31.0, 50.0])
def test_drift_is_fitted_and_followed(drift: float) -> None:
    cmap = ClockMap()
    for i in range(40):
        feed(cmap, i * 500_000, 300, 7_000_000, drift)
    assert cmap.drift_ppm == pytest.approx(-drift, abs=0.5)
    later = 40 * 500_000 + 400_000
    assert abs(cmap.to_host(board_t(later, 7_000_000, drift)) - later) <= 2


def test_slow_round_trips_do_not_pull_the_fit() -> None:
    rnd = random.Random(7)
    cmap = ClockMap()
    for i in range(60):
        host = i * 500_000
        rtt = 200 if i % 3 == 0 else rnd.randint(5_000, 40_000)
        # a slow reply: the board read its clock early in the round trip, not at its midpoint
        cmap.add(host, board_t(host + 100, 3_000_000, 20.0), host + rtt)
    assert cmap.best_rtt_us == 200
    assert abs(cmap.to_host(board_t(30_000_000, 3_000_000, 20.0)) - 30_000_000) <= 20


def test_short_span_keeps_drift_zero_and_bounded() -> None:
    cmap = ClockMap(max_drift_ppm=100)
    cmap.add(0, 1_000, 100)
    cmap.add(10_000, 12_000, 10_100)  # 1000 µs off in 10 ms: noise, not 10% drift
    assert cmap.drift_ppm == 0.0
    for i in range(2, 20):
        cmap.add(i * 200_000, i * 300_000, i * 200_000 + 100)  # absurd rate: clamped
    assert abs(cmap.drift_ppm) <= 100.0001


def test_other_tick_rates() -> None:
    cmap = ClockMap(tick_hz=48_000_000)
    for i in range(10):
        feed(cmap, i * 500_000, 100, 1_000_000, 0.0)
    assert abs(cmap.to_host(board_t(6_000_000, 1_000_000, 0.0, 48_000_000)) - 6_000_000) <= 1


def test_reply_before_request_is_ignored_and_rate_must_be_positive() -> None:
    cmap = ClockMap()
    cmap.add(100, 5, 50)
    assert not cmap.is_mapped
    with pytest.raises(InputError, match="tick_hz 0"):
        ClockMap(0)
