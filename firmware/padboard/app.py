"""The hardware glue: pins, the edge timer, its DMA ring, the USB serial link.

Everything that touches machine, rp2 or the REPL's stdin/stdout is here; the
logic it drives (core.PadBoard) is pure. Under test the same code runs in the
MicroPython unix port with stand-in machine and rp2 modules.

The loop never waits on the host, and it is built for the board-protocol v1.1
timing promises on a real Pico (MicroPython runs a few hundred bytecodes per
millisecond there): host bytes are looked for first and between every other
step, and stamped with the start of the check that first saw them (a SYNC
answer carries that time); pairs leave the DMA ring through viper code
(fast.py) as small ints; frames are formatted by viper and written a few at a
time in one write; the hot functions are compiled native. A flooded board skips
to the present and counts what it skipped as LOST, so TICKs and SYNC answers
stay on time. Idle, it watches only the DMA count and the host.
"""

import array
import gc
import select
import sys
import time

import machine
import micropython
import rp2

from padboard import config
from padboard.core import PadBoard
from padboard.pio import LOOP_CYCLES, edge_timer
from padboard.ring import POLL_US, SM_ID, EdgeRing
from padboard.state import RING_MASK

try:
    from padboard.fast import frame, frame_into, look, probe
    from padboard.fastedge import write_records
except (ImportError, SyntaxError, ValueError):  # a port without the viper emitter
    from padboard.protocol import frame

    frame_into = write_records = look = probe = None

_PADS_BANK0 = 0x4001C000  # RP2040 pad control registers
_PAD_IE = 1 << 6  # a pad's input enable bit
_CHIP_ID = 0x40000000  # SYSINFO CHIP_ID, the same address on RP2040 and RP2350
_ticks_us = time.ticks_us
_mem32 = machine.mem32
_WATCH_US = 1000  # the idle loop looks at the clock (TICK) at least this often
_FRAMES_PER_WRITE = 6  # the write buffer holds this many of the longest frames
_LINE = 128  # bytes a frame may take (protocol.MAX_LINE)
# MicroPython's USB serial receives the host's bytes on endpoint 2 (OUT): the
# buffer control word of that endpoint in the USB RAM changes when a packet lands
# (FULL set, then a new DATA0/1 when the USB stack takes it and re-arms).
_CDC_OUT_CONTROL = 0x50100000 + 0x80 + 8 * 2 + 4
_FULL = 1 << 15
_TIMERAWL = 0x40054028  # the RP2040's microsecond timer, its raw low word
_GPIO_OUT_XOR = 0xD000001C  # the RP2040's SIO: a 1 written here toggles that output
# A packet heard after a step of the loop landed during it; stamped this long
# before the look that heard it, never before the look before: a stamp is early
# by this at most, and late only when a step takes longer.
_EARLY_US = 30
# HostLink's `hs` stays indexed by number (fast.py names its words _H_*). Seven
# `_H_X = const(n)` here made the emulated Pico's EDGEs at 2,000/s later (bench
# firmware.py --syncs 3 --presses 3 --rates 2000, interleaved: p50 522-535 us, min
# 376-379; main 494-502, 371-374), as late when defined but unused with the indices
# bare, or put first in the module. Not the indexing (mpy-cross -march=armv6m: the
# same bytes but line numbers), nor the lines (the same lines as comments: 494-497);
# cause not found. `from micropython import const` alone: p50 510 (a global more).


class Pins:
    """The board's GPIOs: pads in, lights and the clock probe out."""

    def __init__(self, layout):
        self.pads = [machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in layout["pads"]]
        self.leds = [machine.Pin(n, machine.Pin.OUT, value=0) for n in layout["leds"]]
        self._probe = machine.Pin(config.PROBE_GPIO, machine.Pin.OUT, value=0)
        self._probe_us = time.ticks_us()
        self.arrived_us = self._probe_us  # when the host bytes being read arrived
        if is_rp2040():
            for n in config.QUIET_GPIOS:
                machine.mem32[_PADS_BANK0 + 4 + 4 * n] &= ~_PAD_IE
        self._ps = None  # what fast.probe keeps, on a Pico
        if on_pico(probe):
            # when it last toggled, when the bytes arrived, what it reads
            now = self._probe_us
            ps = self._ps = array.array("I", [now, now, _TIMERAWL, _GPIO_OUT_XOR])
            ps.append(1 << config.PROBE_GPIO)
            self.probe = lambda: probe(ps)

    def arrived(self, us):
        """The host bytes being read arrived at ticks_us `us` (a SYNC's stamp)."""
        self.arrived_us = us
        if self._ps is not None:
            self._ps[1] = us

    def probe(self):
        """Toggle the probe; returns the us since the host bytes being read arrived."""
        # Two toggles closer than the PIO's two-tick pass could merge into none.
        while time.ticks_diff(time.ticks_us(), self._probe_us) < 4:
            pass
        self._probe.toggle()
        now = self._probe_us = time.ticks_us()
        return time.ticks_diff(now, self.arrived_us)

    def set_led(self, output, level):
        self.leds[output].value(level)


