"""The SYNC round trips of one board link, and when its clock map is trusted. PURE.

A `BoardSession` (session.py) asks for SYNC quickly after a HELLO (`SYNC_FAST` round
trips, `SYNC_FAST_US` apart, and more while the map is not trusted), then steadily
(`SYNC_STEADY_US`; a steady request not answered is asked again after `SYNC_RETRY_US`);
a board whose answers left its map untrusted for `SYNC_TIMEOUT_US`
(none came, or none good enough) is silent. Each answer is one sample of the board's
`ClockMap`, which is trusted (`is_trusted`: the board's edges pass) on a short round
trip or after enough of them.

A request goes out in two writes: its line first, its "\n" `SYNC_NEWLINE_US` later
(`newline`), and the round trip starts with the "\n". The board stamps a SYNC when
its "\n" arrives and answers once it has read and parsed the line, and the host
takes the stamp to match the midpoint of the round trip (board-protocol.md): every
µs the board spends on the line after its stamp puts each time mapped from that
sample half a µs late. Sent whole, a Pico reads the line a byte at a time after its
stamp (~165 µs a byte on the emulated Pico, tests/bench/README.md); sent in two, it
has read the line before the "\n" comes. Other bytes for the board never wait: they
end the line first (`cut`), and that request is no sample.
"""

from __future__ import annotations

from typing import Final

from buzzerbox.pads.board import protocol as p
from buzzerbox.pads.timeline.clockmap import ClockMap

SYNC_FAST: Final = 8
"""SYNC round trips taken quickly after a HELLO, `SYNC_FAST_US` apart (more until
the map is trusted)."""
SYNC_FAST_US: Final = 20_000
SYNC_GOOD_RTT_US: Final = 2_000
"""A round trip this short makes the map trusted: a mapped time is then good to half
of it (USB full speed: the SYNC waits for an OUT frame, its answer for an IN poll)."""
SYNC_SETTLE: Final = 16
"""On a link never that quick, the map is trusted after this many round trips (the
best of them is all it can do)."""
SYNC_NEWLINE_US: Final = 5_000
"""A SYNC's "\n" is sent this long after its line: time for a board to read the line
(a Pico: 2-3 ms for a long token; a line it is still reading makes that sample's
round trip longer, and the clock map keeps the shortest)."""
SYNC_STEADY_US: Final = 2_000_000
"""Steady SYNCs of a board whose map is trusted, this far apart (issue 40: each one
costs an idle box two lines and a wake-up; it was 500 ms). A board's clock drifts
±50 ppm at most, which the map fits: 2 s of it unsampled moves a mapped time by the
fit's error of the drift times 2 s, µs (tests/pads/test_sync_settle.py)."""
SYNC_RETRY_US: Final = 250_000
"""A steady request still unanswered this long after it went is asked again (a lost
line): a board is then silent after `SYNC_TIMEOUT_US` as it was with SYNCs 500 ms
apart, not on the first answer lost."""
SYNC_TIMEOUT_US: Final = 2_000_000
IN_FLIGHT_MAX: Final = 64
"""SYNC requests waited for at once; an older one's answer is not taken."""


def is_trusted(clock: ClockMap | None) -> bool:
    """Whether a board's times mapped by `clock` are good for the host timeline.

    Not on the first round trip, but on a short one (`SYNC_GOOD_RTT_US`) or after
    `SYNC_SETTLE` of them: right after a (re)connect a busy host answers late, and
    a time mapped from such a round trip can be off by half of it, milliseconds.
    """
    if clock is None or not clock.is_mapped:
        return False
    best = clock.best_rtt_us
    return (best is not None and best <= SYNC_GOOD_RTT_US) or clock.samples >= SYNC_SETTLE


