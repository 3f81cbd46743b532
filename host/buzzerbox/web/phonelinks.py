"""What the box itself measured of each phone's link to it: the round trips of its
clock matching (issue 39, item 1).

A phone matches its clock to the box's with GET /api/clock, a few exchanges one after
the other (web/static/phoneclock.js). The box names the phone's link in its first
answer (`link`, a random id the phone sends back on its next exchanges and with its
presses) and notes when it answered; the phone's next exchange of a burst (`follows`)
arrives one round trip later, plus the phone's own turn from an answer to its next
question. That gap is the
box's own measure of the link: a phone cannot make it shorter than its link is (it
cannot ask before it was answered). A press from that phone may then be placed at most

    worst recent gap + half the best gap (the phone's clock error)

before it reached the box (web/phonetime.py): its touch, its request's own turn and
transit, and the map's error. A phone with no measured link, or a press that names a
link another address measured, gets no credit at all: it is timed at its arrival.

A modified phone can slow its own exchanges to claim a slower link: no gap counts for
more than MAX_LINK_US, so no phone buys more than that and half again whatever it
claims. An exchange that does not follow the last at once (a new burst), or comes
over MAX_GAP_US after it, measures no round trip. The table
keeps MAX_LINKS links, at most LINKS_PER_ADDRESS an address (the oldest go first; the
box's own machine, 127.0.0.1 and ::1, is not capped by address, as in server/address.py),
so a crowd of addresses cannot push out the seated phones' links. Every time is
passed in.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict, deque
from dataclasses import dataclass, field

from buzzerbox.server.address import UNCAPPED

#: a round trip counts for at most this (µs): a slower link times no fair race
MAX_LINK_US = 200_000
#: a gap longer than this (µs) is a pause between bursts, not a round trip
MAX_GAP_US = 1_000_000
#: round trips kept per link, the newest (phoneclock.js asks 8 in a burst)
KEEP = 16
#: links kept at most, and per address
MAX_LINKS = 4096
LINKS_PER_ADDRESS = 8


@dataclass(frozen=True, slots=True)
class LinkBound:
    """What one phone's measured link allows a press: `worst_us` its slowest recent
    round trip, `best_us` its quickest (its clock map's error is half that)."""

    worst_us: int
    best_us: int

    @property
    def allowed_us(self) -> int:
        """How long before its arrival a press from this link may be placed."""
        return self.worst_us + self.best_us // 2


#: a phone whose link the box has not measured: no credit
UNMEASURED = LinkBound(0, 0)


@dataclass(slots=True)
class _Link:
    address: str
    answered_us: int | None = None
    gaps: deque[int] = field(default_factory=lambda: deque(maxlen=KEEP))


class PhoneLinks:
    """The links the box measured, by id."""

    def __init__(self, most: int = MAX_LINKS, per_address: int = LINKS_PER_ADDRESS) -> None:
        self.most, self.per_address = most, per_address
        self._links: OrderedDict[str, _Link] = OrderedDict()
        self._by_address: dict[str, deque[str]] = {}  # an address's links, oldest first
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._links)

    def asked(self, link: object, address: str, now_us: int, *, follows: bool = True) -> str:
        """A clock exchange from `address` naming `link` (None on its first) arrived and
        is answered at `now_us`: the link's id for the answer. The gap since the link's
        last answer is a round trip if the exchange `follows` it at once and the link is
        this address's."""
        with self._lock:
            known = self._links.get(link) if isinstance(link, str) else None
            if known is None or known.address != address:
                return self._new(address, now_us)
            assert isinstance(link, str)
            self._links.move_to_end(link)
            if follows and known.answered_us is not None:
                gap = now_us - known.answered_us
                if 0 <= gap <= MAX_GAP_US:
                    known.gaps.append(min(gap, MAX_LINK_US))
            known.answered_us = now_us
            return link

    def bound(self, link: object, address: str) -> LinkBound:
        """What `link` allows a press from `address`: UNMEASURED if it is not known,
        another address's, or has no round trip yet."""
        with self._lock:
            known = self._links.get(link) if isinstance(link, str) else None
            if known is None or known.address != address or not known.gaps:
                return UNMEASURED
            return LinkBound(max(known.gaps), min(known.gaps))

    def _new(self, address: str, now_us: int) -> str:
        mine = self._by_address.setdefault(address, deque())
        while mine and len(mine) >= self.per_address and address not in UNCAPPED:
            self._links.pop(mine.popleft(), None)
        while len(self._links) >= self.most:
            _key, oldest = self._links.popitem(last=False)
            theirs = self._by_address.get(oldest.address)
            if theirs is not None:
                theirs.remove(_key)
                if not theirs:
                    del self._by_address[oldest.address]
        key = secrets.token_urlsafe(12)
        self._links[key] = _Link(address, now_us)
        self._by_address.setdefault(address, mine).append(key)
        return key
