"""The hardware glue: pins, the edge timer, its DMA ring, the loop.

Everything that touches machine or rp2 is here or in ring.py, hostlink.py (the
USB serial link) and chip.py; the logic it drives (core.PadBoard) is pure. Under test the same code runs in the
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
import sys
import time

import machine
import micropython
import rp2

from padboard import config
from padboard.chip import is_rp2040, on_pico
from padboard.core import PadBoard
from padboard.hostlink import HostLink
from padboard.pio import LOOP_CYCLES, edge_timer
from padboard.ring import POLL_US, SM_ID, EdgeRing
from padboard.state import RING_MASK

try:
    from padboard.fast import frame, frame_into, probe
    from padboard.fastedge import write_records
    from padboard.fastsync import sync_answer
except (ImportError, SyntaxError, ValueError):  # a port without the viper emitter
    from padboard.protocol import frame

    frame_into = write_records = probe = sync_answer = None

_PADS_BANK0 = 0x4001C000  # RP2040 pad control registers
_PAD_IE = 1 << 6  # a pad's input enable bit
_WATCH_US = 1000  # the idle loop looks at the clock (TICK) at least this often
_TIMERAWL = 0x40054028  # the RP2040's microsecond timer, its raw low word
_GPIO_OUT_XOR = 0xD000001C  # the RP2040's SIO: a 1 written here toggles that output


class Pins:
    """The board's GPIOs: pads in, lights and the clock probe out."""

    def __init__(self, layout):
        self.pads = [machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in layout["pads"]]
        self.leds = [machine.Pin(n, machine.Pin.OUT, value=0) for n in layout["leds"]]
        self._probe = machine.Pin(config.PROBE_GPIO, machine.Pin.OUT, value=0)
        self._probe_us = time.ticks_us()
        if is_rp2040():
            for n in config.QUIET_GPIOS:
                machine.mem32[_PADS_BANK0 + 4 + 4 * n] &= ~_PAD_IE
        if on_pico(probe):
            # when it last toggled, what it reads
            ps = array.array("I", [self._probe_us, _TIMERAWL, _GPIO_OUT_XOR])
            ps.append(1 << config.PROBE_GPIO)
            self.probe = lambda: probe(ps)

    def probe(self):
        """Toggle the probe; returns ticks_us then."""
        # Two toggles closer than the PIO's two-tick pass could merge into none.
        while time.ticks_diff(time.ticks_us(), self._probe_us) < 4:
            pass
        self._probe.toggle()
        self._probe_us = time.ticks_us()
        return self._probe_us

    def set_led(self, output, level):
        self.leds[output].value(level)


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
        ticks_diff=time.ticks_diff,
        sync_answer=sync_answer,
        queue_max=config.QUEUE_FRAMES,
        max_probes=config.MAX_PENDING_PROBES,
    )
    board.state[RING_MASK] = config.RING_WORDS - 1  # for fastedge.feed_pairs
    # On the Pico the loop never sleeps: a sleep would delay the next edge and
    # the next SYNC by up to its length. The unix port under test naps.
    idle_ms = 1 if sys.platform == "linux" else 0
    # There the USB RAM is not to be heard: the host is asked on every pass.
    link = HostLink(0 if idle_ms else POLL_US, config.TICK_MS * 1000)
    look = link.look
    hs = link.hs
    sm.active(1)

    room = config.QUEUE_FRAMES
    ms = 0
    last = time.ticks_ms()
    fault_ms = -1000
    gc.collect()  # start clean: the loop allocates little, so a collection is rare
    heard = 0
    while True:
        busy = 0
        try:
            if heard & 9:  # the idle wait heard the host (no pair was waiting): read first
                busy += link.read(board, room)
            # The host is looked at (heard: a few us) between every two steps: a
            # SYNC is stamped when its packet is first seen, so it must be seen at
            # once. The USB stack itself is asked (tens of us) when a packet was
            # heard, and every POLL_US while no pair came (edges at 2,000/s keep
            # the loop busy: asked on every pass, their EDGEs fell behind).
            # Edges first: a pair is fed, its EDGE written, then the host read.
            fed = ring.drain(board, 8, link)
            busy += fed
            look(hs)
            wrote = link.write(board)  # a dozen frames: output keeps up with 8 pairs
            if wrote:
                busy += 1
                if wrote == 2:  # the buffer was full: more may wait
                    look(hs)
                    link.write(board)
            due = look(hs)
            # heard from the host, or time to ask (the unix port: on every pass)
            if due & 9 or due & 2 and (idle_ms or not fed):
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
        heard = 0
        if not busy:
            if idle_ms:
                link.wait(idle_ms)
            else:
                heard = ring.watch(link, _WATCH_US)
