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


def test_it_unwraps_past_32_bits() -> None:
    c = clock.CounterClock()
    times = [0, 2**31, 2**32 - 1, 2**32, 2**32 + 5, 3 * 2**32 + 7, 10 * 2**32]
    got = []
    last = 0
    for t in times:
        # the board reads the counter at least once per 2**32 ticks (every TICK_MS)
        while t - last >= 2**32:
            last += 2**31
            c.unwrap(counter_at(last))
        got.append(c.unwrap(counter_at(t)))
        last = t
    assert got == times


@given(st.lists(st.integers(min_value=0, max_value=2**32 - 1), max_size=50))
def test_any_steps_under_two_to_the_32_are_followed(steps: list[int]) -> None:
    c = clock.CounterClock()
    t = 0
    for step in steps:
        t += step
        assert c.unwrap(counter_at(t)) == t
