"""gpiozero's MockFactory on a hand-driven clock, and a hand on a pad as its pin sees it.

Used by tests/pads and by later areas (the box's tests, its simulated mode):
nothing here runs on the box itself. gpiozero's own MockPin stamps changes with
time.monotonic; `ClockedMockFactory` makes them follow a `ManualClock` instead. gpiozero
has no public hook for that: `ClockedPin` overrides MockPin's private
`_change_state`, so pyproject.toml bounds gpiozero (<2.1) and
tests/pads/test_gpiozero_bound.py checks the installed version and that private
contract.
"""

from __future__ import annotations

from collections.abc import Callable

from gpiozero.pins.mock import MockFactory, MockPin, PinState

from buzzerbox.testing import START_US as START_US
from buzzerbox.testing import ManualClock

SHIFTS_MS = (2, 5, 8, 12, 20, 30, 40, 50, 65, 80)
"""A resting hand's weight shifts: how long each opens a pile zone's contact."""


def resting_hand() -> list[tuple[int, int]]:
    """A hand on a pile zone as a tape switch reports it: (µs after the first contact,
    contact state): the press with its make bounce, then `SHIFTS_MS` weight shifts
    (each with a little chatter), the hand resting 150-375 ms between them."""
    trace = [(0, 1), (400, 0), (900, 1), (2_100, 0), (2_600, 1)]  # make bounce
    t = 2_600
    for i, open_ms in enumerate(SHIFTS_MS):
        t += 150_000 + 25_000 * i  # resting
        trace += [(t, 0), (t + 300, 1), (t + 700, 0)]  # release chatter
        t += open_ms * 1000
        trace += [(t, 1), (t + 500, 0), (t + 1_000, 1)]  # the weight comes back
        t += 1_000
    return trace


def drive_pin(
    factory: ClockedMockFactory, pin: int, trace: list[tuple[int, int]], poll: Callable[[], None]
) -> None:
    """Drive a pulled-up pad pin through `trace` ((µs from now, pressed)), calling
    `poll` after each change, then once 500 ms after the last."""
    clock = factory.clock
    start = clock()
    for t, pressed in trace:
        clock.advance(start + t - clock())
        mock = factory.pin(pin)
        if pressed:
            mock.drive_low()
        else:
            mock.drive_high()
        poll()
    clock.advance(500_000)
    poll()


class ClockedPin(MockPin):  # type: ignore[misc]
    """A MockPin that stamps its changes with the factory's clock, not time.monotonic.

    gpiozero 2.0's MockPin: `drive_high`/`drive_low` and the `state` setter call
    `_change_state(value)`, which records `states` and `_last_change`, the ticks its
    `when_changed` callbacks get. Private: bounded in pyproject.toml, checked by
    tests/pads/test_gpiozero_bound.py."""

    def _change_state(self, value: bool) -> bool:
        if self._state == value:  # type: ignore[has-type]
            return False
        t = self.factory.ticks()
        self.states.append(PinState(t - self._last_change, value))  # type: ignore[has-type]
        self._last_change = t
        self._state = value
        return True


class ClockedMockFactory(MockFactory):  # type: ignore[misc]
    """gpiozero's MockFactory on a controlled clock (ticks in seconds, like lgpio)."""

    def __init__(self, clock: ManualClock) -> None:
        super().__init__(pin_class=ClockedPin)
        self.clock = clock

    def ticks(self) -> float:
        return self.clock.now / 1_000_000
