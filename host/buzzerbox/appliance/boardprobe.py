"""Measuring pad boards for `buzzerbox doctor`: HELLO, SYNC round trips, the sync wire.

A `Probe` opens each board with the pads area's transport (`SerialLink`: one
reader thread per URL, bytes stamped on arrival), decodes with its framing
(`protocol.FrameDecoder`), and asks each board ``HELLO?`` and then ``SYNC`` every
`sync_gap_us`, like a host session does, but keeps every round trip so it can
report their spread. With a `SyncPulser` it also pulses the sync wire and pairs
each board's sync edges with the pulses (`syncwire.SyncMatcher`).
"""

from __future__ import annotations

import contextlib
import queue
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import serial

from buzzerbox.appliance import pinout
from buzzerbox.appliance.syncpulse import PERIOD_US, PULSE_US, Pulser, SyncMatcher
from buzzerbox.clock import monotonic_us
from buzzerbox.pads.board import protocol as p
from buzzerbox.pads.link.serialport import LinkEvent, OpenPort, SerialLink
from buzzerbox.pads.timeline.clockmap import ClockMap

HELLO_RETRY_US = 500_000


@dataclass(frozen=True, slots=True)
class SyncTrip:
    """One SYNC: sent at `sent_us`, answered with board time `board_t`, read at `recv_us`."""

    sent_us: int
    board_t: int
    recv_us: int

    @property
    def rtt_us(self) -> int:
        return self.recv_us - self.sent_us

    @property
    def mid_us(self) -> float:
        return (self.sent_us + self.recv_us) / 2


