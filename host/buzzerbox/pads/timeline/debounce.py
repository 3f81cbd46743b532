"""Leading-edge debounce and release hysteresis, per pad. PURE: edges and times in,
edges out.

Two stages, per pad:

1. **Window** (`window_us`): the first edge of a bounce burst is the press (or
   release), with its own time; edges in the window after it are dropped. If the
   contact ends a window in the other state than the one reported (a tap shorter
   than the window), the first edge into that state since the last reported one
   is reported when the window closes, at its own time, so the reported state
   always follows the contact.
2. **Release hold** (`release_us`, per pad; 0: none): a release counts only once
   the contact has stayed open that long. A press before then cancels it: the
   release and that re-press are both dropped (a resting hand shifting its
   weight), and `flickers` counts it. A release that holds is reported at its own
   time, so neither a press's nor a release's time stamp is ever moved; only the
   moment the release is final waits.

Pads never affect each other. `earliest_open()` says how far back an edge that
is still undecided can be, for the arbiter's watermark.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

from buzzerbox.errors import InputError

K = TypeVar("K", bound=Hashable)


@dataclass(slots=True)
class _Pad:
    state: int  # the state the window stage reported last
    window_end: int
    release_us: int = 0
    order: int = 0  # when it was added: settle() reports pads in this order
    pending: tuple[int, int] | None = None  # (state, t_us) seen inside the window
    held: int | None = None  # the time of a release waiting out `release_us`


class Debouncer(Generic[K]):
    """Per-key leading-edge debounce with a window of `window_us`, and a release hold
    per key (`add(..., release_us=)`)."""

    def __init__(self, window_us: int) -> None:
        if window_us < 0:
            raise InputError(f"debounce window {window_us} µs is not allowed: it must be 0 or more")
        self.window_us = window_us
        self._pads: dict[K, _Pad] = {}
        self._open: dict[K, _Pad] = {}  # the pads with an edge pending or a release held
        self._added = 0
        self.dropped = 0
        self.flickers = 0

    def add(self, key: K, state: int, *, release_us: int = 0) -> None:
        """Start following `key`, whose contact is now in `state` (1 closed, 0 open);
        its releases count once the contact stayed open `release_us`."""
        if release_us < 0:
            raise ValueError(f"release hold {release_us} µs is not allowed: it must be 0 or more")
        known = self._pads.get(key)
        self._added += known is None
        order = self._added if known is None else known.order  # a dict keeps its place too
        self._pads[key] = _Pad(state, -(1 << 62), release_us, order)
        self._open.pop(key, None)

    @property
    def is_open(self) -> bool:
        """Whether some pad has an edge pending in its window or a release held."""
        return bool(self._open)

    def __contains__(self, key: object) -> bool:
        return key in self._pads

    def contact(self, key: K) -> int:
        """The state the window stage took last (the contact's, as far as it knows)."""
        return self._pads[key].state

    def state(self, key: K) -> int:
        """The reported state: a release still held is not reported yet."""
        pad = self._pads[key]
        return 1 if pad.held is not None else pad.state

    def edge(self, key: K, state: int, t_us: int) -> list[tuple[int, int]]:
        """One raw edge of `key`; returns the (state, t_us) edges to report, in order."""
        pad = self._pads[key]
        out: list[tuple[int, int]] = []
        if t_us >= pad.window_end and pad.pending is not None:
            out += self._hold(pad, *self._close(pad))
        out += self._expire(pad, t_us)
        if t_us < pad.window_end:
            self.dropped += 1
            if state == pad.state:
                pad.pending = None
            elif pad.pending is None:
                pad.pending = (state, t_us)
        elif state != pad.state:
            pad.state, pad.window_end = state, t_us + self.window_us
            out += self._hold(pad, state, t_us)
        if pad.pending is not None or pad.held is not None:
            self._open[key] = pad
        return out

    def settle(self, now_us: int) -> list[tuple[K, int, int]]:
        """Edges decided by `now_us`: windows closed with the contact in the other
        state, and releases that stayed open their hold."""
        out: list[tuple[K, int, int]] = []
        if not self._open:  # nothing pending, nothing held: most frames of a busy board
            return out
        opened = sorted(self._open.items(), key=lambda kv: kv[1].order)
        for key, pad in opened:
            decided: list[tuple[int, int]] = []
            if pad.pending is not None and now_us >= pad.window_end:
                decided += self._hold(pad, *self._close(pad))
            decided += self._expire(pad, now_us)
            out += [(key, state, t_us) for state, t_us in decided]
            if pad.pending is None and pad.held is None:
                del self._open[key]
        return out

    def earliest_open(self) -> int | None:
        """The time of the oldest edge that may still be reported (a window's or a
        held release's)."""
        times = [p.pending[1] for p in self._open.values() if p.pending is not None]
        times += [p.held for p in self._open.values() if p.held is not None]
        return min(times, default=None)

    def _close(self, pad: _Pad) -> tuple[int, int]:
        assert pad.pending is not None
        state, t_us = pad.pending
        pad.state, pad.window_end, pad.pending = state, t_us + self.window_us, None
        return state, t_us

    def _hold(self, pad: _Pad, state: int, t_us: int) -> list[tuple[int, int]]:
        """The release-hold stage for one edge the window stage reports."""
        out = self._expire(pad, t_us)
        if state == 0 and pad.release_us > 0:
            pad.held = t_us
        elif state == 1 and pad.held is not None:
            pad.held = None  # open for less than the hold: a flicker, not a lift
            self.flickers += 1
        else:
            out.append((state, t_us))
        return out

    def _expire(self, pad: _Pad, now_us: int) -> list[tuple[int, int]]:
        """The held release, if the contact stayed open its hold by `now_us` (and no
        press inside the hold still waits in the window)."""
        held = pad.held
        if held is None or now_us < held + pad.release_us:
            return []
        if pad.pending is not None and pad.pending[1] < held + pad.release_us:
            return []
        pad.held = None
        return [(0, held)]
