"""The SYNC round trips of one board link, and when its clock map is trusted. PURE.

A `BoardSession` (session.py) asks for SYNC quickly after a HELLO (`SYNC_FAST` round
trips, `SYNC_FAST_US` apart, and more while the map is not trusted), then steadily
(`SYNC_STEADY_US`); a board that answered none for `SYNC_TIMEOUT_US` is silent. Each
answer is one sample of the board's `ClockMap`, which is trusted (`is_trusted`: the
board's edges pass) on a short round trip or after enough of them.
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
SYNC_STEADY_US: Final = 500_000
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

    def __init__(self) -> None:
        self._token = 0
        self._sent: dict[int, int] = {}  # token -> host send time
        self.due: int | None = None
        """Host time of the next request, None while none is to be sent."""
        self.answered = 0
        self.unanswered_since: int | None = None

    def forget(self) -> None:
        """The requests sent so far are not waited for (a new HELLO, the port reopened)."""
        self._sent.clear()

    def request(self, now_us: int, *, trusted: bool) -> bytes:
        """A SYNC request sent at `now_us`; the next is due soon while the map is
        young or not `trusted`, else steadily."""
        self._token = (self._token + 1) % p.U32
        self._sent[self._token] = now_us
        if len(self._sent) > IN_FLIGHT_MAX:
            del self._sent[next(iter(self._sent))]
        if self.unanswered_since is None:
            self.unanswered_since = now_us
        steady = self.answered >= SYNC_FAST and trusted
        self.due = now_us + (SYNC_STEADY_US if steady else SYNC_FAST_US)
        return p.sync_request(self._token)

    def ask(self) -> bytes:
        """A SYNC asked out of turn for the board's watermark (the TICK its firmware
        sends after the answer): its answer is no sample of the clock map. Asked while
        edges flow, a busy board's round trips are the noisiest (the map would move
        between two presses: tests/firmware/test_fw_monitor.py)."""
        self._token = (self._token + 1) % p.U32
        self._sent.pop(self._token, None)
        return p.sync_request(self._token)

    def sent_at(self, token: int) -> int | None:
        """When the request `token` was sent (once; None: not one waited for, or an
        `ask`)."""
        return self._sent.pop(token, None)

    def took(self) -> None:
        """An answer became a sample of the clock map: the board answers."""
        self.answered += 1
        self.unanswered_since = None

    def silent_at(self) -> int | None:
        """When `is_silent` turns true if no answer comes before (None: one is not awaited)."""
        since = self.unanswered_since
        return None if since is None else since + SYNC_TIMEOUT_US + 1

    def is_silent(self, now_us: int) -> bool:
        """Whether no request was answered for longer than `SYNC_TIMEOUT_US`."""
        since = self.unanswered_since
        return since is not None and now_us - since > SYNC_TIMEOUT_US
