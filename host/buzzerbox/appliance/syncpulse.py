"""The sync wire (hardware/sync-wire.md): board clocks aligned to µs by one shared pulse.

The host drives a GPIO (`pinout.SYNC_GPIO`) into one input channel of every
board. Idle the line is high (a released pad); a pulse pulls it low (a press).
Each board stamps the falling edge with its own clock and reports it as an
ordinary protocol v1 ``EDGE`` on that channel: no protocol change. The host
knows when it pulled the line, to within the few µs its write takes, so each
(pulse, edge) pair is a clock sample far tighter than a USB SYNC round trip
(USB full speed: about 1 ms, asymmetric).

- `SyncPulser` (the pads area's, pads/gpio.py) drives the line through gpiozero
  (any pin factory) and stamps each pulse with the host clock before and after the
  write. The box's arbitration uses the wire through pads/timeline/syncgroup.py; this module
  is the doctor's measuring of it.
- `SyncMatcher` pairs a board's sync edges with the pulses, using the board's
  rough USB mapping only to tell the pulses apart (they are 1 s apart), and
  keeps the pairs as `WireSample`s: `(t0, board_t, t1)`, the very form
  `ClockMap.add(host_send_us, board_t, host_recv_us)` takes, so a wire sample
  fits the pads' clock map with a "round trip" of a few µs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from buzzerbox import lazy
from buzzerbox.pads.timeline.clockmap import ClockMap
from buzzerbox.pads.timeline.syncgroup import PERIOD_US, PULSE_US, Pulse, Pulser

if TYPE_CHECKING:
    from buzzerbox.pads.gpio import SyncPulser

#: gpiozero loads when the pulser is asked for, not with doctor's command line
__getattr__ = lazy.attributes(__name__, {"SyncPulser": "buzzerbox.pads.gpio"})

__all__ = ["PERIOD_US", "PULSE_US", "Pulse", "Pulser", "SyncMatcher", "SyncPulser", "WireSample"]


@dataclass(frozen=True, slots=True)
class WireSample:
    """A board's clock `board_t` (ticks) at a pulse: a ClockMap sample."""

    pulse: Pulse
    board_t: int

    def add_to(self, clock: ClockMap) -> None:
        clock.add(self.pulse.t0_us, self.board_t, self.pulse.t1_us)


class SyncMatcher:
    """Pairs one board's sync-channel presses with the host's pulses."""

    def __init__(self, tick_hz: int, *, window_us: int = PERIOD_US // 3) -> None:
        self.tick_hz = tick_hz
        self.window_us = window_us
        self.samples: list[WireSample] = []
        self.unmatched = 0

    def match(
        self, board_t: int, pulses: Any, rough: Callable[[int], int] | None = None
    ) -> WireSample | None:
        """The pulse a sync edge at `board_t` belongs to (nearest by `rough`, the board's
        USB mapping), kept as a sample; None (counted) if no pulse is near enough.

        Without `rough` (no USB mapping yet) only the latest pulse is taken.
        """
        candidates: list[Pulse] = list(pulses)
        if not candidates:
            self.unmatched += 1
            return None
        if rough is None:
            best = candidates[-1]
        else:
            guess = rough(board_t)
            best = min(candidates, key=lambda p: abs(p.mid_us - guess))
            if abs(best.mid_us - guess) > self.window_us:
                self.unmatched += 1
                return None
        if any(s.pulse == best for s in self.samples):
            self.unmatched += 1  # a pulse gives one sample per board
            return None
        sample = WireSample(best, board_t)
        self.samples.append(sample)
        return sample

    def offsets_us(self) -> list[float]:
        """Host minus board time (µs) at each pulse: constant but for drift and jitter."""
        us_per_tick = 1_000_000 / self.tick_hz
        return [s.pulse.mid_us - s.board_t * us_per_tick for s in self.samples]

    def clock_map(self, min_span_us: int = 2 * PERIOD_US) -> ClockMap:
        """The board's clock mapped by the wire alone (`ClockMap` of the pads area);
        drift is fitted once the pulses span `min_span_us`."""
        cm = ClockMap(self.tick_hz, min_span_us=min_span_us)
        for s in self.samples:
            s.add_to(cm)
        return cm
