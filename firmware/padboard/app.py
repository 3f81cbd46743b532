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

try:
    from padboard.fast import frame, frame_into
except (ImportError, SyntaxError, ValueError):  # a port without the viper emitter
    from padboard.protocol import frame

    frame_into = None

_PADS_BANK0 = 0x4001C000  # RP2040 pad control registers
_PAD_IE = 1 << 6  # a pad's input enable bit
_CHIP_ID = 0x40000000  # SYSINFO CHIP_ID, the same address on RP2040 and RP2350
_ticks_us = time.ticks_us
_mem32 = machine.mem32
_WATCH_US = 1000  # the idle loop looks at the clock (TICK) at least this often
_FRAMES_PER_WRITE = 6  # frames joined into one write
_LINE = 128  # bytes a frame may take (protocol.MAX_LINE)
# MicroPython's USB serial receives the host's bytes on endpoint 2 (OUT): the
# buffer control word of that endpoint in the USB RAM changes when a packet lands
# (FULL set, then a new DATA0/1 when the USB stack takes it and re-arms).
_CDC_OUT_CONTROL = 0x50100000 + 0x80 + 8 * 2 + 4
_FULL = 1 << 15
# A packet heard after a step of the loop landed during it; stamped this long
# before the look that heard it, never before the look before: a stamp is early
# by this at most, and late only when a step takes longer.
_EARLY_US = 30


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


def is_rp2040():
    """The chip is an RP2040 (SYSINFO CHIP_ID: part 2, manufacturer 0x927).

    The pad registers written above are the RP2040's; an RP2350 (Pico 2) keeps
    them elsewhere, so there the inputs are left as they are."""
    return machine.mem32[_CHIP_ID] & 0x0FFFFFFF == 0x0002927


class HostLink:
    """The USB serial link (the REPL's stdin/stdout), polled, never waited on.

    Host bytes are read one at a time while select says one is there; the time
    the first of a burst was seen is its arrival (`Pins.arrived_us`), which a
    SYNC answer is stamped with. `heard()` sees a packet land in the USB RAM
    within a few microseconds, before the USB stack has taken it: the loop asks
    it between its steps. Frames are written into one buffer, a few at once, and
    sent with one write when the host can take bytes.
    """

    def __init__(self, pins):
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
        self._seen_us = None  # when the bytes not read yet were first seen
        self._control = machine.mem32[_CDC_OUT_CONTROL]  # as last seen
        self.polled_us = time.ticks_us()  # when the USB stack was last asked
        self._look_us = self.polled_us  # when heard() last looked

    @micropython.native
    def heard(self):
        """Did a packet from the host land (or bytes wait unread)? Cheap: the
        first look that sees the endpoint's control word change stamps them."""
        t = _ticks_us()
        word = _mem32[_CDC_OUT_CONTROL]
        if word != self._control or word & _FULL:
            self._control = word
            if self._seen_us is None:
                # It landed since the last look: stamped _EARLY_US before this
                # look, never before the last one (off by -_EARLY_US at most).
                early = time.ticks_add(t, -_EARLY_US)
                if time.ticks_diff(early, self._look_us) < 0:
                    early = self._look_us
                self._seen_us = early
        self._look_us = t
        return self._seen_us is not None

    @micropython.native
    def readable(self):
        """Did the host send bytes? Asks the USB stack (tens of us). The first
        check that says so stamps them with the time it began, unless heard()
        stamped them already."""
        if self._closed:
            return False
        t = self.polled_us = _ticks_us()
        for _ in self._rd.ipoll(0):
            if self._seen_us is None:
                self._seen_us = t
            return True
        self._look_us = t  # nothing had landed then
        return False

    @micropython.native
    def _more(self):
        for _ in self._rd.ipoll(0):
            return True
        return False

    @micropython.native
    def read(self, board, room):
        """Give `board` the bytes the host sent, while it has `room` frames free."""
        if not self.readable():
            self._seen_us = None  # heard a packet that brought no bytes
            return 0
        self._pins.arrived_us = self._seen_us
        self._seen_us = None
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
                    self._control = word
                break
        return n

    @micropython.native
    def write(self, board):
        """Send the next frames (a few at once) if the host can take bytes; returns
        1 if some went."""
        buf = self._buf
        if self._sent >= self._end:
            end = 0
            for _ in range(_FRAMES_PER_WRITE):
                more = board.next_frame_into(buf, end)
                if more == end:
                    break
                end = more
            if not end:
                return 0
            self._sent = 0
            self._end = end
            self.heard()
        for _ in self._wr.ipoll(0):
            n = self._out.write(buf, self._sent, self._end - self._sent)
            self._sent = self._end if n is None or n <= 0 else self._sent + n
            return 1
        return 0

    def wait(self, ms):
        if self._closed:
            time.sleep_ms(ms)
        else:
            self._rd.poll(ms)


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
        queue_max=config.QUEUE_FRAMES,
        max_probes=config.MAX_PENDING_PROBES,
    )
    link = HostLink(pins)
    sm.active(1)

    room = config.QUEUE_FRAMES
    # On the Pico the loop never sleeps: a sleep would delay the next edge and
    # the next SYNC by up to its length. The unix port under test naps.
    idle_ms = 1 if sys.platform == "linux" else 0
    # There the USB RAM is not to be heard: the host is asked on every pass.
    poll_us = 0 if idle_ms else POLL_US
    ms = 0
    last = time.ticks_ms()
    next_tick = config.TICK_MS
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
            link.heard()
            if link.write(board):  # up to 2 x 6 frames: output keeps up with 8 pairs
                busy += 1
                link.heard()
                link.write(board)
            if link.heard() or time.ticks_diff(_ticks_us(), link.polled_us) >= poll_us:
                busy += link.read(board, room)
            now = time.ticks_ms()
            ms += time.ticks_diff(now, last)
            last = now
            if ms >= next_tick:
                board.tick(ms)
                link.heard()
                next_tick += config.TICK_MS
                if next_tick <= ms:  # fell behind: skip, do not burst
                    next_tick = ms + config.TICK_MS
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
