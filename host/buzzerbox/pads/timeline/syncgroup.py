"""The sync wire in arbitration (hardware/sync-wire.md). PURE: times in, clock maps out.

One line reaches one input of every board (its `sync` channel in the pad map). A
pulse reaches every board at the same instant, and each board stamps it with the
clock that stamps its pads, so the stamps of one pulse are the same instant on
every board. `SyncGroup` turns them into each board's clock map (`ClockMap`):

- **pulses the host made and stamped** (`pulse(t0, t1)`: the `SyncPulser` on the pad
  map's ``[sync] gpio``): a board's sync edge is paired with the pulse nearest the
  edge's rough (SYNC round-trip) mapping, and ``(t0, board_t, t1)`` is a clock
  sample whose "round trip" is the few µs the host's write took;
- **pulses from elsewhere** (an external pulser, or one the host cannot stamp): the
  boards' sync edges are grouped by their rough mapped times, one cluster per
  pulse. A pulse's host time is the mean of the boards' rough times of it, each
  less that board's usual deviation from the group's mean, so a board that missed
  a pulse does not move the anchor. The boards line up with each other to the µs;
  the group sits on the host timeline as well as the SYNC round trips averaged
  over the group.

A board is mapped by its wire (`clock`) once the wire gave samples spanning
`min_span_us` (so its drift is fitted), and until no sample came for `silent_us`;
otherwise its SYNC map stays in charge (the fallback), and `state` says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Literal, Protocol

from buzzerbox.pads.timeline.clockmap import ClockMap

PULSE_US: Final = 60_000
"""The low part of a pulse: longer than any board's debounce window (pile boards:
30 ms), so the release is an edge of its own and the next pulse is not swallowed."""
PERIOD_US: Final = 1_000_000
"""Pulses this far apart cannot be confused by a USB mapping good to a few ms."""
SILENT_US: Final = 5_000_000
"""No pulse for this long: the board's wire is taken as silent (SYNC maps it)."""
CLUSTER_US: Final = 20_000
"""Sync edges of different boards whose rough times are this close are one pulse."""
CLOSE_US: Final = 100_000
"""A pulse not yet seen by every live wire is used anyway after this long."""

WireState = Literal["waiting", "live", "silent"]
"""`waiting`: no pulse yet; `live`: the wire maps the board; `silent`: no pulse lately."""


@dataclass(frozen=True, slots=True)
class Pulse:
    """One falling edge of the sync wire, made between host times `t0_us` and `t1_us`."""

    n: int
    t0_us: int
    t1_us: int

    @property
    def mid_us(self) -> float:
        return (self.t0_us + self.t1_us) / 2


class Pulser(Protocol):
    """What drives the sync wire: `gpio.SyncPulser`, or a test's stand-in. `fall`
    pulls the line low and says when (host µs before and after); `rise` ends it."""

    @property
    def pulses(self) -> Sequence[Pulse]: ...

    def fall(self) -> Pulse: ...

    def rise(self) -> None: ...

    def close(self) -> None: ...


@dataclass
class _Wire:
    """One board's side of the wire."""

    clock: ClockMap
    joined_us: int
    last_us: int | None = None  # host time the last sample was taken
    last_pulse: int = 0  # host pulses: the last one paired (one sample per pulse)
    deviation: float | None = None  # external pulses: rough time minus the group's anchor
    samples: int = 0
    unmatched: int = 0


@dataclass
class _Cluster:
    """External pulses: the boards' sync edges of one pulse, as they come in."""

    opened_us: int
    rough_us: float
    edges: dict[str, tuple[int, float]] = field(default_factory=dict)  # board -> (t, rough)