@dataclass
class BoardReport:
    """What one board said and how its clock behaved."""

    url: str
    hello: p.Hello | None = None
    trips: list[SyncTrip] = field(default_factory=list)
    edges: list[p.EdgeFrame] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    bad_frames: int = 0
    wire: SyncMatcher | None = None
    sync_ch: int | None = None
    sync_edges: int = 0
    """Pulses seen on `sync_ch` (also those of a pulser that is not ours)."""

    @property
    def tick_hz(self) -> int:
        return self.hello.tick_hz if self.hello and self.hello.tick_hz else 1_000_000

    def clock_map(self) -> ClockMap:
        """The board clock fitted from its SYNC round trips (the pads' `ClockMap`)."""
        cm = ClockMap(self.tick_hz)
        for trip in self.trips:
            cm.add(trip.sent_us, trip.board_t, trip.recv_us)
        return cm

    def residuals_us(self, fastest: bool = False) -> list[float]:
        """Each trip's midpoint minus the fitted map at its board time: the offset's scatter."""
        trips = sorted(self.trips, key=lambda t: t.rtt_us)
        if fastest:
            trips = trips[: max(1, (len(trips) + 1) // 2)]
        if not trips:
            return []
        cm = self.clock_map()
        return [t.mid_us - cm.to_host(t.board_t) for t in trips]

    def rtt_summary(self) -> tuple[int, float, int] | None:
        rtts = [t.rtt_us for t in self.trips]
        return (min(rtts), statistics.median(rtts), max(rtts)) if rtts else None


def spread(values: Sequence[float]) -> float:
    return max(values) - min(values) if values else 0.0


class Probe:
    """Boards at `urls`, measured for `duration_s` by `run`.

    `sync_ch` picks each board's sync-wire channel from its HELLO (the pad map's
    `sync`; default, with a `pulser`: the last input of its firmware layout,
    `pinout.PicoLayout.sync_ch`).
    """

    def __init__(
        self,
        urls: Sequence[str],
        *,
        clock: Callable[[], int] = monotonic_us,
        open_port: OpenPort = serial.serial_for_url,
        sync_gap_us: int = 100_000,
        pulser: Pulser | None = None,
        period_us: int = PERIOD_US,
        pulse_us: int = PULSE_US,
        sync_ch: Callable[[p.Hello], int | None] | None = None,
    ) -> None:
        self.clock = clock
        self.reports = [BoardReport(url) for url in urls]
        self.pulser = pulser
        self.period_us, self.pulse_us = period_us, pulse_us
        self.sync_gap_us = sync_gap_us
        self._sync_ch = sync_ch or (_layout_sync_ch if pulser is not None else _no_sync_ch)
        self._queue: queue.Queue[LinkEvent] = queue.Queue()
        self._links = [
            SerialLink(i, url, self._queue.put, clock=clock, open_port=open_port)
            for i, url in enumerate(urls)
        ]
        self._decoders: list[p.FrameDecoder[p.BoardFrame]] = [
            p.FrameDecoder(p.parse_board) for _ in urls
        ]
        self._pending: list[dict[int, int]] = [{} for _ in urls]
        self._next_sync: list[int | None] = [None for _ in urls]
        self._next_hello: list[int | None] = [None for _ in urls]
        self._token = 0

    def run(self, duration_s: float, until: Callable[[Probe], bool] | None = None) -> None:
        """Measure until `duration_s` passed, or earlier when `until(self)` holds."""
        end = self.clock() + int(duration_s * 1_000_000)
        next_fall = self.clock() + self.pulse_us if self.pulser else None
        next_rise: int | None = None
        for link in self._links:
            link.start()
        try:
            while self.clock() < end and not (until is not None and until(self)):
                with contextlib.suppress(queue.Empty):
                    self._handle(self._queue.get(timeout=0.002))
                now = self.clock()
                self._due(now)
                if self.pulser is not None and next_fall is not None:
                    if next_rise is not None and now >= next_rise:
                        self.pulser.rise()
                        next_rise = None
                    if now >= next_fall and next_rise is None:
                        self.pulser.fall()
                        next_rise = now + self.pulse_us
                        next_fall = now + self.period_us
        finally:
            if self.pulser is not None:
                self.pulser.rise()
            for link in self._links:
                link.stop()
        for r, decoder in zip(self.reports, self._decoders, strict=True):
            r.bad_frames = decoder.bad

    def _handle(self, ev: LinkEvent) -> None:
        i, report = ev.link, self.reports[ev.link]
        if ev.kind == "opened":
            self._decoders[i].reset()
            self._send(i, p.hello_request())
            self._next_hello[i] = ev.t_us + HELLO_RETRY_US
        elif ev.kind == "gone":
            report.errors.append(f"port gone: {ev.reason}")
            self._next_sync[i] = self._next_hello[i] = None
        else:
            for frame in self._decoders[i].feed(ev.data):
                self._frame(i, frame, ev.t_us)

    def _frame(self, i: int, frame: p.BoardFrame, now_us: int) -> None:
        report = self.reports[i]
        if isinstance(frame, p.Hello):
            report.hello = frame
            self._next_hello[i] = None
            if frame.proto != p.PROTO:
                report.errors.append(f"protocol {frame.proto} is not supported: the host speaks 1")
                return
            report.sync_ch = self._sync_ch(frame)
            if self.pulser is not None and report.wire is None:
                report.wire = SyncMatcher(frame.tick_hz or 1_000_000)
            self._next_sync[i] = now_us
        elif report.hello is None:
            return  # frames before the HELLO are ignored, as the host does (protocol)
        elif isinstance(frame, p.SyncReply):
            sent = self._pending[i].pop(frame.token, None)
            if sent is not None:
                report.trips.append(SyncTrip(sent, frame.t, now_us))
        elif isinstance(frame, p.EdgeFrame):
            if frame.ch == report.sync_ch:
                report.sync_edges += frame.state
                if report.wire is not None and frame.state == 1:
                    cm = report.clock_map() if report.trips else None
                    rough = cm.to_host if cm is not None and cm.is_mapped else None
                    assert self.pulser is not None
                    report.wire.match(frame.t, self.pulser.pulses, rough)
            else:
                report.edges.append(frame)
        elif isinstance(frame, p.Err):
            report.errors.append(f"ERR {frame.code} {frame.text}".rstrip())

    def _due(self, now: int) -> None:
        for i in range(len(self._links)):
            hello_due = self._next_hello[i]
            if hello_due is not None and now >= hello_due:
                self._send(i, p.hello_request())
                self._next_hello[i] = now + HELLO_RETRY_US
            sync_due = self._next_sync[i]
            if sync_due is not None and now >= sync_due and not self._pending[i]:
                self._token = (self._token + 1) % p.U32
                self._pending[i][self._token] = self.clock()
                self._send(i, p.sync_request(self._token))
                self._next_sync[i] = now + self.sync_gap_us
            elif self._pending[i] and now - min(self._pending[i].values()) > 2_000_000:
                self._pending[i].clear()  # unanswered: ask again
                self.reports[i].errors.append("a SYNC went unanswered for 2 s")

    def _send(self, i: int, data: bytes) -> None:
        self._links[i].write(data)


def _no_sync_ch(hello: p.Hello) -> int | None:
    return None


def _layout_sync_ch(hello: p.Hello) -> int | None:
    layout = pinout.pico_layout(hello.channels)
    return layout.sync_ch if layout is not None else None
