"""The edge timer: a PIO program that stamps every input change with the tick it happened in.

This file is the one source of the program: the Pico assembles it with the real
rp2.asm_pio; the tests assemble it with a stand-in rp2 that records opcodes and
run those in rp2040-pio-emulator.

Registers: X counts down one per tick (the board clock), Y holds the last
sample of the pins, OSR parks the counter while X holds a new sample.

    sample: mov osr, x          park the counter
            mov x, pins         sample all 32 GPIOs at once
            jmp x!=y, changed
            mov x, osr
            jmp x--, sample     one tick: 5 cycles (wraps to sample when X was 0)

    changed: the new sample goes to Y, then the sample and the counter it was
            taken at are pushed (autopush, 32 bits each), and X is restored and
            decremented twice: a pass that pushes takes 10 cycles, two ticks.

The counter therefore advances exactly once per LOOP_CYCLES, whatever the pins
do, and a change is stamped with the tick of the sample that saw it. At
freq = TICK_HZ * LOOP_CYCLES (5 MHz: clock divider 25 from 125 MHz) one tick is
1 us. The sample after a pushed change comes two ticks later (CHANGE_TICKS):
an edge inside that window is stamped up to one tick late, never early, so the
order of edges is always kept.

Autopush stalls the machine (and its clock) if the RX FIFO is full; the board
drains it by DMA into a ring (app.py), so it never is. A stall shows as a board
whose TICKs stop, never as a split (pins, counter) pair.
"""

import rp2

LOOP_CYCLES = 5  # PIO cycles per tick
CHANGE_TICKS = 2  # ticks taken by a pass that pushes a change


@rp2.asm_pio(autopush=True, push_thresh=32, fifo_join=rp2.PIO.JOIN_RX)
def edge_timer():
    mov(x, null)  # the clock starts at 0
    mov(y, invert(pins))  # a last sample that cannot match: the first is pushed
    jmp("sample")
    label("changed")
    mov(y, x)
    in_(x, 32)  # push the sample
    in_(osr, 32)  # push the counter it was taken at
    mov(x, osr)[1]
    jmp(x_dec, "second")
    label("second")
    jmp(x_dec, "sample")  # falls through to sample too
    wrap_target()
    label("sample")
    mov(osr, x)
    mov(x, pins)
    jmp(x_not_y, "changed")
    mov(x, osr)
    jmp(x_dec, "sample")
    wrap()