class SyncGroup:
    """The boards on one sync wire. `is_stamped`: the host makes (and stamps) the pulses."""

    def __init__(
        self,
        *,
        is_stamped: bool,
        period_us: int = PERIOD_US,
        silent_us: int = SILENT_US,
        min_span_us: int | None = None,
        keep: int = 16,
    ) -> None:
        self.is_stamped = is_stamped
        self.period_us = period_us
        self.silent_us = silent_us
        self.min_span_us = min_span_us if min_span_us is not None else period_us * 9 // 10
        self.keep = keep
        self.pulses: list[Pulse] = []
        self._wires: dict[str, _Wire] = {}
        self._clusters: list[_Cluster] = []
        self._n = 0

    # The boards --------------------------------------------------------------------

    def join(self, board: str, tick_hz: int, now_us: int) -> None:
        """`board` (re)started with its sync channel on the wire: its wire map starts anew."""
        # The wire's samples are good to µs: no drift limit that would bend the maps of
        # two boards differently when an outside pulser's anchors jitter (their SYNC mean).
        cm = ClockMap(tick_hz, keep=self.keep, min_span_us=self.min_span_us, max_drift_ppm=5000)
        self._wires[board] = _Wire(cm, now_us)

    def leave(self, board: str) -> None:
        self._wires.pop(board, None)
        for cluster in self._clusters:
            cluster.edges.pop(board, None)

    def state(self, board: str, now_us: int) -> WireState | None:
        """None: `board` is not on the wire (no sync channel)."""
        wire = self._wires.get(board)
        if wire is None:
            return None
        if wire.last_us is None:
            return "waiting" if now_us - wire.joined_us <= self.silent_us else "silent"
        if now_us - wire.last_us > self.silent_us:
            return "silent"
        return "live" if wire.clock.has_drift else "waiting"

    def clock(self, board: str, now_us: int) -> ClockMap | None:
        """The board's wire map while its wire is live, else None (use its SYNC map)."""
        wire = self._wires.get(board)
        return wire.clock if wire is not None and self.state(board, now_us) == "live" else None

    def samples(self, board: str) -> tuple[int, int]:
        """(pulses paired, sync edges left unpaired) for `board`."""
        wire = self._wires.get(board)
        return (wire.samples, wire.unmatched) if wire is not None else (0, 0)

    # Pulses and edges -------------------------------------------------------------

    def pulse(self, t0_us: int, t1_us: int) -> Pulse:
        """The host pulled the line low between `t0_us` and `t1_us` (its own clock)."""
        self._n += 1
        pulse = Pulse(self._n, t0_us, t1_us)
        self.pulses.append(pulse)
        del self.pulses[:-8]
        return pulse

    def edge(self, board: str, board_t: int, rough_us: float, now_us: int) -> None:
        """`board` saw the line fall at its time `board_t`; its SYNC map puts that at
        `rough_us`. Edges of a board not on the wire are ignored."""
        wire = self._wires.get(board)
        if wire is None:
            return
        if self.is_stamped:
            self._paired(board, wire, board_t, rough_us, now_us)
        else:
            self._clustered(board, board_t, rough_us, now_us)

    def poll(self, now_us: int) -> None:
        """External pulses: use the clusters that waited long enough for every wire."""
        if self._clusters:
            due = [c for c in self._clusters if now_us - c.opened_us >= CLOSE_US]
            for cluster in due:
                self._clusters.remove(cluster)
                self._anchor(cluster, now_us)

    def next_due_us(self) -> int | None:
        """When `poll` has a cluster of external pulses to close (None: none waits)."""
        return min((c.opened_us + CLOSE_US for c in self._clusters), default=None)

    def _take(self, wire: _Wire, host_lo: float, board_t: int, host_hi: float, now: int) -> None:
        wire.clock.add(round(host_lo), board_t, round(host_hi))
        wire.last_us = now
        wire.samples += 1

    def _paired(self, board: str, wire: _Wire, board_t: int, rough: float, now: int) -> None:
        best = min(self.pulses, key=lambda p: abs(p.mid_us - rough), default=None)
        if best is None or abs(best.mid_us - rough) > self.period_us // 3:
            wire.unmatched += 1
            return
        if best.n <= wire.last_pulse:
            wire.unmatched += 1  # a pulse gives one sample per board
            return
        wire.last_pulse = best.n
        self._take(wire, best.t0_us, board_t, best.t1_us, now)

    def _clustered(self, board: str, board_t: int, rough: float, now: int) -> None:
        cluster = min(self._clusters, key=lambda c: abs(c.rough_us - rough), default=None)
        if cluster is None or abs(cluster.rough_us - rough) > CLUSTER_US or board in cluster.edges:
            cluster = _Cluster(now, rough)
            self._clusters.append(cluster)
        cluster.edges[board] = (board_t, rough)
        waited_for = {b for b in self._wires if self.state(b, now) != "silent"}
        if waited_for <= set(cluster.edges):
            self._clusters.remove(cluster)
            self._anchor(cluster, now)

    def _anchor(self, cluster: _Cluster, now: int) -> None:
        """The pulse's host time from the boards that saw it; a sample for each of them.

        The anchor is the mean of their rough times, each less its board's usual
        deviation, so it does not move when a board misses a pulse. Its jitter (the
        SYNC maps') is the same for every board, so it does not come between them:
        a board on a live wire that missed the pulse gets the same anchor too, at the
        board time its map and the others' stamps put the pulse at.
        """
        edges = {b: e for b, e in cluster.edges.items() if b in self._wires}
        if not edges:
            return
        known = {b: w.deviation for b in edges if (w := self._wires[b]).deviation is not None}
        if known:
            anchor = sum(edges[b][1] - d for b, d in known.items()) / len(known)
        else:
            anchor = sum(rough for _, rough in edges.values()) / len(edges)
        for board, (_, rough) in edges.items():
            wire = self._wires[board]
            seen = rough - anchor  # a running mean, then a moving one
            was = seen if wire.deviation is None else wire.deviation
            wire.deviation = was + (seen - was) / min(wire.samples + 1, 16)
        predicted = [
            wired.to_host(board_t)
            for b, (board_t, _) in edges.items()
            if (wired := self.clock(b, now)) is not None
        ]
        if predicted:  # where the boards on the wire put the pulse
            at = round(sum(predicted) / len(predicted))
            for board in self._wires.keys() - edges.keys():
                wired = self.clock(board, now)
                if wired is not None:
                    wired.add(round(anchor), wired.to_board(at), round(anchor))
        for board, (board_t, _) in edges.items():
            self._take(self._wires[board], anchor, board_t, anchor, now)


class PulseTimer:
    """When the host pulses: a fall every `period_us`, each `pulse_us` long."""

    def __init__(self, period_us: int = PERIOD_US, pulse_us: int = PULSE_US) -> None:
        self.period_us, self.pulse_us = period_us, pulse_us
        self._fall: int | None = None
        self._rise: int | None = None

    def next_us(self) -> int:
        """When `due` has something to do next (0: at once, the first fall)."""
        if self._rise is not None:
            return self._rise
        return 0 if self._fall is None else self._fall

    def due(self, now_us: int) -> Literal["fall", "rise"] | None:
        """What to do now, if anything (called often; the first fall comes at once)."""
        if self._rise is not None and now_us >= self._rise:
            self._rise = None
            return "rise"
        if self._rise is None and (self._fall is None or now_us >= self._fall):
            self._fall = (self._fall or now_us) + self.period_us
            self._fall = max(self._fall, now_us + self.pulse_us + 1)
            self._rise = now_us + self.pulse_us
            return "fall"
        return None
