"""`PadSources`: every way a press comes in, merged into one true order.

The one object the box (and `buzzerbox monitor`) needs: it opens the board
links (one `SerialLink` thread and one pure `BoardSession` per URL) and the
GPIO pads (`GpioPads`, if a pin factory is given), feeds everything to one
`Arbiter`, and `poll()` hands back `PadEvent`s: final `Edge`s in true time
order, `BoardStatusChanged` and `FramesLost`.

A board's bytes are handled where they are read: its link's thread stamps them,
then, under the sources' lock, the session frames and maps them, the arbiter takes
them and whatever became final waits for `poll` (the board session is sans-IO: it
needs no thread of its own). So a TICK of an idle board wakes one thread, its
link's, and no other. The thread that calls `poll` (the box's pad feed) is woken
when something became final, or when something is due: a SYNC or HELLO? to send,
a source to be marked silent, a held edge to ask for again (`HELD_STEP_US`), the
sync wire's pulse; `events()` waits for exactly that (`next_due_us`), and at
least every `IDLE_STEP_US`. GPIO edges come from gpiozero's thread and are queued
for `poll`, as before.

With boards on the sync wire (a `sync` channel in the pad map), one `SyncGroup`
maps them from their pulses: pulses this host makes with `pulser` (a
`SyncPulser` on the map's ``[sync] gpio``), once every `PERIOD_US`, stamped; or,
without a pulser, pulses from elsewhere, lined up by common pulses.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import serial

from buzzerbox.clock import monotonic_us
from buzzerbox.pads.board.session import BoardSession
from buzzerbox.pads.errors import PadNotFoundError
from buzzerbox.pads.link.serialport import LinkEvent, OpenPort, SerialLink
from buzzerbox.pads.pad import Pad
from buzzerbox.pads.padmap import PadMap
from buzzerbox.pads.timeline.arbiter import GPIO, Arbiter, BoardStatusChanged, Edge, PadEvent
from buzzerbox.pads.timeline.syncgroup import PERIOD_US, PULSE_US, Pulser, PulseTimer, SyncGroup

#: while an edge is held (or a GPIO contact settles), the pad feed steps this often: an
#: edge is asked for again (session.py, ASK_AGAIN_US), GPIO's watermark moves with time
HELD_STEP_US = 10_000
#: and at least this often in any case (a stop set without `wake` is seen then)
IDLE_STEP_US = 2_000_000
#: with nothing held, a source's silence is marked this much later than it begins, if
#: no other source's line marks it first (each line steps the arbiter, `_arrived`):
#: the feed's wake-up for a silence deadline that a TICK will move comes once a
#: second, not twice (issue 40); nothing waits on it, the pages hear of it later
SILENCE_SLACK_US = 500_000

if TYPE_CHECKING:
    from buzzerbox.pads.gpio import GpioPads


@dataclass(frozen=True, slots=True)
class _GpioEdge:
    pin: int
    state: int
    t_us: int


class PadSources:
    """Boards at `boards` (URLs) and in `pad_map`, plus GPIO pads if `gpio_factory`.

    `clock` is the host timeline in µs (tests pass a controlled one, the same the
    GPIO mock factory ticks on). `silence_us`: a source silent that long is not
    waited for. `gpio_margin_us`: how long a GPIO edge may take from the kernel's
    timestamp to our callback. `asks_watermarks`: a held edge asks the boards it
    waits for to report (`_ask_watermarks`), rather than waiting for their TICKs.
    """

    def __init__(
        self,
        pad_map: PadMap | None = None,
        *,
        boards: Sequence[str] = (),
        gpio_factory: Any = None,
        clock: Callable[[], int] = monotonic_us,
        open_port: OpenPort = serial.serial_for_url,
        silence_us: int = 500_000,
        gpio_margin_us: int = 10_000,
        retry_s: float = 0.25,
        pulser: Pulser | None = None,
        pulse_period_us: int = PERIOD_US,
        asks_watermarks: bool = True,
    ) -> None:
        self.pad_map = pad_map
        self.clock = clock
        self.arbiter = Arbiter(silence_us=silence_us)
        self.gpio_margin_us = gpio_margin_us
        self.status: dict[str, BoardStatusChanged] = {}
        self.pulser = pulser
        self.wire: SyncGroup | None = None
        if pad_map is not None and any(b.sync is not None for b in pad_map.boards):
            self.wire = SyncGroup(is_stamped=pulser is not None, period_us=pulse_period_us)
        self._pulses = PulseTimer(pulse_period_us, min(PULSE_US, pulse_period_us // 2))
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)  # `poll` waits on it
        self._ready: list[PadEvent] = []  # final, handed out by the next `poll`
        self._gpio_edges: deque[_GpioEdge] = deque()  # from gpiozero's thread
        self._waking_at = -1  # when the waiting `poll` wakes by itself (µs; -1: none waits)
        self._leds: dict[tuple[str, int], bool] = {}
        urls = list(dict.fromkeys(boards))
        specs = {b.url: b for b in pad_map.boards if b.url} if pad_map else {}
        if not urls:
            urls = list(specs)
        self.sessions = [
            BoardSession(
                url,
                self.arbiter,
                pad_name=self._pad_name,
                debounce_us=specs[url].debounce_us if url in specs else None,
                sync_channel=self._sync_channel,
                wire=self.wire,
                release_us=self._release_us,
            )
            for url in urls
        ]
        self._links = [
            SerialLink(i, url, self._arrived, clock=clock, open_port=open_port, retry_s=retry_s)
            for i, url in enumerate(urls)
        ]
        self.gpio: GpioPads | None = None
        if gpio_factory is not None:
            from buzzerbox.pads.gpio import GpioPads  # gpiozero: only for a box with GPIO pads

            pads = pad_map.gpio_pads if pad_map else ()
            settings = pad_map.gpio if pad_map else None
            test = pad_map.test_line if pad_map else None  # its Pi input: doctor --fairness
            tested = [test.gpio_in] if test is not None and test.gpio_in is not None else []
            self.gpio = GpioPads(
                [p.ch for p in pads] + tested,
                pin_factory=gpio_factory,
                when_edge=self._gpio_edge,
                pull_up=settings is None or settings.pull == "up",
                debounce_us=settings.debounce_us if settings else 5000,
                lights=[p.light_gpio for p in pads if p.light_gpio is not None],
                release_us={p.ch: self._release_us(GPIO, p.ch) for p in pads},
            )
            self.arbiter.add_source(GPIO, clock())
        self._started = False
        self.asks_watermarks = asks_watermarks

    # Life ------------------------------------------------------------------------

    def start(self) -> None:
        """Open every link (each in its own thread; they retry until stopped)."""
        if not self._started:
            self._started = True
            for link in self._links:
                link.start()

    def close(self) -> None:
        for link in self._links:
            link.stop()
        if self.gpio is not None:
            self.gpio.close()
        if self.pulser is not None:
            self.pulser.rise()
            self.pulser.close()

    @property
    def lock(self) -> threading.RLock:
        """Held while events are handled: hold it to read the sessions from another thread."""
        return self._lock

    def __enter__(self) -> PadSources:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Pads --------------------------------------------------------------------------

    def pad(self, pad_id: str) -> Pad | None:
        """The pad map's entry (role, seat, pile, light) for an `Edge.pad`."""
        return self.pad_map.pad(pad_id) if self.pad_map else None

    def _sync_channel(self, board: str) -> int | None:
        spec = self.pad_map.board(board) if self.pad_map else None
        return spec.sync if spec is not None else None

    def _pad_name(self, board: str, ch: int) -> str:
        pad = self.pad_map.at(board, ch) if self.pad_map else None
        return pad.id if pad is not None else f"{board}:{ch}"

    def _release_us(self, board: str, ch: int) -> int:
        """The pad's release hold (its role's, in the pad map); 0 without a map."""
        return self.pad_map.release_us(board, ch) if self.pad_map else 0

    def set_light(self, pad_id: str, on: bool) -> None:
        """Light (or darken) a pad's light: a board's LED channel or a GPIO output pin.

        A board LED is sent now if its board is there, else as soon as it says HELLO.
        """
        pad = self.pad(pad_id)
        if pad is None or (pad.light_gpio is None and pad.light_ch is None):
            raise PadNotFoundError(f"pad {pad_id!r} has no light: the pad map gives it none")
        if pad.light_gpio is not None:
            if self.gpio is None:
                raise PadNotFoundError(f"pad {pad_id!r} has a GPIO light, but GPIO is not in use")
            self.gpio.set_light(pad.light_gpio, on)
            return
        assert pad.light_ch is not None
        with self._lock:
            self._leds[(pad.board, pad.light_ch)] = on
            for i, session in enumerate(self.sessions):
                if session.hello is not None and session.hello.board_id == pad.board:
                    session.set_led(pad.light_ch, on)
                    self._send(i)

    # Events ------------------------------------------------------------------------

    def _gpio_edge(self, pin: int, state: int, t_us: int) -> None:
        self._gpio_edges.append(_GpioEdge(pin, state, t_us))
        self.wake()

    def _arrived(self, item: LinkEvent) -> None:
        """On a link's thread: its bytes (or its port's news), handled now; what became
        final waits for `poll`, woken for it, or for something due earlier than it
        would wake for by itself (a held edge to ask for again, a SYNC to send)."""
        with self._cond:
            self._handle(item)
            self._ready += self._step()
            waking_at = self._waking_at
            if waking_at >= 0 and (self._ready or self.next_due_us(self.clock()) < waking_at):
                self._cond.notify_all()

    def wake(self) -> None:
        """Wake a `poll` that waits (a GPIO edge came; the caller is to stop)."""
        with self._cond:
            self._cond.notify_all()

    def poll(self, timeout: float | None = 0.01) -> list[PadEvent]:
        """Wait up to `timeout` s (None: until something is due, `next_due_us`) for
        something to become final, then return what did, in order."""
        with self._cond:
            if not self._ready and not self._gpio_edges:
                now = self.clock()
                wait_us = self.next_due_us(now) - now if timeout is None else int(timeout * 1e6)
                if wait_us > 0:
                    self._waking_at = now + wait_us
                    try:
                        self._cond.wait(wait_us / 1e6)
                    finally:
                        self._waking_at = -1
            out, self._ready = self._ready, []
            out += self._step()
            return out

    def events(self, stop: threading.Event, timeout: float | None = None) -> Iterator[PadEvent]:
        """Every event until `stop` is set (call `wake` after setting it); then what is
        still held (`flush`). Waits as `poll(timeout)` does: by default until
        something is due, and at least every `IDLE_STEP_US`."""
        while not stop.is_set():
            yield from self.poll(timeout)
        yield from self.flush()

    def flush(self) -> list[PadEvent]:
        """Everything still held, in order, without waiting for any source."""
        with self._lock:
            if self.gpio is not None:
                self.gpio.settle(1 << 62)  # a contact changed inside its window: say so now
            for session in self.sessions:
                session.release_held(self.clock())  # a release in its hold: say so now
            out, self._ready = self._ready, []
            out += self._step()
            out += self._emit(self.arbiter.flush())
            return out

    def next_due_us(self, now_us: int) -> int:
        """When a step has something to do next if nothing comes before: a session's
        HELLO? or SYNC or its SYNC deadline, a source's silence, a held edge (asked
        for again) or a GPIO contact settling, the sync wire; `IDLE_STEP_US` at most.
        The caller holds the lock."""
        due = now_us + IDLE_STEP_US
        if self.arbiter.pending or (self.gpio is not None and self.gpio.is_settling):
            due = now_us + HELD_STEP_US
        for session in self.sessions:
            at = session.next_due_us()
            if at is not None and at < due:
                due = at
        at = self.arbiter.next_due_us()
        if at is not None and not self.arbiter.pending:
            at += SILENCE_SLACK_US
        if at is not None and at <= now_us:  # passed, a board's bytes unread: not a spin
            at = now_us + HELD_STEP_US
        if at is not None and at < due:
            due = at
        if self.wire is not None:
            at = self.wire.next_due_us()
            if at is not None and at < due:
                due = at
            if self.pulser is not None:
                due = min(due, self._pulses.next_us())
        return due

    def _drain(self) -> None:
        edges = self._gpio_edges
        while edges:
            self._handle(edges.popleft())

    def _handle(self, item: LinkEvent | _GpioEdge) -> None:
        if isinstance(item, _GpioEdge):
            edge = Edge(GPIO, item.pin, self._pad_name(GPIO, item.pin), item.state, item.t_us)
            self.arbiter.edge(edge, self.clock(), reports=False)
            return
        session = self.sessions[item.link]
        if item.kind == "data":
            session.received(item.data, item.t_us)
        elif item.kind == "opened":
            session.opened(item.t_us)
        else:
            session.gone(item.t_us)
        self._send(item.link)

    def _send(self, i: int) -> None:
        data = self.sessions[i].outgoing()
        if data:
            self._links[i].write(data)

    def _step(self) -> list[PadEvent]:
        self._drain()
        if self.gpio is not None:
            self.gpio.settle()
            self._drain()
            wm = self.gpio.watermark(self.gpio.now_us(), self.gpio_margin_us)
            self.arbiter.report(GPIO, wm, self.clock())
        if self.pulser is not None and self.wire is not None:
            due = self._pulses.due(self.clock())
            if due == "fall":
                pulse = self.pulser.fall()
                self.wire.pulse(pulse.t0_us, pulse.t1_us)
            elif due == "rise":
                self.pulser.rise()
        out: list[PadEvent] = []
        for i, session in enumerate(self.sessions):
            session.poll(self.clock())
            self._send(i)
            out += self._emit(session.events())
        if self.wire is not None:
            self.wire.poll(self.clock())
        now = self.clock()
        silence = self.arbiter.next_due_us()
        unread = self._unread() if silence is not None and silence <= now else ()
        out += self._emit(self.arbiter.advance(now, unread))
        if self.asks_watermarks:
            self._ask_watermarks()
        return out

    def _unread(self) -> list[str]:
        """The boards whose bytes wait unread on this host (their links' `has_unread`):
        not silent, however long since their last line was handled."""
        return [
            session.board
            for session, link in zip(self.sessions, self._links, strict=True)
            if link.has_unread()
        ]

    def _ask_watermarks(self) -> None:
        """The oldest held edge waits for boards that have not reported past it: ask
        them (a SYNC out of turn, session.py `ask_watermark`), not their next TICK."""
        waiting = self.arbiter.blocking()
        if not waiting:
            return
        t_us, now = self.arbiter.oldest(), self.clock()
        for i, session in enumerate(self.sessions):
            if session.board in waiting and session.ask_watermark(t_us, now):
                self._send(i)

    def _emit(self, events: list[PadEvent]) -> list[PadEvent]:
        out: list[PadEvent] = []
        for ev in events:
            if isinstance(ev, BoardStatusChanged):
                if ev.status == "online":  # say how the clock is mapped and what is wrong
                    if ev.clock is None:  # the arbiter's
                        ev = self._with_clock(ev)
                    ev = replace(ev, note=self._channels_problem(ev.board) or "")
                was = self.status.get(ev.board)
                if was == ev:
                    continue
                self.status[ev.board] = ev
                if ev.status == "online" and (was is None or was.status != "online"):
                    self._resend_leds(ev.board)
            out.append(ev)
        return out

    def _with_clock(self, ev: BoardStatusChanged) -> BoardStatusChanged:
        for session in self.sessions:
            if session.board == ev.board and session.clock_source is not None:
                return replace(ev, clock=session.clock_source, wire=session.wire_state)
        return ev

    def _channels_problem(self, board: str) -> str | None:
        """Does the board's HELLO `channels` fit what the pad map needs of it?"""
        for session in self.sessions:
            if self.pad_map and session.hello is not None and session.hello.board_id == board:
                return self.pad_map.channels_problem(board, session.hello.channels)
        return None

    def _resend_leds(self, board: str) -> None:
        for i, session in enumerate(self.sessions):
            if session.hello is not None and session.hello.board_id == board:
                for (b, ch), on in self._leds.items():
                    if b == board:
                        session.set_led(ch, on)
                self._send(i)
