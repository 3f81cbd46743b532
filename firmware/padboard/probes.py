"""The board's clock probes: how it learns the time now, and the time of a SYNC.

PURE: no machine, rp2, sys or time. core.PadBoard is a Probes; the glue (app.py)
gives it `probe()` (toggle the clock probe output; returns the microsecond timer
then, or None where there is no timer) and, on a board with that timer,
`ticks_diff` (time.ticks_diff), and sets `arrived_us` (the timer when the host
bytes being read arrived: a SYNC's stamp) before it feeds them.

The board trusts one clock, the PIO's. To learn "now" it toggles the probe
output, which lies inside the PIO's input window, and waits for the pair that
change produces. Because the PIO pushes pairs in order, a probe's pair also
proves that every input change before it has been read, which is exactly the
TICK promise. Probes are answered in the order they were made.

A SYNC is stamped on the microsecond timer, which runs from the PIO's crystal.
Each SYNC's probe pairs the timer at its toggle with the board time of its pair:
a reference. With one, the board time of the next SYNC's stamp is known the moment
its line completes (the reference's board time plus the microseconds between), so
the board answers at once (`_stamp`, core.PadBoard._sync); the host takes the stamp to match the
midpoint of its round trip, and every µs the answer waits would be half a µs of
error in every time the host maps from it. Only the first SYNC (no reference yet)
waits for its own probe's pair. Its probe is made all the same: its pair gives the
TICK that follows each SYNC answer (a host waiting for a watermark asks with a
SYNC) and the next reference.
"""

from padboard.native import micropython
from padboard.state import EDGES, HAS_DUE, PROBE_TICKS, TICKS_DONE, push_tick

STALE_MS = 50  # a TICK probe unanswered this long is given up
# While EDGEs flow (BUSY_EDGES or more since the last tick(), 500/s at TICK_MS 10)
# they are the host's watermarks: a TICK's probe costs an edge's time then, and
# is made only every BUSY_TICK_MS (the spec wants one at least every 100 ms).
BUSY_EDGES = 5
BUSY_TICK_MS = 50
# Idle (no EDGE since the last tick(), no debounce lock waiting to end) a TICK's
# probe is made only every IDLE_TICK_MS: with tick() every config.TICK_MS (10) the
# TICKs come at most 100 ms apart, as the spec asks, and a host waiting for this
# board's watermark asks for it with a SYNC, answered by a TICK at once (issue 40:
# each idle TICK cost the host a wake-up). After an EDGE, or while a deferred edge
# waits for its lock's end, a probe is made on every tick() as before.
IDLE_TICK_MS = 90
# A reference older than this (by tick()'s ms) is not used: the timer's ticks_us
# wrap after 2**30 us (17.9 minutes), and ticks_diff reads half of that at most.
REFERENCE_MS = 60000

TICK = 0  # a probe's kind: for a TICK
SYNC = 1  # for a SYNC: a TICK, after the answers that wait for it (its tokens)


class Probes:
    """The clock probes of a PadBoard (its `_probes`, `_probe`, `arrived_us`, ...)."""

    @micropython.native
    def _probes_now(self):
        """The probes in flight, oldest first: the TICK probes the fast path
        answered (state.py's TICKS_DONE) leave the list first."""
        probes = self._probes
        state = self.state
        for _ in range(state[TICKS_DONE]):
            probes.pop(0)
        state[TICKS_DONE] = 0
        return probes

    @micropython.native
    def _lead_ticks(self):
        """Tell the fast path how many TICK probes lead the list (it may answer those)."""
        n = 0
        for probe in self._probes:
            if probe[0] != TICK:
                break
            n += 1
        self.state[PROBE_TICKS] = n

    def _probe_again(self):
        """Make every probe in flight again, in order (its pair went missing)."""
        again = self._probes_now()
        self._probes = []
        for kind, tokens, _, arrived, _ in again:
            self._probes.append([kind, tokens, self._ms, arrived, self._probe()])
        self._lead_ticks()

    @micropython.native
    def _ask_time(self, kind):
        """Make a probe of `kind`; False when too many are in flight."""
        if len(self._probes_now()) >= self._max_probes:
            return False
        arrived = self.arrived_us if kind != TICK and self._ticks_diff is not None else None
        self._probes.append([kind, [], self._ms, arrived, self._probe()])
        self._lead_ticks()
        return True

    def _probe_seen(self, t):
        probes = self._probes_now()
        if not probes:
            return  # a probe given up on, arriving after all
        kind, tokens, _, arrived, mark = probes.pop(0)
        self._lead_ticks()
        if kind == TICK:
            self._debouncer.settle(t)
            # after the ring's records, when nothing waits in the list
            if self._out or not push_tick(self.state, t):
                self._queue("TICK", t)
        elif kind == SYNC:
            t0 = t  # without a timer, the probe's own time
            if arrived is not None and mark is not None:
                self._reference = (mark, t, self._ms)
                # stamped when its bytes arrived: before the probe
                t0 = t - self._ticks(self._ticks_diff(mark, arrived))
            for token in tokens:
                self._first.append(("SYNC", token, t0))
            # then a TICK at the probe's time, as for a TICK probe: a host that waits
            # for this board's watermark asks for it with a SYNC (board-protocol.md)
            self._debouncer.settle(t)
            self._queue("TICK", t)

    def after_sync(self):
        """A SYNC that rx() answered at once: its probe, now that the answer could
        be sent first (the pair gives the TICK after it, and the next reference)."""
        self._ask_time(SYNC)

    @micropython.native
    def _stamp(self):
        """The board time at which the host bytes being read arrived, from the
        reference (the last SYNC probe's pair); -1 without one fresh enough."""
        ref = self._reference
        if ref is None or self._ms - ref[2] >= REFERENCE_MS:
            return -1
        us = self._ticks_diff(self.arrived_us, ref[0])
        return ref[1] + (us if self.tick_hz == 1000000 else self._ticks(us))

    @micropython.native
    def tick(self, ms):
        """Called every TICK_MS with a millisecond count: asks for the next TICK
        (every call while EDGEs were queued since the last, or a debounce lock
        waits to end; idle, every IDLE_TICK_MS)."""
        self._ms = ms
        state = self.state
        edges = state[EDGES]
        moved = (edges - self._edges_seen) & 0xFFFF
        self._edges_seen = edges
        if moved >= BUSY_EDGES and ms - self._tick_ms < BUSY_TICK_MS:
            return  # the EDGEs say it: no probe in their way
        for probe in self._probes_now():
            if probe[0] == TICK:
                if ms - probe[2] < STALE_MS:
                    return  # the last TICK is still on its way
                self._probe_again()  # a probe's pair went missing: ask again
                return
        if not moved and not state[HAS_DUE] and ms - self._tick_ms < IDLE_TICK_MS:
            return  # idle: the host asks with a SYNC when it waits for a watermark
        self._tick_ms = ms
        self._ask_time(TICK)
