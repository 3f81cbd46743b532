"""A pad board emulator's core, speaking protocol v1. No I/O: bytes in, bytes out.

`FakeBoard` is what a Pico pad board says and does (a host line it will not act
on gets the firmware's own ERR code and text: boardside.py); `BoardClock` is its clock,
with a settable offset and drift against an injected host clock, so tests can
drive time. Tests use it in-process (wired straight to a `BoardSession`, or on
a pty / TCP port through `port.FakeBoardPort`); `buzzerbox fake-board`
and the box's simulated mode run it the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from buzzerbox.clock import monotonic_us
from buzzerbox.errors import InputError
from buzzerbox.pads.board import boardside
from buzzerbox.pads.board import protocol as p
from buzzerbox.pads.errors import CommandRefusedError


class BoardClock:
    """Board ticks since boot: `offset_us` at boot, running `drift_ppm` fast against
    the host clock `host_us` (µs). `to_host` inverts it, for checking a mapping."""

    def __init__(
        self,
        host_us: Callable[[], int] = monotonic_us,
        *,
        offset_us: int = 0,
        drift_ppm: float = 0.0,
        tick_hz: int = 1_000_000,
    ) -> None:
        if offset_us < 0:
            raise InputError(
                f"offset {offset_us} µs is not allowed: a board clock starts at 0 or later"
            )
        self.host_us = host_us
        self.tick_hz = tick_hz
        self._offset = offset_us
        self._rate = 1.0 + drift_ppm * 1e-6
        self._host0 = host_us()
        self._board0 = float(offset_us)

    @property
    def drift_ppm(self) -> float:
        return (self._rate - 1.0) * 1e6

    @drift_ppm.setter
    def drift_ppm(self, ppm: float) -> None:
        now = self.host_us()
        self._board0, self._host0 = self.board_us(now), now
        self._rate = 1.0 + ppm * 1e-6

    @property
    def offset_us(self) -> int:
        return self._offset

    @offset_us.setter
    def offset_us(self, offset: int) -> None:
        """Make the clock jump by the change of offset (as a board that set its clock)."""
        self._board0 += offset - self._offset
        self._offset = offset

    def boot(self) -> None:
        """Start again from `offset_us`, as a board does when it restarts."""
        self._host0, self._board0 = self.host_us(), float(self._offset)

    def board_us(self, host_us: int | None = None) -> float:
        h = self.host_us() if host_us is None else host_us
        return self._board0 + (h - self._host0) * self._rate

    def ticks(self, host_us: int | None = None) -> int:
        return max(0, round(self.board_us(host_us) * self.tick_hz / 1_000_000))

    def to_host(self, ticks: int) -> float:
        """The host time (µs) at which this clock read `ticks`."""
        return self._host0 + (ticks * 1_000_000 / self.tick_hz - self._board0) / self._rate


@dataclass(frozen=True, slots=True)
class SentEdge:
    """An edge the fake board sent: channel, state, board ticks, and the true host time."""

    ch: int
    state: int
    t: int
    host_us: int


class FakeBoard:
    """Protocol v1, board side. Every method returns the bytes the board sends."""

    def __init__(
        self,
        board_id: str = "fake-0",
        *,
        clock: BoardClock | None = None,
        channels: int = 8,
        leds: int | None = None,
        fw_version: str = "0.1.0",
        proto: int = p.PROTO,
        debounce_us: int = 0,
    ) -> None:
        self.board_id = board_id
        self.clock = clock if clock is not None else BoardClock()
        self.channels = channels
        self.led_count = channels if leds is None else leds
        self.fw_version = fw_version
        self.proto = proto
        self.debounce_us = debounce_us
        self.answers_sync = True
        self.ticks_after_sync = True
        """Follow each SYNC answer with a TICK (the protocol lets a board TICK at any
        time; a host that waits for this board's watermark asks with a SYNC:
        pads/board/session.py), as this repository's firmware does (padboard/core.py)."""
        self.stamp_us = 0
        """How long after a host line is complete the board stamps a SYNC (v1.1: ≤ 50 µs)."""
        self.reader = boardside.LineReader()
        self.leds: dict[int, bool] = {}
        self.sent: list[SentEdge] = []
        self.suppressed = 0
        self.seq = 0
        self._last_t = 0
        self._last_edge: dict[int, int] = {}

    def _send(self, payload: str) -> bytes:
        line = p.encode(payload)
        self.seq = (self.seq + 1) % p.U32
        return line

    def _now(self) -> int:
        """Board time now, never before a time already sent (EDGE/TICK order)."""
        self._last_t = max(self._last_t, self.clock.ticks())
        return self._last_t

    # What the board says ---------------------------------------------------------

    def boot(self) -> bytes:
        """Start (again): clock from its offset, seq 0, HELLO."""
        self.clock.boot()
        self.seq = 0
        self._last_t = 0
        self._last_edge.clear()
        self.leds.clear()
        self.reader = boardside.LineReader()
        return self.hello()

    def hello(self) -> bytes:
        return self._send(
            f"HELLO {self.seq} {self.proto} {self.board_id} {self.fw_version} "
            f"{self.clock.tick_hz} {self.channels}"
        )

    def tick(self) -> bytes:
        return self._send(f"TICK {self.seq} {self._now()}")

    def edge(self, ch: int, state: int, host_us: int | None = None) -> bytes:
        """Channel `ch` changed now, or at host time `host_us` a moment ago (a pulse on
        the sync wire, stamped at its instant as the PIO does, even if a TICK another
        thread sent meanwhile said a later time); suppressed inside the debounce window
        of its last edge."""
        if not 0 <= ch < self.channels:
            raise InputError(f"channel {ch} does not exist: this board has 0-{self.channels - 1}")
        t = self._now() if host_us is None else self.clock.ticks(host_us)
        self._last_t = max(self._last_t, t)
        last = self._last_edge.get(ch)
        window = self.debounce_us * self.clock.tick_hz // 1_000_000
        if last is not None and t - last < window:
            self.suppressed += 1
            return b""
        self._last_edge[ch] = t
        self.sent.append(SentEdge(ch, state, t, round(self.clock.to_host(t))))
        return self._send(f"EDGE {self.seq} {ch} {state} {t}")

    def press(self, ch: int) -> bytes:
        return self.edge(ch, 1)

    def release(self, ch: int) -> bytes:
        return self.edge(ch, 0)

    def lost(self, count: int) -> bytes:
        return self._send(f"LOST {self.seq} {count}")

    def err(self, code: int, text: str = "") -> bytes:
        return self._send(f"ERR {self.seq} {code} {text}".rstrip(" "))

    def skip(self, frames: int) -> bytes:
        """Lose `frames` frames on the line: their seq numbers are used up unsent."""
        self.seq = (self.seq + frames) % p.U32
        return b""

    # What the host says ----------------------------------------------------------

    def received(self, data: bytes) -> bytes:
        """Host bytes in; the answers out (a SYNC answer carries the time it is read).
        A line the board will not act on is answered with ERR, as the firmware does
        (the firmware's own parser and codes: boardside.py)."""
        out = bytearray()
        for line in self.reader.feed(data):
            if line == b"":
                continue
            try:
                if line is None:
                    raise boardside.too_long()
                out += self._command(boardside.parse_command(line))
            except CommandRefusedError as e:
                out += self.err(e.err, e.text)
        return bytes(out)

    def _command(self, command: boardside.Command) -> bytes:
        name, *fields = command
        if name == "HELLO?":
            return self.hello()
        if name == "SYNC":
            if not self.answers_sync:
                return b""
            t = self.clock.ticks(self.clock.host_us() + self.stamp_us)
            answer = self._send(f"SYNC {self.seq} {fields[0]} {t}")
            return answer + self.tick() if self.ticks_after_sync else answer
        if name == "LED":
            ch, level = int(fields[0]), int(fields[1])
            boardside.check_led(ch, level, self.led_count)
            self.leds[ch] = bool(level)
            return b""
        us = int(fields[0])  # DEBOUNCE: the parser knows no other command
        boardside.check_debounce(us)
        self.debounce_us = us
        return b""


class SyncLine:
    """The sync wire (hardware/sync-wire.md): one line to the sync channel of every
    attached board. `fall` is a pulse: every tap sees it at the same host instant
    (`at_us`, None: now), so each board stamps it with its own clock; `rise` ends it.
    A tap gets the level as a pad state (1: the line pulled low, a press) and the
    instant."""

    def __init__(self) -> None:
        self._taps: list[Callable[[int, int | None], None]] = []
        self.pulses = 0

    def attach(self, tap: Callable[[int, int | None], None]) -> None:
        self._taps.append(tap)

    def fall(self, at_us: int | None = None) -> None:
        self.pulses += 1
        for tap in self._taps:
            tap(1, at_us)

    def rise(self, at_us: int | None = None) -> None:
        for tap in self._taps:
            tap(0, at_us)