def on_pico(fast):
    """`fast` (a viper function reading the RP2040's registers) may run here."""
    return fast is not None and sys.platform == "rp2" and is_rp2040()


def is_rp2040():
    """The chip is an RP2040 (SYSINFO CHIP_ID: part 2, manufacturer 0x927).

    The pad registers written above are the RP2040's; an RP2350 (Pico 2) keeps
    them elsewhere, so there the inputs are left as they are."""
    return machine.mem32[_CHIP_ID] & 0x0FFFFFFF == 0x0002927


class HostLink:
    """The USB serial link (the REPL's stdin/stdout), polled, never waited on.

    Host bytes are read one at a time while select says one is there; the time
    the first of a burst was seen is its arrival (`Pins.arrived_us`), which a
    SYNC answer is stamped with. `look(hs)` sees a packet land in the USB RAM
    within a few microseconds, before the USB stack has taken it: the loop asks
    it between its steps. Frames are written into one buffer, a few at once, and
    sent with one write when the host can take bytes.
    """

    def __init__(self, pins, poll_us, tick_us):
        self._pins = pins
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._rd = select.poll()
        self._rd.register(sys.stdin, select.POLLIN)
        self._wr = select.poll()
        self._wr.register(sys.stdout, select.POLLOUT)
        self._buf = bytearray(_FRAMES_PER_WRITE * _LINE)
        self._sent = 0  # bytes of _buf written
        self._end = 0  # bytes of _buf filled
        self._closed = False
        self.polled_us = time.ticks_us()  # when the USB stack was last asked
        # what heard() keeps (fast.look): the endpoint's control word as last
        # seen, 1 while bytes heard are unread, their stamp, when it last looked,
        # and the two addresses it reads
        now = self.polled_us
        words = [machine.mem32[_CDC_OUT_CONTROL], 0, 0, now, _CDC_OUT_CONTROL, _TIMERAWL]
        words += [now, poll_us, time.ticks_add(now, tick_us)]
        self._tick_us = tick_us
        # the loop calls look(hs) between its steps: viper on a Pico (it reads the
        # RP2040's addresses), else heard(), with a list (the unix port's ticks
        # outgrow 32 bits)
        pico = on_pico(look)
        self.hs = array.array("I", words) if pico else words
        self.look = look if pico else heard

    @micropython.native
    def readable(self):
        """Did the host send bytes? Asks the USB stack (tens of us). The first
        check that says so stamps them with the time it began, unless look()
        stamped them already."""
        if self._closed:
            return False
        t = self.polled_us = _ticks_us()
        hs = self.hs
        hs[6] = t
        for _ in self._rd.ipoll(0):
            if not hs[1]:
                hs[1] = 1
                hs[2] = t
            return True
        hs[3] = t  # nothing had landed then
        return False

    @micropython.native
    def _more(self):
        for _ in self._rd.ipoll(0):
            return True
        return False

    @micropython.native
    def read(self, board, room):
        """Give `board` the bytes the host sent, while it has `room` frames free."""
        hs = self.hs
        if not self.readable():
            hs[1] = 0  # heard a packet that brought no bytes
            return 0
        self._pins.arrived(hs[2])
        hs[1] = 0
        n = 0
        while board.pending() < room:
            try:
                data = self._in.read(1)
            except OSError:
                data = b""
            if not data:  # the host end is gone for good (a closed pty under test)
                self._closed = True
                break
            board.rx(data[0])
            n += 1
            if not self._more():
                word = machine.mem32[_CDC_OUT_CONTROL]
                if not word & _FULL:  # the USB stack took every packet: all read
                    hs[0] = word
                break
        return n

    @micropython.native
    def write(self, board):
        """Send the next frames (a few at once) if the host can take bytes; returns
        1 if some went, 2 if more may wait."""
        buf = self._buf
        more = 1
        if self._sent >= self._end:
            end = board.next_frames_into(buf, 0, len(buf))
            if not end:
                return 0
            if end + _LINE > len(buf):
                more = 2
            self._sent = 0
            self._end = end
            self.look(self.hs)
        for _ in self._wr.ipoll(0):
            n = self._out.write(buf, self._sent, self._end - self._sent)
            self._sent = self._end if n is None or n <= 0 else self._sent + n
            return more
        return 0

    def next_tick(self):
        """A TICK was asked for: the next one is due tick_us later (or from now,
        when the loop fell behind: skipped, never a burst)."""
        hs = self.hs
        due = time.ticks_add(hs[8], self._tick_us)
        now = _ticks_us()
        if time.ticks_diff(due, now) <= 0:
            due = time.ticks_add(now, self._tick_us)
        hs[8] = due

    def wait(self, ms):
        if self._closed:
            time.sleep_ms(ms)
        else:
            self._rd.poll(ms)


