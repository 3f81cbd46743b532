"""The pad board's logic: PIO words and host bytes in, protocol frames out.

PURE: no machine, rp2, sys or time. The hardware glue (app.py) feeds it and
gives it two callables, `probe()` (toggle the clock probe output) and
`set_led(output, level)`; the tests feed it the same way.

Time. Every word pair from the edge timer is (pins, counter) and carries the
board time at which the PIO saw the pins change. The board has no other clock
it trusts: to learn "now" (for a TICK, or for a SYNC answer) it toggles the
probe output, which lies inside the PIO's input window, and waits for the pair
that change produces. Because the PIO pushes pairs in order, a probe's pair
also proves that every input change before it has been read, which is exactly
the TICK promise. Probes are answered in the order they were made.

Buffers. Frames wait in one queue of at most `queue_max`. Sequence numbers are
given when a frame leaves the queue, so a dropped frame leaves no gap. A TICK
replaces a TICK still waiting at the tail. EDGEs may fill the queue only up to
`queue_max - RESERVE`, so HELLO, SYNC and ERR answers still fit; an EDGE that
does not fit is counted and reported by a LOST frame before the next frame.
"""

from padboard import protocol
from padboard.clock import CounterClock
from padboard.config import DEBOUNCE_MAX_US, FW_VERSION, SYNC_DEBOUNCE_US
from padboard.debounce import Debouncer
from padboard.native import micropython
from padboard.outbox import RESERVE, Outbox
from padboard.state import (
    CH_OF,
    EDGES,
    PAD_MASK,
    PINS,
    PROBE_MASK,
    PROBE_TICKS,
    READY,
    ROOM,
    new_state,
    push_tick,
    queued,
    TICKS_DONE,
)

STALE_MS = 50  # a TICK probe unanswered this long is given up
# While EDGEs flow (BUSY_EDGES or more since the last tick(), 500/s at TICK_MS 10)
# they are the host's watermarks: a TICK's probe costs an edge's time then, and
# is made only every BUSY_TICK_MS (the spec wants one at least every 100 ms).
BUSY_EDGES = 5
BUSY_TICK_MS = 50
MASK30 = 0x3FFFFFFF

_TICK = 0
_SYNC = 1
_NONE = 2


class PadBoard(Outbox):
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
        self._out = []  # [(type, fields)], oldest first; EDGE: (type, ch, level, t)
        self._seq = 0
        self.lost = 0  # edges dropped since the last LOST frame
        self._probes = []  # [kind, tokens, ms, age], oldest first
        self._ms = 0
        self._tick_ms = 0  # when a TICK was last asked for
        self._edges_seen = 0  # state[EDGES] at the last tick()
        self._queue("HELLO", self._hello_fields())

    # -- from the PIO ---------------------------------------------------------

    @property
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

    @property
    def pad_mask(self):
        """The bits of the pads in a pins word."""
        return self._pad_mask

    @property
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

    def _probes_now(self):
        """The probes in flight, oldest first: the TICK probes the fast path
        answered (state.py's TICKS_DONE) leave the list first."""
        probes = self._probes
        state = self.state
        for _ in range(state[TICKS_DONE]):
            probes.pop(0)
        state[TICKS_DONE] = 0
        return probes

    def _lead_ticks(self):
        """Tell the fast path how many TICK probes lead the list (it may answer those)."""
        n = 0
        for probe in self._probes:
            if probe[0] != _TICK:
                break
            n += 1
        self.state[PROBE_TICKS] = n

    def _probe_again(self):
        """Make every probe in flight again, in order (its pair went missing)."""
        again = self._probes_now()
        self._probes = []
        for kind, tokens, _, age in again:
            self._probe()
            self._probes.append([kind, tokens, self._ms, age])
        self._lead_ticks()

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

    def _probe_seen(self, t):
        probes = self._probes_now()
        if not probes:
            return  # a probe given up on, arriving after all
        kind, tokens, _, age = probes.pop(0)
        self._lead_ticks()
        if kind == _TICK:
            self._debouncer.settle(t)
            # after the ring's records, when nothing waits in the list
            if self._out or not push_tick(self.state, t):
                self._queue("TICK", t)
        elif kind == _SYNC:
            # stamped when its bytes arrived: `age` ticks before the probe
            for token in tokens:
                self._queue("SYNC", "%d %d" % (token, t - age))
            # then a TICK at the probe's time, as for a TICK probe: a host that waits
            # for this board's watermark asks for it with a SYNC (board-protocol.md)
            self._debouncer.settle(t)
            self._queue("TICK", t)

    # -- clock probes ---------------------------------------------------------

    def _ask_time(self, kind):
        if len(self._probes_now()) >= self._max_probes:
            return False
        age = self._probe() or 0  # us since the host bytes being read arrived
        if kind == _TICK:
            age = 0  # a TICK is the probe's own time
        elif self.tick_hz != 1000000:
            age = self._ticks(age)
        self._probes.append([kind, [], self._ms, age])
        self._lead_ticks()
        return True

    @micropython.native
    def tick(self, ms):
        """Called every TICK_MS with a millisecond count: asks for the next TICK."""
        self._ms = ms
        edges = self.state[EDGES]
        busy = (edges - self._edges_seen) & 0xFFFF >= BUSY_EDGES
        self._edges_seen = edges
        if busy and ms - self._tick_ms < BUSY_TICK_MS:
            return  # the EDGEs say it: no probe in their way
        for probe in self._probes_now():
            if probe[0] == _TICK:
                if ms - probe[2] < STALE_MS:
                    return  # the last TICK is still on its way
                self._probe_again()  # a probe's pair went missing: ask again
                return
        self._tick_ms = ms
        self._ask_time(_TICK)

    # -- from the host --------------------------------------------------------

    def rx(self, byte):
        """One byte (an int) from the host."""
        line = self._reader.feed(byte)
        if line is None or line == b"":
            return
        if line is protocol.TOO_LONG:
            self._error(protocol.ERR_TOO_LONG, "line too long: at most %d bytes" % protocol.MAX_LINE)
            return
        probe = None
        if line.startswith(b"SYNC "):
            # The time of a SYNC is when its line completed: ask for it before parsing.
            if not self._ask_time(_NONE):
                self._error(protocol.ERR_BUSY, "too many SYNC requests in flight")
                return
            probe = self._probes[-1]
        try:
            command = protocol.parse_command(line)
        except protocol.CommandError as e:
            self._error(e.code, e.text)
            return
        name = command[0]
        if name == "SYNC":
            probe[0] = _SYNC
            probe[1].append(command[1])
        elif name == "HELLO?":
            self._queue("HELLO", self._hello_fields())
        elif name == "LED":
            self._led(command[1], command[2])
        elif name == "DEBOUNCE":
            self._debounce(command[1])

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

    def _ticks(self, us):
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
