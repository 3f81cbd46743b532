"""Pulsers for a sync wire to fake boards on ports (`FakeBoardPort.wire`): the host's
own (`LinePulser`, stamped, a `syncwire.Pulser`) or an outside one on its own thread
(`WirePulser`, which the host does not stamp). Every board on the `SyncLine` sees a
pulse at the same instant and stamps it with its own clock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from buzzerbox.clock import monotonic_us
from buzzerbox.pads.fakes.padboard import SyncLine
from buzzerbox.pads.timeline.syncgroup import PERIOD_US, PULSE_US, Pulse


class LinePulser:
    """The host's pulser on a sync wire to fake boards (a `syncwire.Pulser`): `fall`
    stamps the host clock, then every board on `line` sees the pulse at that instant."""

    def __init__(self, line: SyncLine, clock: Callable[[], int] = monotonic_us) -> None:
        self.line, self.clock = line, clock
        self.pulses: list[Pulse] = []

    def fall(self) -> Pulse:
        t0 = self.clock()
        pulse = Pulse(len(self.pulses) + 1, t0, self.clock())
        self.line.fall(t0)
        self.pulses.append(pulse)
        return pulse

    def rise(self) -> None:
        self.line.rise(self.clock())

    def close(self) -> None:
        pass


class WirePulser:
    """An outside pulser on a sync wire: a pulse every `period_us`, `pulse_us` long, on
    its own thread, until `close`. Every board on `line` sees it at the same instant."""

    def __init__(
        self,
        line: SyncLine,
        *,
        period_us: int = PERIOD_US,
        pulse_us: int = PULSE_US,
        clock: Callable[[], int] = monotonic_us,
    ) -> None:
        self.line, self.period_us, self.pulse_us, self.clock = line, period_us, pulse_us, clock
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fake-pulser", daemon=True)

    def __enter__(self) -> WirePulser:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closed.set()
        self._thread.join(2.0)

    def _run(self) -> None:
        while not self._closed.is_set():
            start = self.clock()
            self.line.fall(start)
            self._closed.wait(self.pulse_us / 1e6)  # the pulser's pace, not a wait for us
            self.line.rise(self.clock())
            self._closed.wait(max(0, start + self.period_us - self.clock()) / 1e6)
