"""The pad board's logic: PIO words and host bytes in, protocol frames out.

PURE: no machine, rp2, sys or time. The hardware glue (app.py, hostlink.py)
feeds it and gives it callables: `probe()` (toggle the clock probe output; the
timer then), `set_led(output, level)`, and on a board with the microsecond timer
`ticks_diff` (probes.py); the tests feed it the same way.

Time. Every word pair from the edge timer is (pins, counter) and carries the
board time at which the PIO saw the pins change. The board has no other clock
it trusts: how it learns "now" (for a TICK, or for a SYNC answer) is probes.py's.

Buffers. Frames wait in two queues, answers first (outbox.py), of at most
`queue_max` together; a SYNC answered at once may be written straight into the
glue's buffer (`out_buf`). Sequence numbers are given when a frame leaves, so a
dropped frame leaves no gap. A TICK
replaces a TICK still waiting at the tail. EDGEs may fill the queue only up to
`queue_max - RESERVE`, so HELLO, SYNC and ERR answers still fit; an EDGE that
does not fit is counted and reported by a LOST frame before the next frame.
"""

import array

from padboard import protocol
from padboard.clock import CounterClock
from padboard.config import DEBOUNCE_MAX_US, FW_VERSION, SYNC_DEBOUNCE_US
from padboard.debounce import Debouncer
from padboard.native import micropython
from padboard.outbox import MASK32, RESERVE, Outbox
from padboard.probes import SYNC, Probes
from padboard.state import (
    CH_OF,
    EDGES,
    PAD_MASK,
    PINS,
    PROBE_MASK,
    READY,
    ROOM,
    new_state,
    queued,
)

MASK30 = 0x3FFFFFFF
_E9 = 1000000000
_HI = 8192 * _E9  # viper writes times below this (95 days); later ones are the plain path's


