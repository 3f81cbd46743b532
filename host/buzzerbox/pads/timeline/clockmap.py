"""One board clock mapped onto the host timeline. PURE: samples in, times out.

The host sends ``SYNC <token>`` at `host_send_us`, the board answers with its
clock `board_t` (ticks at `tick_hz`), and the answer is read at `host_recv_us`;
the board time is taken to match the midpoint of send and receive, good to half
the round trip. `ClockMap` keeps the recent samples, fits

    host_us = offset + (1 + drift) * (board_us - board_ref)

to the fastest ones, those within 100 µs of the best round trip (the shortest
round trips carry the least doubt: over USB a board's answer waits up to 1 ms for
the next frame's poll, and only the answers that waited least show its true
asymmetry; tests/bench/fairness.py), and refits
on every sample. Drift is fitted only once the samples span `min_span_us` and is
held within ±`max_drift_ppm` (boards drift up to ±50 ppm); until then it is 0.
A board that reboots gets a new map.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from buzzerbox.errors import InputError


@dataclass(frozen=True, slots=True)
class SyncSample:
    """One SYNC round trip: the board clock in µs against the host's midpoint."""

    board_us: float
    host_us: float
    rtt_us: int


class ClockMap:
    """Board ticks to host µs (CLOCK_MONOTONIC), fitted from SYNC round trips."""

    def __init__(
        self,
        tick_hz: int = 1_000_000,
        *,
        keep: int = 64,
        min_span_us: int = 2_000_000,
        max_drift_ppm: float = 200.0,
    ) -> None:
        if tick_hz <= 0:
            raise InputError(f"tick_hz {tick_hz} is not allowed: it must be above 0")
        self.tick_hz = tick_hz
        self._us_per_tick = 1_000_000 / tick_hz
        self._samples: deque[SyncSample] = deque(maxlen=keep)
        self._min_span = min_span_us
        self._max_drift = max_drift_ppm * 1e-6
        self._board_ref = 0.0
        self._host_ref = 0.0
        self._rate = 1.0
        self._best_rtt: int | None = None
        self.is_mapped = False
        self.has_drift = False
        """Whether the drift was fitted (the samples span `min_span_us`)."""

    @property
    def samples(self) -> int:
        return len(self._samples)

    @property
    def drift_ppm(self) -> float:
        """How much faster the host runs than the board, in parts per million."""
        return (self._rate - 1.0) * 1e6

    @property
    def best_rtt_us(self) -> int | None:
        """The shortest round trip kept (asked of every frame: kept, not sought)."""
        return self._best_rtt

    def add(self, host_send_us: int, board_t: int, host_recv_us: int) -> None:
        """Take one SYNC round trip and refit. A reply before its request is ignored."""
        if host_recv_us < host_send_us:
            return
        sample = SyncSample(
            board_t * self._us_per_tick,
            (host_send_us + host_recv_us) / 2,
            host_recv_us - host_send_us,
        )
        self._samples.append(sample)
        self._best_rtt = min(s.rtt_us for s in self._samples)
        self._fit()

    def to_host(self, board_t: int) -> int:
        """The host time (µs) of board time `board_t` (ticks). Needs `is_mapped`."""
        x = board_t * self._us_per_tick
        return round(self._host_ref + self._rate * (x - self._board_ref))

    def to_board(self, host_us: int) -> int:
        """The board time (ticks) at host time `host_us`: `to_host` inverted."""
        x = self._board_ref + (host_us - self._host_ref) / self._rate
        return round(x * self.tick_hz / 1_000_000)

    def _fit(self) -> None:
        fast = self._fastest()
        rate = self._rate
        xs = [s.board_us for s in fast]
        span = max(xs) - min(xs)
        if len(fast) >= 2 and span >= self._min_span:
            mx = sum(xs) / len(xs)
            my = sum(s.host_us for s in fast) / len(fast)
            sxx = sum((x - mx) ** 2 for x in xs)
            sxy = sum((s.board_us - mx) * (s.host_us - my) for s in fast)
            rate = sxy / sxx
            rate = min(max(rate, 1.0 - self._max_drift), 1.0 + self._max_drift)
            self.has_drift = True
        # The offset through the centre of the fastest samples, for that rate.
        bx = sum(xs) / len(xs)
        hy = sum(s.host_us - rate * (s.board_us - bx) for s in fast) / len(fast)
        self._board_ref, self._host_ref, self._rate = bx, hy, rate
        self.is_mapped = True

    def _fastest(self) -> list[SyncSample]:
        """The samples whose round trip is near the best one (within 100 µs)."""
        assert self._best_rtt is not None
        limit = self._best_rtt + 100
        return [s for s in self._samples if s.rtt_us <= limit]
