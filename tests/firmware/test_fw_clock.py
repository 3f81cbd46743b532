"""The board clock: the PIO's 32-bit down-counter unwrapped into 64-bit ticks."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from .fwbench import fw

clock = fw("clock")
MASK32 = 2**32 - 1


def counter_at(t: int) -> int:
    """What the edge timer's X holds `t` ticks after it started at 0."""
    return -t & MASK32


def test_the_counter_counts_down_from_zero() -> None:
    c = clock.CounterClock()
    assert [c.unwrap(counter_at(t)) for t in (0, 1, 2, 1000)] == [0, 1, 2, 1000]
    assert c.now == 1000


def test_it_unwraps_past_32_bits_read_every_2_to_the_29_ticks() -> None:
    c = clock.CounterClock()
    times = [0, 2**31, 2**32 - 1, 2**32, 2**32 + 5, 3 * 2**32 + 7, 10 * 2**32]
    got = []
    last = 0
    for t in times:
        # the board reads the counter far more often than every 2**30 ticks (TICK_MS)
        while t - last >= 2**30:
            last += 2**29
            c.unwrap(counter_at(last))
        got.append(c.unwrap(counter_at(t)))
        last = t
    assert got == times


@given(st.lists(st.integers(min_value=0, max_value=2**30 - 1), max_size=50))
def test_any_steps_under_two_to_the_30_are_followed(steps: list[int]) -> None:
    c = clock.CounterClock()
    t = 0
    for step in steps:
        t += step
        assert c.unwrap(counter_at(t)) == t


@given(st.lists(st.integers(min_value=0, max_value=2**30 - 1), max_size=50))
def test_low_30_bit_readings_give_the_same_times(steps: list[int]) -> None:
    c = clock.CounterClock()
    t = 0
    for step in steps:
        t += step
        assert c.advance(t % 2**30) == t