@micropython.native
def heard(hs):
    """fast.look in Python (the unix port under test): did a packet from the
    host land since the last look? The first look that sees the endpoint's
    control word change stamps it."""
    t = _ticks_us()
    word = _mem32[_CDC_OUT_CONTROL]
    if word != hs[0] or word & _FULL:
        hs[0] = word
        if not hs[1]:
            # It landed since the last look: stamped _EARLY_US before this look,
            # never before the last one (off by -_EARLY_US at most).
            early = time.ticks_add(t, -_EARLY_US)
            if time.ticks_diff(early, hs[3]) < 0:
                early = hs[3]
            hs[1] = 1
            hs[2] = early
    hs[3] = t
    flags = hs[1]
    if time.ticks_diff(t, hs[6]) >= hs[7]:
        flags |= 2
    if time.ticks_diff(t, hs[8]) >= 0:
        flags |= 4
    return flags


def board_id():
    return "pico-" + "".join("%02x" % b for b in machine.unique_id())


def tick_hz(sm_hz):
    """The tick rate the PIO really runs at: its clock divider is a multiple of 1/256."""
    sys_hz = machine.freq()
    div256 = sys_hz * 256 // sm_hz
    return (sys_hz * 256 + div256 * LOOP_CYCLES // 2) // (div256 * LOOP_CYCLES)


@micropython.native
def run():
    layout = config.LAYOUTS[config.LAYOUT]
    pins = Pins(layout)
    sm_hz = config.TICK_HZ * LOOP_CYCLES
    sm = rp2.StateMachine(SM_ID, edge_timer, freq=sm_hz, in_base=machine.Pin(0))
    ring = EdgeRing(sm, config.RING_WORDS)
    board = PadBoard(
        board_id(),
        layout["pads"],
        config.PROBE_GPIO,
        pins.probe,
        set_led=pins.set_led,
        led_count=len(pins.leds),
        tick_hz=tick_hz(sm_hz),
        debounce_us=config.DEBOUNCE_US,
        sync_ch=len(layout["pads"]) - 1,
        frame=frame,
        frame_into=frame_into,
        records_into=write_records,
        queue_max=config.QUEUE_FRAMES,
        max_probes=config.MAX_PENDING_PROBES,
    )
    board.state[RING_MASK] = config.RING_WORDS - 1  # for fastedge.feed_pairs
    # On the Pico the loop never sleeps: a sleep would delay the next edge and
    # the next SYNC by up to its length. The unix port under test naps.
    idle_ms = 1 if sys.platform == "linux" else 0
    # There the USB RAM is not to be heard: the host is asked on every pass.
    link = HostLink(pins, 0 if idle_ms else POLL_US, config.TICK_MS * 1000)
    look = link.look
    hs = link.hs
    sm.active(1)

    room = config.QUEUE_FRAMES
    ms = 0
    last = time.ticks_ms()
    fault_ms = -1000
    gc.collect()  # start clean: the loop allocates little, so a collection is rare
    while True:
        busy = 0
        try:
            # The host is looked at (heard: a few us) between every two steps: a
            # SYNC is stamped when its packet is first seen, so it must be seen at
            # once. The USB stack itself is asked (tens of us) when a packet was
            # heard, and every POLL_US in any case.
            # Edges first: a pair is fed, its EDGE written, then the host read.
            busy += ring.drain(board, 8, link)
            look(hs)
            wrote = link.write(board)  # a dozen frames: output keeps up with 8 pairs
            if wrote:
                busy += 1
                if wrote == 2:  # the buffer was full: more may wait
                    look(hs)
                    link.write(board)
            due = look(hs)
            if due & 3:  # heard from the host, or time to ask the USB stack
                busy += link.read(board, room)
            if due & 4:
                now = time.ticks_ms()
                ms += time.ticks_diff(now, last)
                last = now
                board.tick(ms)
                link.next_tick()
                look(hs)
                busy = 1
        except Exception as e:  # a fault of ours: report it (once a second), carry on
            if sys.platform == "linux":  # the unix port, under test: stderr is free
                sys.print_exception(e, sys.stderr)
            if ms - fault_ms >= 1000:
                fault_ms = ms
                board.fault(type(e).__name__)
            busy = 1
        if not busy:
            if idle_ms:
                link.wait(idle_ms)
            else:
                ring.watch(link, _WATCH_US)
