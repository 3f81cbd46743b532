"""The host's side of one board link. PURE: bytes and times in, bytes and events out.

A `BoardSession` follows protocol v1 for one port (one URL): it says ``HELLO?``
when the port opens and ignores frames until a HELLO; it tracks `seq` (gaps and
LOST become `FramesLost`), asks for SYNC quickly after HELLO and then steadily,
maps the board clock (`ClockMap`), holds edges until the map is trusted (a short
round trip, or enough of them: `is_mapped`; the round trips are syncrounds.py's) and
hands edges and TICK watermarks, on the host timeline, to the `Arbiter`. A HELLO
with seq 0 after other frames is a reboot: new clock map, new seq tracking.
An EDGE on the board's sync channel is no pad's: it goes to the `SyncGroup` (the
sync wire), which maps the board's clock once its pulses come, and counts as the
board's watermark; the status says which map is in use (`clock`, `wire`).

The board debounces its own inputs (`DEBOUNCE`); the session adds the release
hold of each pad (`release_us(board, ch)`, from the pad map's role; see
`debounce.py`): a pile zone's release is final only once the board's clock has
passed it by the hold with no re-press, and until then the board's watermark
stays at the release. Inputs no pad holds (the sync wire's) are never held.

An edge waiting for this board's watermark has it asked for (`ask_watermark`, README.md).

Its owner (`PadSources`) does the I/O: it calls `opened`, `received` and `poll`
with the host time and writes whatever `outgoing()` returns to the port.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Final

from buzzerbox.pads.board import protocol as p
from buzzerbox.pads.board.syncrounds import SyncRounds, is_trusted
from buzzerbox.pads.timeline.arbiter import (
    Arbiter,
    BoardStatusChanged,
    ClockSource,
    Edge,
    FramesLost,
    PadEvent,
    Status,
)
from buzzerbox.pads.timeline.clockmap import ClockMap
from buzzerbox.pads.timeline.debounce import Debouncer
from buzzerbox.pads.timeline.syncgroup import SyncGroup

HELLO_RETRY_US: Final = 1_000_000
CLOCK_JUMP_US: Final = 50_000
"""A SYNC reply this far from the map means the board clock restarted."""
ASK_AGAIN_US: Final = 20_000
"""`ask_watermark` asks again for the same edge after this long (a request lost)."""
LINE_GAP_US: Final = 100_000
"""The longest a board online goes without a line (a TICK at least every 100 ms)."""
HOLD_MAX: Final = 4096
"""Edges held while the clock is not mapped; more are counted as lost."""


def default_pad_name(board: str, ch: int) -> str:
    return f"{board}:{ch}"


def no_sync_channel(board: str) -> int | None:
    return None


def no_release_hold(board: str, ch: int) -> int:
    return 0


class BoardSession:
    """Protocol v1 state for the board behind `url` (pure; see the module doc)."""

    def __init__(
        self,
        url: str,
        arbiter: Arbiter,
        *,
        pad_name: Callable[[str, int], str] = default_pad_name,
        debounce_us: int | None = None,
        sync_channel: Callable[[str], int | None] = no_sync_channel,
        wire: SyncGroup | None = None,
        release_us: Callable[[str, int], int] = no_release_hold,
    ) -> None:
        self.url = url
        self.sync_channel = sync_channel
        self.wire = wire
        self.sync_ch: int | None = None
        """This board's sync-wire channel (from `sync_channel` at HELLO), if any."""
        self.clock_source: ClockSource | None = None
        """How the clock is mapped ("sync", "wire"); None when no board is on a wire."""
        self.wire_state: str | None = None
        self.release_us = release_us
        self._hold: Debouncer[int] = Debouncer(0)
        self._flickers = 0
        self.arbiter = arbiter
        self.pad_name = pad_name
        self.debounce_us = debounce_us
        self.decoder = p.board_decoder()
        self.hello: p.Hello | None = None
        self.clock: ClockMap | None = None
        self.status: Status | None = None
        self.errors: list[p.Err] = []
        self.bad_frames = 0  # well framed, but wrong for this board (EDGE channel)
        self._out = bytearray()
        self._events: list[PadEvent] = []
        self._is_open = False
        self._next_seq: int | None = None
        self._floor = -(1 << 62)  # mapped times never go back (refits jitter by µs)
        self._held: deque[p.EdgeFrame | p.Tick] = deque()
        self._leds: dict[int, bool] = {}
        self.syncs = SyncRounds()
        self._hello_due: int | None = None
        self._left_out = False
        self._awaiting_hello = True
        self._names: dict[int, str] = {}
        self._asked: tuple[int, int] | None = None  # (for the edge at, when)

    @property
    def board(self) -> str:
        """The board id once it said HELLO, else the URL."""
        return self.hello.board_id if self.hello is not None else self.url

    @property
    def flickers(self) -> int:
        """Releases shorter than their pad's hold, dropped with their re-press."""
        return self._flickers + self._hold.flickers

    @property
    def is_usable(self) -> bool:
        return self.hello is not None and self.hello.proto == p.PROTO

    @property
    def is_mapped(self) -> bool:
        """Whether the board's times are mapped onto the host timeline (its edges pass):
        once its clock map is trusted (syncrounds.py `is_trusted`)."""
        return is_trusted(self.clock)

    # Driven by the owner -----------------------------------------------------

    def opened(self, now_us: int) -> None:
        """The port (re)opened: ask who is there; ignore frames until HELLO."""
        self._is_open = True
        self.decoder.reset()
        self._awaiting_hello = True
        self.syncs.forget()
        self.syncs.due = None
        self._out += b"\n" + p.hello_request()  # "\n": ends a SYNC line a host left open
        self._hello_due = now_us + HELLO_RETRY_US

    def gone(self, now_us: int) -> None:
        """The port went away; its board is not waited for until it is back."""
        self._is_open = False
        self._hello_due = self.syncs.due = None
        self.syncs.unanswered_since = None
        self.release_held(now_us)
        if self.is_usable:
            self.arbiter.drop_source(self.board)
        self._set_status("gone")

    def received(self, data: bytes, now_us: int) -> None:
        """Bytes read from the port at host time `now_us`."""
        for frame in self.decoder.feed(data):
            self._frame(frame, now_us)

    def poll(self, now_us: int) -> None:
        """Send what is due (HELLO?, SYNC) and check the SYNC deadline."""
        if not self._is_open:
            return
        if self._hello_due is not None and now_us >= self._hello_due:
            self._out += self.syncs.cut() + p.hello_request()
            self._hello_due = now_us + HELLO_RETRY_US
        if not self.is_usable:
            return
        self._out += self.syncs.poll(now_us, trusted=self.is_mapped)  # a SYNC, or its "\n"
        if self.status == "online":
            self._set_status("online", now_us)
        if self.syncs.is_silent(now_us) and not self._left_out:
            self._left_out = True
            self.arbiter.drop_source(self.board)
            self._set_status("silent")

    def next_due_us(self) -> int | None:
        """When `poll` has something to do next, if nothing comes before: a HELLO? again,
        a SYNC, or the SYNC deadline that leaves a board out (None: nothing). Not a
        SYNC line's "\n": it goes with the next poll (syncrounds.py `poll`). A steady
        SYNC of a board online is due `LINE_GAP_US` later than it is sent: its owner
        polls on every line the board sends (sources.py), a TICK at least every 100 ms,
        so it goes with the board's next line, and nobody is woken for it alone unless
        that line does not come (issue 40: a box at rest)."""
        if not self._is_open:
            return None
        due = self._hello_due
        if self.is_usable:
            sync = self.syncs.due
            if sync is not None and self.syncs.is_steady and self.status == "online":
                sync += LINE_GAP_US
            for at in (sync, None if self._left_out else self.syncs.silent_at()):
                if at is not None and (due is None or at < due):
                    due = at
        return due

    @property
    def asked_for(self) -> int | None:
        """The time of the edge `ask_watermark` last asked for (None: never asked)."""
        return self._asked[0] if self._asked is not None else None

    def ask_watermark(self, edge_t_us: int, now_us: int) -> bool:
        """An edge at `edge_t_us` (any board's) waits for this board's watermark:
        send a SYNC now (once per edge, again after `ASK_AGAIN_US`). False when not
        sent (not open, not mapped, or asked already)."""
        if not (self._is_open and self.is_usable and self.is_mapped):
            return False
        asked = self._asked
        if asked is not None and asked[0] == edge_t_us and now_us - asked[1] < ASK_AGAIN_US:
            return False
        self._asked = (edge_t_us, now_us)
        self._out += self.syncs.ask()
        return True

    def set_led(self, ch: int, on: bool) -> None:
        """Light or darken LED `ch`; sent now if the board is there, else after its HELLO."""
        self._leds[ch] = on
        if self.is_usable and self._is_open:
            self._out += self.syncs.cut() + p.led_set(ch, on)

    def outgoing(self) -> bytes:
        """Bytes to write to the port, now."""
        data = bytes(self._out)
        self._out.clear()
        return data

    def events(self) -> list[PadEvent]:
        """Status changes and losses since the last call (edges go to the arbiter)."""
        out, self._events = self._events, []
        return out

    # Frames --------------------------------------------------------------------

    def _frame(self, frame: p.BoardFrame, now_us: int) -> None:
        if isinstance(frame, p.Hello):
            self._on_hello(frame, now_us)
            return
        if self._awaiting_hello or not self.is_usable:
            return
        self._check_seq(frame.seq)
        if isinstance(frame, p.EdgeFrame):
            assert self.hello is not None
            if frame.ch >= self.hello.channels:
                self.bad_frames += 1
                self._ask_hello(now_us)  # the HELLO it keeps may not be this board's
                return
            self._timed(frame, now_us)
        elif isinstance(frame, p.Tick):
            self._timed(frame, now_us)
        elif isinstance(frame, p.SyncReply):
            self._on_sync(frame, now_us)
        elif isinstance(frame, p.Lost):
            if frame.count:
                self._events.append(FramesLost(self.board, frame.count))
        else:
            self.errors.append(frame)
            del self.errors[:-16]

    def _on_hello(self, hello: p.Hello, now_us: int) -> None:
        known = self.hello
        self._awaiting_hello = False
        self._hello_due = None
        expected = self._next_seq
        rebooted = (
            known is None
            or known.board_id != hello.board_id
            or known.tick_hz != hello.tick_hz
            or hello.seq == 0
            or expected is None
            or (hello.seq - expected) % p.U32 >= p.U32 // 2  # seq went back: it restarted
        )
        if known is not None and known.board_id != hello.board_id and known.proto == p.PROTO:
            self.arbiter.drop_source(known.board_id)
        if rebooted:
            self.release_held(now_us)  # under the old id, on the old clock
        self.hello = hello
        if hello.proto != p.PROTO:
            self._set_status("unsupported")
            self._hello_due = now_us + HELLO_RETRY_US  # ask again: it may have been a glitch
            return
        self._names.clear()
        self.sync_ch = self.sync_channel(hello.board_id)
        if rebooted:
            self._restart_clock(hello.tick_hz, now_us)
            self._next_seq = (hello.seq + 1) % p.U32
        else:
            self._check_seq(hello.seq)
        # a board rebooting over and over without answering SYNC stays left out
        if not self.syncs.is_silent(now_us):
            self._left_out = False
            self.arbiter.add_source(hello.board_id, now_us)
        self._out += self.syncs.cut()  # a SYNC line the board answers before this HELLO
        self.syncs.forget()
        if self.debounce_us is not None:
            self._out += p.debounce_set(self.debounce_us)
        for ch, on in self._leds.items():
            self._out += p.led_set(ch, on)
        self._send_sync(now_us)
        if self.is_mapped:
            self._set_status("online", now_us)

    def _ask_hello(self, now_us: int) -> None:
        """Say HELLO? (again each `HELLO_RETRY_US` until a HELLO comes), frames still
        taken meanwhile: the board restarted or its HELLO was a lie (line noise)."""
        if self._hello_due is None:
            self._out += self.syncs.cut() + p.hello_request()
            self._hello_due = now_us + HELLO_RETRY_US

    def _restart_clock(self, tick_hz: int, now_us: int) -> ClockMap:
        """The board clock started again (reboot): map it anew; held edges are lost."""
        self.release_held(self._floor)
        self.clock = clock = ClockMap(tick_hz)
        if self.wire is not None and self.hello is not None:
            if self.sync_ch is None:
                self.wire.leave(self.hello.board_id)
            else:
                self.wire.join(self.hello.board_id, tick_hz, now_us)
        self.syncs.answered = 0
        self._floor = -(1 << 62)  # a new clock: its times owe nothing to the old one's
        lost = sum(1 for f in self._held if isinstance(f, p.EdgeFrame))
        self._held.clear()
        if lost:
            self._events.append(FramesLost(self.board, lost))
        return clock

    def _check_seq(self, seq: int) -> None:
        expected = self._next_seq
        self._next_seq = (seq + 1) % p.U32
        if expected is not None and seq != expected:
            self._events.append(FramesLost(self.board, (seq - expected) % p.U32))

    def _timed(self, frame: p.EdgeFrame | p.Tick, now_us: int) -> None:
        clock = self.clock
        if clock is None or not self.is_mapped:
            if len(self._held) >= HOLD_MAX:
                dropped = self._held.popleft()
                if isinstance(dropped, p.EdgeFrame):
                    self._events.append(FramesLost(self.board, 1))
            self._held.append(frame)
            self.arbiter.heard(self.board, now_us)
            return
        rough = clock.to_host(frame.t)
        if rough > now_us + CLOCK_JUMP_US:  # a time the board cannot have seen yet: corrupt
            self.bad_frames += 1
            return
        board, wire, hold = self.board, self.wire, self._hold
        edge = frame if isinstance(frame, p.EdgeFrame) else None
        is_sync = edge is not None and edge.ch == self.sync_ch
        if edge is not None and is_sync and wire is not None and edge.state:
            wire.edge(board, edge.t, rough, now_us)
        wired = wire.clock(board, now_us) if wire is not None else None
        t_us = rough if wired is None else wired.to_host(frame.t)
        if t_us < self._floor:
            t_us = self._floor
        self._floor = t_us
        if hold.is_open:
            self._pass(hold.settle(t_us), now_us)
        if edge is not None and not is_sync:  # a sync edge is no pad's
            ch, state = edge.ch, edge.state
            if ch not in hold or hold.contact(ch) == state:  # new, or an edge was lost
                hold.add(ch, 1 - state, release_us=self.release_us(board, ch))
            edges = hold.edge(ch, state, t_us)
            if edges:
                self._pass([(ch, s, t) for s, t in edges], now_us)
        opened = hold.earliest_open() if hold.is_open else None  # a sync edge is a watermark
        self.arbiter.report(board, t_us if opened is None else min(t_us, opened), now_us)

    def _pass(self, edges: list[tuple[int, int, int]], now_us: int) -> None:
        """Hand edges (ch, state, host time) that passed the release hold to the arbiter."""
        board = self.board
        for ch, state, t_us in edges:
            name = self._names.get(ch)
            if name is None:
                name = self._names[ch] = self.pad_name(board, ch)
            self.arbiter.edge(Edge(board, ch, name, state, t_us), now_us, reports=False)

    def release_held(self, now_us: int) -> None:
        """The board's clock ends here (gone, rebooted, the box stops): releases still
        held count as they are, at their own times."""
        self._pass(self._hold.settle(1 << 62), now_us)
        self._flickers += self._hold.flickers
        self._hold = Debouncer(0)

    # SYNC ----------------------------------------------------------------------

    def _send_sync(self, now_us: int) -> None:
        self._out += self.syncs.request(now_us, trusted=self.is_mapped)

    def _on_sync(self, reply: p.SyncReply, now_us: int) -> None:
        sent = self.syncs.sent_at(reply.token)
        if sent is None or self.clock is None or self.hello is None:
            return
        clock = self.clock
        if clock.is_mapped and abs(clock.to_host(reply.t) - (sent + now_us) // 2) > max(
            CLOCK_JUMP_US, now_us - sent
        ):
            # The board clock is not where the map says (it restarted unseen): map anew,
            # and ask who is there: the HELLO kept (its tick_hz, channels) may be stale.
            clock = self._restart_clock(self.hello.tick_hz, now_us)
            self._ask_hello(now_us)
        clock.add(sent, reply.t, now_us)
        self.syncs.took(trusted=self.is_mapped, sent_us=sent)
        if not self.is_mapped:
            return  # its edges wait for a better round trip; a board left out stays out
        if self._left_out:
            self._left_out = False
            self.arbiter.add_source(self.board, now_us)
        if self._held:
            held, self._held = self._held, deque()
            for frame in held:
                self._timed(frame, now_us)
        self._set_status("online", now_us)

    def _set_status(self, status: Status, now_us: int | None = None) -> None:
        """Say a new status; online, also how the clock is mapped when that changes."""
        if status != "online" or now_us is None:
            if status != self.status:
                self.status = status
                self._events.append(BoardStatusChanged(self.board, status, url=self.url))
            return
        wire = self.wire.state(self.board, now_us) if self.wire is not None else None
        source: ClockSource | None = None
        if self.wire is not None:
            source = "wire" if wire == "live" else "sync"
        if (status, source, wire) != (self.status, self.clock_source, self.wire_state):
            self.status, self.clock_source, self.wire_state = status, source, wire
            self._events.append(BoardStatusChanged(self.board, status, source, wire, url=self.url))
