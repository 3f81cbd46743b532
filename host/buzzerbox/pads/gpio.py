"""Pads on the Pi's own header, read through gpiozero.

`GpioPads` takes a `pin_factory` and never imports a backend: on the box it is
gpiozero's lgpio factory (`pifactory.open_pi_factory`), in tests a MockFactory
with a controlled clock. The factory owns the clock: each pad's raw pin reports
`when_changed(ticks, state)`, and with lgpio `ticks` is the kernel's edge
timestamp on CLOCK_MONOTONIC, in seconds. No gpiozero/lgpio `bounce` is set:
debounce is ours (`Debouncer`, leading edge, per pad, and a release hold per
pad for pile zones). gpiozero holds callbacks by weak reference, so this class
keeps a strong one per pin. `SyncPulser` drives the sync wire from a pin of the
same factory.
"""

from __future__ import annotations

import functools
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from gpiozero import LED, InputDevice

from buzzerbox.pads.timeline.debounce import Debouncer
from buzzerbox.pads.timeline.syncgroup import Pulse

EdgeCallback = Callable[[int, int, int], None]
"""`when_edge(pin, state, t_us)`: state 1 = pressed (contact closed)."""


def seconds_to_us(ticks: Any) -> int:
    """gpiozero's local factories (lgpio, mock) tick in seconds of CLOCK_MONOTONIC."""
    return round(float(ticks) * 1_000_000)


class GpioPads:
    """Debounced edges of the pads on `pins` (BCM numbers), with their kernel times.

    `when_edge(pin, state, t_us)` is called from gpiozero's callback thread (or
    from `settle`) for each debounced edge; it must be quick and thread-safe (a
    queue's `put`). `lights` are output pins for pad lights. `release_us` gives a
    pin's release hold (µs; absent: none): see `Debouncer`.
    """

    def __init__(
        self,
        pins: Iterable[int],
        *,
        pin_factory: Any,
        when_edge: EdgeCallback,
        pull_up: bool = True,
        debounce_us: int = 5000,
        lights: Iterable[int] = (),
        release_us: Mapping[int, int] | None = None,
        ticks_us: Callable[[Any], int] = seconds_to_us,
    ) -> None:
        self.factory = pin_factory
        self.when_edge = when_edge
        self._ticks_us = ticks_us
        self._pressed_level = not pull_up
        self._lock = threading.Lock()
        self._debounce: Debouncer[int] = Debouncer(debounce_us)
        self._inputs: dict[int, Any] = {}
        self._callbacks: dict[int, Callable[[Any, Any], None]] = {}
        self._lights: dict[int, Any] = {}
        self._release_us = dict(release_us or {})
        try:
            for pin in pins:
                self._open_input(pin, pull_up)
            for pin in lights:
                self._lights[pin] = LED(pin, pin_factory=pin_factory)
        except BaseException:
            self.close()
            raise

    def _open_input(self, pin: int, pull_up: bool) -> None:
        device = InputDevice(pin, pull_up=pull_up, pin_factory=self.factory)
        self._inputs[pin] = device
        raw = device.pin
        raw.bounce = None
        raw.edges = "both"
        state = self._pressed(raw.state)
        self._debounce.add(pin, state, release_us=self._release_us.get(pin, 0))
        callback = functools.partial(self._changed, pin)
        self._callbacks[pin] = callback  # gpiozero keeps only a weak reference
        raw.when_changed = callback

    def _pressed(self, level: Any) -> int:
        return 1 if bool(level) == self._pressed_level else 0

    def _changed(self, pin: int, ticks: Any, level: Any) -> None:
        t_us = self._ticks_us(ticks)
        with self._lock:
            out = self._debounce.edge(pin, self._pressed(level), t_us)
        for state, t in out:
            self.when_edge(pin, state, t)

    @property
    def pins(self) -> tuple[int, ...]:
        return tuple(self._inputs)

    @property
    def dropped(self) -> int:
        """Edges dropped as bounce."""
        return self._debounce.dropped

    @property
    def flickers(self) -> int:
        """Releases shorter than their pad's hold, dropped with their re-press."""
        return self._debounce.flickers

    def now_us(self) -> int:
        """The factory's clock now, in µs (CLOCK_MONOTONIC with lgpio)."""
        return self._ticks_us(self.factory.ticks())

    def is_pressed(self, pin: int) -> bool:
        with self._lock:
            return self._debounce.state(pin) == 1

    def settle(self, now_us: int | None = None) -> None:
        """Report edges whose debounce window has closed with the contact changed."""
        now = self.now_us() if now_us is None else now_us
        with self._lock:
            out = self._debounce.settle(now)
        for pin, state, t in out:
            self.when_edge(pin, state, t)

    @property
    def is_settling(self) -> bool:
        """Whether a contact changed inside its window or a release waits out its hold:
        `settle` may report an edge as time passes."""
        with self._lock:
            return self._debounce.is_open

    def watermark(self, now_us: int, margin_us: int) -> int:
        """No edge before this time (µs) will be reported any more.

        `margin_us` covers the delay from the kernel's timestamp to our callback.
        """
        with self._lock:
            pending = self._debounce.earliest_open()
        low = now_us - margin_us
        return low if pending is None else min(low, pending)

    def set_light(self, pin: int, on: bool) -> None:
        self._lights[pin].value = bool(on)

    def close(self) -> None:
        for device in self._inputs.values():
            device.pin.when_changed = None
            device.close()
        for led in self._lights.values():
            led.close()
        self._inputs.clear()
        self._lights.clear()
        self._callbacks.clear()


class SyncPulser:
    """Drives the sync wire (hardware/sync-wire.md) on `pin` (BCM) of `pin_factory`;
    `clock` is host µs.

    Idle the line is high (a released pad on every board). `fall()` pulls it low
    (each board sees a press on its sync channel) and returns the pulse, stamped
    with the host clock just before and just after the write; `rise()` lets it go
    high again. The caller times them (`syncwire.PulseTimer`).
    """

    def __init__(
        self, pin_factory: Any, clock: Callable[[], int], *, pin: int = 7, keep: int = 64
    ) -> None:
        from gpiozero import DigitalOutputDevice

        # active_high=False: on() drives the line low; idle (off) is high
        self._out = DigitalOutputDevice(
            pin, active_high=False, initial_value=False, pin_factory=pin_factory
        )
        self.clock = clock
        self.pin = pin
        self.pulses: deque[Pulse] = deque(maxlen=keep)
        self._n = 0

    def fall(self) -> Pulse:
        t0 = self.clock()
        self._out.on()
        t1 = self.clock()
        self._n += 1
        pulse = Pulse(self._n, t0, t1)
        self.pulses.append(pulse)
        return pulse

    def rise(self) -> None:
        self._out.off()

    def close(self) -> None:
        self._out.close()