class SyncRounds:
    """The SYNC requests of one link: their tokens and send times, when the next is
    due, how many were answered on the board's current clock, since when none was."""

    def __init__(self, newline_us: int = SYNC_NEWLINE_US) -> None:
        self.newline_us = newline_us
        """How long a request's "\n" waits after its line; 0: sent with it (a board
        that answers at once, an in-process fake: fakes/wires.py)."""
        self._token = 0
        self._sent: dict[int, int] = {}  # token -> host send time
        self.due: int | None = None
        """Host time of the next request, None while none is to be sent."""
        self.answered = 0
        self.unanswered_since: int | None = None
        self._open: int | None = None  # the token whose line waits for its "\n"
        self._steady = False  # the last request was a steady one
        self.newline_due: int | None = None
        """Host time the open line's "\n" is due, None while no line is open."""

    def forget(self) -> None:
        """The requests sent so far are not waited for (a new HELLO, the port reopened)."""
        self._sent.clear()
        self._open = self.newline_due = None

    def request(self, now_us: int, *, trusted: bool) -> bytes:
        """A SYNC request at `now_us`, its line without the "\n" (`newline`, after an
        open line's `cut`); the next is due soon while the map is young or not
        `trusted`, else steadily."""
        cut = self.cut()
        self._token = (self._token + 1) % p.U32
        self._open = self._token
        self.newline_due = now_us + self.newline_us
        if self.unanswered_since is None:
            self.unanswered_since = now_us
        self._steady = steady = self.answered >= SYNC_FAST and trusted
        self.due = now_us + (SYNC_RETRY_US if steady else SYNC_FAST_US)
        line = cut + p.sync_request(self._token)[:-1]
        return line + self.newline(now_us) if self.newline_us <= 0 else line

    def poll(self, now_us: int, *, trusted: bool) -> bytes:
        """What is due at `now_us`: the open line's "\n", else a request (`request`).

        The "\n" is sent `newline_us` after its line or later, whenever the host next
        polls (the board's next line, the next request due): its round trip is timed
        from when it leaves, so a late one costs nothing but time, and nobody is woken
        for it alone (issue 40: a box at rest). A late "\n" goes before the next
        request, which waits for the next poll: ended by that request (`cut`), no
        answer was a sample, and a board whose lines come further apart than
        `SYNC_FAST_US` (an idle TICK every 90 ms) was never mapped."""
        if self.newline_due is not None and now_us >= self.newline_due:
            return self.newline(now_us)
        if self.due is not None and now_us >= self.due:
            return self.request(now_us, trusted=trusted)
        return b""

    def newline(self, now_us: int) -> bytes:
        """The open line's "\n", sent at `now_us`: its round trip starts now."""
        token = self._open
        if token is None:
            return b""
        self._open = self.newline_due = None
        self._sent[token] = now_us
        if len(self._sent) > IN_FLIGHT_MAX:
            del self._sent[next(iter(self._sent))]
        return b"\n"

    def cut(self) -> bytes:
        """What goes before other bytes for the board: the open line's "\n" (then its
        answer is no sample: the line did not wait for its time), or nothing."""
        if self._open is None:
            return b""
        self._open = self.newline_due = None
        return b"\n"

    def ask(self) -> bytes:
        """A SYNC asked out of turn for the board's watermark (the TICK its firmware
        sends after the answer): its answer is no sample of the clock map. Asked while
        edges flow, a busy board's round trips are the noisiest (the map would move
        between two presses: tests/firmware/test_fw_monitor.py)."""
        self._token = (self._token + 1) % p.U32
        self._sent.pop(self._token, None)
        return self.cut() + p.sync_request(self._token)

    def sent_at(self, token: int) -> int | None:
        """When the request `token` was sent (once; None: not one waited for, or an
        `ask`)."""
        return self._sent.pop(token, None)

    @property
    def is_steady(self) -> bool:
        """Whether the requests go steadily (the map trusted and settled), not fast."""
        return self._steady

    def took(self, *, trusted: bool, sent_us: int) -> None:
        """An answer (to the request sent at `sent_us`) became a sample of the clock
        map; once the map is `trusted` the board answers (`is_silent` counts afresh),
        and a steady request's answer puts the next `SYNC_STEADY_US` after it. One that
        leaves the map untrusted (a long round trip) does not: else a board whose times
        cannot be used, answering a SYNC now and then, held the table's decisions past
        `SYNC_TIMEOUT_US`."""
        self.answered += 1
        if trusted:
            self.unanswered_since = None
            if self._steady and self.due is not None:
                self.due = max(self.due, sent_us + SYNC_STEADY_US)

    def silent_at(self) -> int | None:
        """When `is_silent` turns true if no answer comes before (None: one is not awaited)."""
        since = self.unanswered_since
        return None if since is None else since + SYNC_TIMEOUT_US + 1

    def is_silent(self, now_us: int) -> bool:
        """Whether the requests went unanswered (or answered too slowly to trust the map)
        for longer than `SYNC_TIMEOUT_US`."""
        since = self.unanswered_since
        return since is not None and now_us - since > SYNC_TIMEOUT_US
