"""The board's frames out: two queues, numbered as they leave.

PURE: no machine, rp2, sys or time. core.PadBoard is an Outbox: it queues
answers, TICKs and EDGEs here; the glue (app.py) takes them as bytes. The
answers to the host (HELLO, ERR, SYNC: `_first`) leave first, in the order of
the lines they answer, after a LOST that is due: they are outside the order of
EDGE and TICK times, and the sooner a SYNC answer leaves, the better the host's
clock map (probes.py). Then the fast path's records (state.py): they were
decided before every frame in the list (`_out`).
"""

from padboard import protocol
from padboard.native import micropython
from padboard.state import Q_HEAD, Q_TAIL, ROOM, TICK, pop_record, queued

RESERVE = 4  # queue places kept for answers
MASK32 = 0xFFFFFFFF
_FAST_SEQ = 1 << 29  # the fast path numbers frames below this (small ints)
# The state's words by state.py's names (Q_HEAD, ROOM). Named again here by const()
# (with `const` from native.py), the emulated Pico sent EDGEs at 2,000/s later
# (tests/bench/firmware.py: p50 589-655 us, max 1,056-1,251; 494 and 952 with these,
# 478 and 882 with the bare 10 and 11), for no reason found: on that Pico a const()
# index costs what a bare one does (2,000 of them in a native loop: 13.09 ms both),
# and in app.py const()s merely defined cost as much (see there). The reason, found
# later: at 2,000 edges/s the loop had ~1 % to spare, so any few us more a pass made
# every EDGE wait for the one before (tests/bench/README.md, "The steady stream's margin").


class Outbox:
    """The frame queue of a PadBoard (its `_out`, `_seq`, `lost`, `state`, ...)."""

    def _queue(self, kind, fields):
        """A TICK joins the EDGEs, in time order; an answer (HELLO, ERR) goes
        before them, after the answers waiting. Past the queue's size, dropped."""
        out = self._out
        if kind == "TICK" and out and out[-1][0] == "TICK":
            out[-1] = (kind, fields)  # a later TICK says all the earlier one did
            return
        if len(self._first) + len(out) + queued(self.state) >= self._queue_max:
            return
        if kind != "TICK":
            self._first.append((kind, fields))
            return
        out.append((kind, fields))
        self.state[ROOM] = 0  # the fast path waits until the list is sent

    @micropython.native
    def pending(self):
        """The number of frames waiting to be sent."""
        return len(self._first) + len(self._out) + queued(self.state) + (1 if self.lost else 0)

    @micropython.native
    def next_frame(self):
        """The next frame to send, as bytes, numbered now; None when there is none."""
        end = self.next_frame_into(self._scratch, 0)
        return bytes(self._scratch[:end]) if end else None

    @micropython.native
    def next_frames_into(self, buf, at, stop):
        """Write the frames waiting, numbered now, into the bytearray `buf` from
        `at` while one fits before `stop` (at most 65,535); returns the end. The
        edges the fast path decided go in one call."""
        state = self.state
        records = self._records
        out = self._out
        first = self._first  # answers go before the records
        # Globals read once: this runs on every pass of the loop, and on the Pico a
        # global costs a dict lookup each time (at 2,000 edges/s the loop has little
        # to spare: tests/bench/README.md, "The steady stream's margin")
        head, tail, fast_seq = Q_HEAD, Q_TAIL, _FAST_SEQ
        last = stop - protocol.MAX_LINE  # a frame fits while at <= last
        while at <= last:
            if state[head] != state[tail] and not first:  # records of the fast path
                seq = self._seq
                if records is not None and not self.lost and seq < fast_seq:
                    done = records(buf, state, at << 16 | stop, seq)
                    self._seq = seq + (done >> 16)
                    at = done & 0xFFFF
                    continue
            elif not (out or first or self.lost):
                break
            end = self.next_frame_into(buf, at)
            if end == at:
                break
            at = end
        return at

    @micropython.native
    def next_frame_into(self, buf, at):
        """Write the next frame, numbered now, into the bytearray `buf` at `at`
        (MAX_LINE bytes free); returns its end (`at` when there is none)."""
        state = self.state
        if self.lost:
            kind, fields = "LOST", self.lost
            self.lost = 0
        elif self._first:  # an answer; a SYNC's: ("SYNC", token, t)
            entry = self._first.pop(0)
            if entry[0] == "SYNC":
                kind, fields, t = entry
            else:
                kind, fields = entry
        elif state[Q_HEAD] != state[Q_TAIL]:  # the fast path's records come next
            kind, t = pop_record(state)
            if kind == TICK:
                kind, fields = "TICK", t
            else:
                kind, fields, level = "EDGE", kind >> 1, kind & 1
        elif self._out:
            entry = self._out.pop(0)
            if entry[0] == "EDGE":  # ("EDGE", ch, level, t): core.PadBoard._edge
                kind, fields, level, t = entry
            else:
                kind, fields = entry
            if not self._out:
                state[ROOM] = self._edge_room  # the fast path may go on
        else:
            return at
        seq = self._seq
        self._seq = seq + 1 if seq < MASK32 else 0
        end = -1
        if kind == "EDGE":
            if self._into is not None:
                end = self._into(buf, at, seq, fields << 1 | level, t)
            if end < 0:
                data = "EDGE %d %d %d %d" % (seq, fields, level, t)
        elif kind == "TICK":
            if self._into is not None:
                end = self._into(buf, at, seq, protocol.TICK_KIND, fields)
            if end < 0:
                data = "TICK %d %d" % (seq, fields)
        elif kind == "SYNC":
            data = "SYNC %d %d %d" % (seq, fields, t)
        elif kind == "LOST":
            data = "LOST %d %d" % (seq, fields)
        else:
            data = "%s %d %s" % (kind, seq, fields)
        if end >= 0:
            return end
        data = self._frame(data)
        end = at + len(data)
        buf[at:end] = data
        return end
