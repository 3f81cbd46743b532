"""Leading-edge debounce, per pad. PURE: edges and times in, edges out.

The first edge of a bounce burst is the press (or release), with its own time;
edges in the `window_us` after it are dropped. Pads never affect each other.

If the contact ends a window in the other state than the one reported (a tap
shorter than the window), the first edge into that state since the last
reported one is reported when the window closes, at its own time, so the
reported state always follows the contact. `earliest_open()` says how far back
such an edge can still be, for the arbiter's watermark.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

from buzzerbox.errors import InputError

K = TypeVar("K", bound=Hashable)


@dataclass(slots=True)
class _Pad:
    state: int
    window_end: int
    pending: tuple[int, int] | None = None  # (state, t_us) seen inside the window


class Debouncer(Generic[K]):
    """Per-key leading-edge debounce with a window of `window_us`."""

    def __init__(self, window_us: int) -> None:
        if window_us < 0:
            raise InputError(f"debounce window {window_us} µs is not allowed: it must be 0 or more")
        self.window_us = window_us
        self._pads: dict[K, _Pad] = {}
        self.dropped = 0

    def add(self, key: K, state: int) -> None:
        """Start following `key`, whose contact is now in `state` (1 closed, 0 open)."""
        self._pads[key] = _Pad(state, -(1 << 62))

    def state(self, key: K) -> int:
        return self._pads[key].state

    def edge(self, key: K, state: int, t_us: int) -> list[tuple[int, int]]:
        """One raw edge of `key`; returns the (state, t_us) edges to report, in order."""
        pad = self._pads[key]
        out: list[tuple[int, int]] = []
        if t_us >= pad.window_end and pad.pending is not None:
            out.append(self._close(pad))
        if t_us < pad.window_end:
            self.dropped += 1
            if state == pad.state:
                pad.pending = None
            elif pad.pending is None:
                pad.pending = (state, t_us)
        elif state != pad.state:
            pad.state, pad.window_end = state, t_us + self.window_us
            out.append((state, t_us))
        return out

    def settle(self, now_us: int) -> list[tuple[K, int, int]]:
        """Edges whose window closed by `now_us` with the contact in the other state."""
        out: list[tuple[K, int, int]] = []
        for key, pad in self._pads.items():
            if pad.pending is not None and now_us >= pad.window_end:
                state, t_us = self._close(pad)
                out.append((key, state, t_us))
        return out

    def earliest_open(self) -> int | None:
        """The time of the oldest edge that a closing window may still report."""
        times = [p.pending[1] for p in self._pads.values() if p.pending is not None]
        return min(times, default=None)

    def _close(self, pad: _Pad) -> tuple[int, int]:
        assert pad.pending is not None
        state, t_us = pad.pending
        pad.state, pad.window_end, pad.pending = state, t_us + self.window_us, None
        return state, t_us
