"""The board's hot state in one array of 32-bit words, shared by the Python
code (core.py, debounce.py, clock.py) and the viper fast path (fast.py, which
works on raw word pointers and cannot look up attributes cheaply).

PURE: no machine, rp2, sys or time. fastedge.py names these offsets again by
`const()` (viper inlines a const of its own module, not a name imported from
this one); tests/firmware checks the two agree.

Times are board ticks split into a low and a high word. A pad edge the fast
path decides waits in a ring of records (kind, t low, t high), before every
frame queued in core.PadBoard's list after it: the fast path runs only while
that list is empty. A TICK joins the ring the same way (kind TICK) when the
list is empty, so fast.write_records writes it with the edges.
"""

import array

CHANNELS = 32  # at most, one per bit of a pins word

PINS = 0  # the last pins word fed
NOW_LO = 1  # the latest board time, low and high word
NOW_HI = 2
LOW30 = 3  # the latest board time mod 2**30 (the edge timer's count)
PAD_MASK = 4  # the pads' bits in a pins word
PROBE_MASK = 5  # the clock probe's bit
READY = 6  # 1 while the fast path may decide pairs (a first pair fed, no gap)
HAS_DUE = 7  # 1 while a channel waits for its lock to end
DUE_LO = 8  # the earliest lock end among the waiting channels
DUE_HI = 9
Q_HEAD = 10  # records taken from the ring so far, and put in (counts mod 2**16)
Q_TAIL = 11
ROOM = 12  # records the ring may hold now (the EDGE room of the frame queue)
EDGES = 13  # EDGEs queued, counted mod 2**16 (core.PadBoard.tick looks at the rate)
SCRATCH = 14  # the fast path's: a sum stored and read back to see its carry
RING_MASK = 15  # the DMA ring's size in words - 1 (ring.py)
PROBE_TICKS = 16  # the TICK probes at the head of core's list, not answered yet
TICKS_DONE = 17  # those the fast path answered since (core takes them off its list)
CH_OF = 32  # + bit: the channel on that bit of a pins word, NO_CH for none
RAW = CH_OF + CHANNELS  # + ch: the level the PIO saw last
REP = RAW + CHANNELS  # + ch: the level last reported
WIN = REP + CHANNELS  # + ch: the channel's debounce window, ticks
UNTIL = WIN + CHANNELS  # + 2 ch: the end of the channel's lock, low and high word
QUEUE = UNTIL + 2 * CHANNELS  # + 3 i: record i: ch << 1 | level, t low, t high
QUEUE_RECORDS = 64  # a power of 2
SIZE = QUEUE + 3 * QUEUE_RECORDS
NO_CH = 255
TICK = 64  # a TICK's record kind (an EDGE's: ch << 1 | level); protocol.TICK_KIND
U32 = 0xFFFFFFFF
MASK30 = 0x3FFFFFFF


def new_state():
    """A zeroed state, no bit a channel yet."""
    state = array.array("I", bytes(4 * SIZE))
    for bit in range(CHANNELS):
        state[CH_OF + bit] = NO_CH
    return state


def get_time(state, at):
    """The time in words `at` (low) and `at` + 1 (high)."""
    hi = state[at + 1]
    lo = state[at]
    if not hi and lo <= MASK30:
        return lo  # a small int on the Pico: no allocation (the first 17 minutes)
    return hi << 32 | lo


def set_time(state, at, t):
    if 0 <= t <= MASK30:
        state[at] = t
        state[at + 1] = 0
    else:
        state[at] = t & U32
        state[at + 1] = t >> 32


def push_tick(state, t):
    """Put a TICK at `t` in the ring (replacing a TICK at its tail, which says
    less); False when the ring is full."""
    tail = state[Q_TAIL]
    if tail != state[Q_HEAD]:
        last = QUEUE + 3 * ((tail - 1) % QUEUE_RECORDS)
        if state[last] == TICK:
            set_time(state, last + 1, t)
            return True
    if queued(state) >= QUEUE_RECORDS:
        return False
    at = QUEUE + 3 * (tail % QUEUE_RECORDS)
    state[at] = TICK
    set_time(state, at + 1, t)
    state[Q_TAIL] = (tail + 1) & 0xFFFF
    return True


def pop_record(state):
    """Take the oldest record from the ring: (kind, t)."""
    head = state[Q_HEAD]
    at = QUEUE + 3 * (head % QUEUE_RECORDS)
    state[Q_HEAD] = (head + 1) & 0xFFFF
    return state[at], get_time(state, at + 1)


def queued(state):
    """The records waiting in the ring."""
    return (state[Q_TAIL] - state[Q_HEAD]) & 0xFFFF