class PadBoard(Outbox, Probes):
    """One pad board. `pad_bits[ch]` is the bit of input channel `ch` in a pins word."""

    def __init__(
        self,
        board_id,
        pad_bits,
        probe_bit,
        probe,
        set_led=None,
        led_count=0,
        tick_hz=1000000,
        debounce_us=5000,
        queue_max=64,
        max_probes=8,
        fw_version=FW_VERSION,
        sync_ch=None,
        sync_window_us=SYNC_DEBOUNCE_US,
        frame=protocol.frame,
        frame_into=None,
        records_into=None,
        ticks_diff=None,
        sync_answer=None,
    ):
        self.board_id = board_id
        self.tick_hz = tick_hz
        self._pad_bits = tuple(pad_bits)
        self._pad_mask = 0
        self._ch_of = {}  # a pad's bit (1 << gpio) -> its channel
        # the hot state, shared with the fast path (state.py, fast.py)
        self.state = state = new_state()
        for ch, bit in enumerate(self._pad_bits):
            self._pad_mask |= 1 << bit
            self._ch_of[1 << bit] = ch
            state[CH_OF + bit] = ch
        self._probe_mask = 1 << probe_bit
        state[PAD_MASK] = self._pad_mask
        state[PROBE_MASK] = self._probe_mask
        self._probe = probe
        # the timer SYNCs are stamped on (probes.py): with its ticks_diff, the glue
        # sets arrived_us (ticks_us) before it gives rx() the bytes of a packet
        self._ticks_diff = ticks_diff
        self.arrived_us = None
        # the glue's output buffer: a SYNC answered at once is written there at
        # out_at (room for a frame is kept), numbered then; None: it is queued
        self.out_buf = None
        self.out_at = 0
        self._armed = None  # a SYNC line read but for its "\n" (arm)
        self._words = array.array("i", [0] * 6)  # what _sync_answer writes from
        self._ahead = None  # a SYNC line answered before it was read (sync_ahead)
        self._reference = None  # (timer, board time, ms) of the last SYNC probe seen
        # (line, buf, words): the answer to a SYNC line written into buf, faster
        # (fastsync.py); -1: the line is left to protocol.parse_command
        self._sync_answer = sync_answer
        self._set_led = set_led
        self.led_count = led_count
        self._queue_max = queue_max
        self._edge_room = queue_max - RESERVE  # EDGEs leave room for answers
        self._max_probes = max_probes
        self._fw_version = fw_version
        self.debounce_us = debounce_us
        # The sync channel keeps its own short window: DEBOUNCE never swallows a pulse.
        fixed = {} if sync_ch is None else {sync_ch: self._ticks(sync_window_us)}
        self._debouncer = Debouncer(
            len(self._pad_bits), self._ticks(debounce_us), self._edge, fixed, state
        )
        self._frame = frame
        # (buf, at, seq, kind, t): writes an EDGE (kind: ch << 1 | level) or a
        # TICK (kind: protocol.TICK_KIND) frame into buf, faster; -1 leaves it to `frame`
        self._into = frame_into
        # (buf, state, at << 16 | stop, seq): writes the EDGE frames of the fast
        # path's records (state.py) into buf from `at`, as many as fit before `stop`
        self._records = records_into
        self._scratch = bytearray(protocol.MAX_LINE)  # next_frame's
        self._gap = False  # the PIO's words since the last pair fed were lost
        self._clock = CounterClock(state)
        self._reader = protocol.LineReader()
        self._started = False  # a first pair was fed (its pins are state[PINS])
        self._out = []  # [(type, fields)] EDGE, TICK, oldest first; EDGE: (type, ch, level, t)
        self._first = []  # answers, sent before _out (outbox.py); SYNC: (type, token, t)
        self._seq = 0
        self.lost = 0  # edges dropped since the last LOST frame
        self._probes = []  # [kind, tokens, ms, arrived, timer], oldest first (probes.py)
        self._ms = 0
        self._tick_ms = -1000  # when a TICK was last asked for (the first tick() asks)
        self._edges_seen = 0  # state[EDGES] at the last tick()
        self._queue("HELLO", self._hello_fields())

    # -- from the PIO ---------------------------------------------------------

    # No properties here: a class with one pays a lookup in its classes on every
    # attribute stored (~37 us on the emulated Pico, not ~3), and the loop stores
    # some on every pass (tests/bench/README.md, "The steady stream's margin").

    def now(self):
        """The latest board time seen, in ticks."""
        return self._clock.now

    def feed(self, pins, counter):
        """One (pins, counter) pair from the edge timer, in the order pushed."""
        self.feed_ticks(pins, (-counter) & MASK30)

    @micropython.native
    def feed_ticks(self, pins, low):
        """One pair from the edge timer, its counter given as ticks mod 2**30.

        On the Pico most pairs are decided by fast.feed_pairs; this is the way
        for the rest (clock probes, locks, a full queue) and the reference."""
        state = self.state
        t = self._clock.advance(low)
        last = state[PINS]
        state[PINS] = pins
        if self._started and not self._gap:
            changed = pins ^ last
            pads = changed & self._pad_mask
            if pads:
                self._debouncer.change_bits(pads, pins, t, self._ch_of)
            if changed & self._probe_mask:
                self._probe_seen(t)
        elif not self._started:
            self._debouncer.start([self._pressed(pins, bit) for bit in self._pad_bits])
            self._started = True
            state[READY] = 1
        else:
            # Pairs were lost: this one is the new start. Each pad now at another
            # level lost at least one edge; the probes in flight may have been
            # among them, so they are made again, in order: every SYNC is answered.
            self._gap = False
            state[READY] = 1
            levels = [self._pressed(pins, bit) for bit in self._pad_bits]
            self.lost += max(1, self._debouncer.rebase(levels))
            self._probe_again()

    def pad_mask(self):
        """The bits of the pads in a pins word."""
        return self._pad_mask

    def pins(self):
        """The last pins word fed (0 before the first)."""
        return self.state[PINS]

    def skipped(self, pins, edges):
        """The board skipped pairs unread (it was flooded): `edges` pad changes
        were among them, and `pins` is the last of them. They are LOST; the
        probes in flight may have been among them: they are made again."""
        self.lost += edges
        self.state[PINS] = pins
        self._debouncer.rebase([self._pressed(pins, bit) for bit in self._pad_bits])
        self._probe_again()

    def lost_pairs(self, count):
        """The PIO pushed `count` pairs the board could not read (its ring overran).

        The next pair fed counts the edges lost (`LOST` counts debounced edges,
        not words: at least one per pad whose level changed meanwhile).
        """
        self._gap = True
        self.state[READY] = 0

    @staticmethod
    def _pressed(pins, bit):
        return 0 if pins >> bit & 1 else 1  # pulled up: a pressed pad reads 0

    @micropython.native
    def _edge(self, ch, level, t):
        out = self._out
        if len(out) + queued(self.state) >= self._edge_room:
            self.lost += 1
        else:
            out.append(("EDGE", ch, level, t))  # formatted when sent
            self.state[EDGES] = (self.state[EDGES] + 1) & 0xFFFF
            self.state[ROOM] = 0  # the fast path waits until the list is sent

    # -- from the host --------------------------------------------------------

    @micropython.native
    def rx(self, byte):
        """One byte (an int) from the host. 0, or for a SYNC answered at once: the
        end of its answer in out_buf (-1: it leads the queue); send it, then call
        after_sync()."""
        line = self._reader.feed(byte)
        if line is None or line == b"":
            return 0
        if line is protocol.TOO_LONG:
            self._error(protocol.ERR_TOO_LONG, "line too long: at most %d bytes" % protocol.MAX_LINE)
            return 0
        if line.startswith(b"SYNC "):
            return self._sync(line)
        try:
            command = protocol.parse_command(line)
        except protocol.CommandError as e:
            self._error(e.code, e.text)
            return 0
        name = command[0]
        if name == "HELLO?":
            self._queue("HELLO", self._hello_fields())
        elif name == "LED":
            self._led(command[1], command[2])
        elif name == "DEBOUNCE":
            self._debounce(command[1])
        return 0

    @micropython.native
    def _sync(self, line):
        """A SYNC line: answered now, stamped from the timer's reference (probes.py),
        else when its probe's pair comes. Its probe gives the TICK after the answer."""
        self._armed = None
        ahead = self._ahead
        if ahead is not None:
            self._ahead = None
            if line == ahead:
                return 0  # answered when its "\n" landed (sync_ahead), its probe made
        t = self._stamp()
        if t >= 0 and self.out_buf is not None:
            end = self._answer_into(line, self.out_buf, self.out_at, t)
            if end > 0:
                return end  # its probe: after_sync()
        try:
            token = protocol.parse_command(line)[1]
        except protocol.CommandError as e:
            self._error(e.code, e.text)
            return 0
        if t >= 0:
            self._first.append(("SYNC", token, t))
            return -1  # its probe: after_sync()
        if not self._ask_time(SYNC):
            self._error(protocol.ERR_BUSY, "too many SYNC requests in flight")
            return 0
        self._probes[-1][1].append(token)  # answered at its pair
        return 0

    @micropython.native
    def _answer_into(self, line, buf, at, t):
        """The answer to the SYNC line `line` stamped `t`, numbered now, written
        into buf at `at` by viper; its end, or -1 (the line, or the queue, is not
        one for it)."""
        if self._sync_answer is None or self.lost or self._first:
            return -1
        w = self._words
        if t < _E9:
            w[2] = t
            w[3] = 0
        else:
            w[2] = t % _E9
            w[3] = t // _E9 if t < _HI else -1
        w[4] = w[5] = 0
        return self._answer(line, buf, at, w)

    @micropython.native
    def _answer(self, line, buf, at, w):
        w[0] = at
        seq = self._seq
        w[1] = seq if seq < _E9 else -1
        end = self._sync_answer(line, buf, w)
        if end > 0:
            self._seq = seq + 1 if seq < MASK32 else 0
        return end

    def arm(self):
        """After a burst of host bytes: True if the line read so far is a SYNC
        line this board answers at once, but for its "\n" (`sync_ahead`)."""
        line = self._reader.partial
        self._armed = None
        ok = line.startswith(b"SYNC ") and self.tick_hz == 1000000
        if not ok or self._sync_answer is None or self._stamp() < 0:
            return False
        ref = self._reference  # its time at its ticks_us, moved on when the "\n" lands
        w = self._words
        w[0] = w[1] = 0
        w[2] = ref[1] % _E9
        w[3] = ref[1] // _E9 if ref[1] < _HI else -1
        w[4] = w[5] = ref[0]
        if self._sync_answer(line, self._scratch, w) <= 0:  # the line is not one
            return False
        self._armed = line
        return True

    @micropython.native
    def sync_ahead(self, buf, at, arrived):
        """The "\n" of the SYNC line armed landed at ticks_us `arrived` (the glue saw
        it in the USB RAM): its answer into buf at `at` now; its end (0: none). Once
        read, the line is not answered again. Then send it and call after_sync()."""
        line = self._armed
        self._armed = None
        if line is None or self.lost or self._first:
            return 0
        w = self._words
        w[5] = arrived
        end = self._answer(line, buf, at, w)
        if end <= 0:
            return 0
        self._ahead = line
        return end

    def _led(self, output, level):
        if output >= self.led_count:
            if self.led_count:
                allowed = "this board has outputs 0-%d" % (self.led_count - 1)
            else:
                allowed = "this board has no outputs"
            self._error(protocol.ERR_NO_OUTPUT, "output %d does not exist: %s" % (output, allowed))
        elif level > 1:
            self._error(protocol.ERR_RANGE, "LED level %d is out of range: 0 or 1" % level)
        elif self._set_led is not None:
            self._set_led(output, level)

    def _debounce(self, us):
        if us > DEBOUNCE_MAX_US:
            self._error(
                protocol.ERR_RANGE,
                "DEBOUNCE %d us is out of range: 0-%d" % (us, DEBOUNCE_MAX_US),
            )
            return
        self.debounce_us = us
        self._debouncer.window = self._ticks(us)

    @micropython.native
    def _ticks(self, us):
        if self.tick_hz == 1000000:
            return us  # no big int for a long span on a Pico
        return us * self.tick_hz // 1000000

    def _hello_fields(self):
        return "1 %s %s %d %d" % (
            self.board_id,
            self._fw_version,
            self.tick_hz,
            len(self._pad_bits),
        )

    def fault(self, name):
        """The glue caught an exception `name` of its own: say so with an ERR."""
        self._error(protocol.ERR_INTERNAL, "internal error %s" % protocol.safe_field(name))

    def _error(self, code, text):
        self._queue("ERR", "%d %s" % (code, text) if text else "%d" % code)
