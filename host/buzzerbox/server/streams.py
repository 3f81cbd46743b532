"""Who gets a live stream (issue 39, item 2).

A crowd of addresses, each under its share (8 streams), took all of the box's 1,000
live streams in 2.3 s: the seated players and the TV went blind. So the places are
kept by kind, at the stream's endpoint (web/stream.py, hub/app.py), before the live
engine is asked:

- the admin has ADMIN_STREAMS places of its own;
- members, a seated player's phone or the paired TV (the box says who: a cookie,
  web/members.py), have MEMBER_STREAMS places of their own, PER_MEMBER each;
- viewers, everyone else, share `viewers` places (--max-phones, the hub's
  --max-screens), `per_address` at most from one address (then 429).

A member or the admin over its own count asks as a viewer (never making its own oldest
give way: that page would come back and take the next's, round and round). A viewer,
when the viewers' places are full, takes the place of a stream that gives way (its
socket is shut: the stream ends): a viewer's stream that is not reading (bytes its
socket could not send wait), else the oldest stream of the address that holds the most
viewer streams, if it holds more than the newcomer's would. Never a member's or the
admin's for a viewer. If none may give way the viewer is refused (503). At most LEAVING
streams that gave way may still be leaving, so the live engine and the server's threads
count at most `BEYOND` streams past `viewers`.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import socket
import threading
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from buzzerbox.server.address import UNCAPPED, address_key

#: Linux's ioctl for the bytes a socket holds that it could not send yet (the peer's
#: window is shut: it does not read); sent bytes not yet acknowledged are not counted,
#: so a phone that reads but acknowledges late (delayed ACKs) is not taken for idle
SIOCOUTQNSD = 0x894B

#: live streams kept beyond --max-phones (the hub: --max-screens) for the admin's own
ADMIN_STREAMS = 8
#: places beyond the viewers' for the members: the seated players' phones, the TV
MEMBER_STREAMS = 32
#: streams one member (one seat's phone, the TV) holds at once: 12 seats and the TV
#: at 2 each fit MEMBER_STREAMS
PER_MEMBER = 2
#: streams that gave way and may still be leaving (the engine still counts them)
LEAVING = 16
#: live streams past `viewers` at most (the live engine's reserve, the threads')
BEYOND = ADMIN_STREAMS + MEMBER_STREAMS + LEAVING

ADMIN = "admin"
VIEWER = "viewer"

#: refused: this address holds its share of viewers' streams (429), or the box is full
SHARE_TAKEN = "share"
FULL = "full"


@dataclass(eq=False)
class Place:
    """One open live stream: who holds it, and how to make it give way."""

    address: str
    who: str  # ADMIN, VIEWER, or a member's key
    order: int
    give_way: Callable[[], None] | None = None
    is_reading: Callable[[], bool] = field(default=lambda: True)
    gone: bool = False


class StreamPlaces:
    """The live streams open at once, by kind (see the module's doc)."""

    def __init__(self, viewers: int, per_address: int) -> None:
        self.viewers = viewers
        self.per_address = per_address
        self.leaving = 0
        self._held: dict[str, list[Place]] = {}  # who -> places, oldest first
        self._by_address: dict[str, list[Place]] = {}  # viewers' places
        self._order = itertools.count()
        self._lock = threading.Lock()

    def admit(
        self,
        host: str,
        who: str,
        give_way: Callable[[], None] | None = None,
        is_reading: Callable[[], bool] | None = None,
    ) -> Place | str:
        """A place for a stream of `who` (ADMIN, VIEWER or a member's key) from `host`,
        or why not (SHARE_TAKEN, FULL). The place's `give_way` shuts its stream when
        another takes its place; `is_reading` says whether it reads what it is sent."""
        address = address_key(host)
        place = Place(address, who, next(self._order), give_way, is_reading or (lambda: True))
        with self._lock:
            victim, refused = self._room_for(place)
            if refused:
                return refused
            if victim is not None:
                self._drop(victim)
                victim.gone = True
                self.leaving += 1
            self._held.setdefault(place.who, []).append(place)
            if place.who == VIEWER:  # also a member over its own count
                self._by_address.setdefault(address, []).append(place)
        if victim is not None and victim.give_way is not None:
            with contextlib.suppress(Exception):  # gone already
                victim.give_way()
        return place

    def enter(
        self,
        host: str,
        who: str,
        join: Callable[[int], bool],
        give_way: Callable[[], None] | None = None,
        is_reading: Callable[[], bool] | None = None,
    ) -> Place | str:
        """`admit`, then a place in the live engine too (`join(reserve)`: the places kept
        beyond its limit, LEAVING for a viewer, BEYOND for the admin and the members); FULL
        (and the place given back) where the engine has none."""
        place = self.admit(host, who, give_way, is_reading)
        if isinstance(place, str):
            return place
        if not join(LEAVING if place.who == VIEWER else BEYOND):
            self.leave(place)
            return FULL
        return place

    def leave(self, place: Place) -> None:
        """The stream of `place` ended (once)."""
        with self._lock:
            if place.gone:
                place.gone = False
                self.leaving -= 1
            elif place in self._held.get(place.who, ()):
                self._drop(place)

    def count(self, who: str) -> int:
        with self._lock:
            return len(self._held.get(who, ()))

    def _room_for(self, place: Place) -> tuple[Place | None, str]:
        """(a stream that must give way or None, why the newcomer is refused or "")."""
        if place.who != VIEWER:
            own = len(self._held.get(place.who, ()))
            members = sum(len(v) for k, v in self._held.items() if k not in (ADMIN, VIEWER))
            if place.who == ADMIN and own < ADMIN_STREAMS:
                return None, ""
            if place.who != ADMIN and own < PER_MEMBER and members < MEMBER_STREAMS:
                return None, ""
            # over its own count (a third tab, a shared cookie): a viewer's place, as
            # anyone's; never its own oldest, which would come back and take the next
            place.who = VIEWER
        mine = self._by_address.get(place.address, [])
        if len(mine) >= self.per_address and place.address not in UNCAPPED:
            return None, SHARE_TAKEN
        viewers = self._held.get(VIEWER, [])
        if len(viewers) < self.viewers:
            return None, ""
        idle = next((p for p in viewers if p.give_way and not p.is_reading()), None)
        if idle is not None:
            return self._leaving_one(idle)
        crowded = max(self._by_address.values(), key=len)
        if len(crowded) > len(mine) + 1:
            return self._leaving_one(crowded[0])
        return None, FULL

    def _leaving_one(self, victim: Place) -> tuple[Place | None, str]:
        if victim.give_way is None or self.leaving >= LEAVING:
            return None, FULL
        return victim, ""

    def _drop(self, place: Place) -> None:
        self._held[place.who].remove(place)
        if not self._held[place.who]:
            del self._held[place.who]
        if place.who == VIEWER:
            mine = self._by_address[place.address]
            mine.remove(place)
            if not mine:
                del self._by_address[place.address]


def give_way_of(
    channel: Any, taken: Callable[[], tuple[socket.socket, int] | None] = lambda: None
) -> tuple[Callable[[], None] | None, Callable[[], bool] | None]:
    """How to shut a stream on a waitress `channel` (its socket: the fanout, or waitress,
    sees it end), and whether it reads: nothing it was sent waits in waitress or unsent
    in the socket (Linux; elsewhere it counts as reading). Once another holder has taken
    the stream's socket from waitress (the fanout: live/handover.py), `taken` gives that
    socket and the bytes the holder still keeps for it; waitress's own is closed then."""
    sock = getattr(channel, "socket", None)
    if sock is None:
        return None, None
    # held weakly: a live phone keeps no waitress channel once waitress is done with it
    # (its buffers, locks and parsed request: half of a phone's memory, issue 40)
    waitress = weakref.ref(channel)

    def give_way() -> None:
        held = taken()
        with contextlib.suppress(OSError):  # gone already: its place is on its way back
            (sock if held is None else held[0]).shutdown(socket.SHUT_RDWR)

    def is_reading() -> bool:
        held = taken()
        if held is not None:
            now, kept = held
        else:
            now, kept = sock, getattr(waitress(), "total_outbufs_len", 0)
        if kept:
            return False
        waiting = bytearray(4)
        try:
            fcntl.ioctl(now.fileno(), SIOCOUTQNSD, waiting)
        except (OSError, ValueError):
            return True
        return int.from_bytes(waiting, "little") == 0

    return give_way, is_reading


class Slotted:
    """A stream's messages that give its place back when closed, once (also when the
    stream never started: the server closes it all the same)."""

    def __init__(self, messages: Iterator[bytes], release: Callable[[], None]) -> None:
        self._messages = messages
        self._release: Callable[[], None] | None = release

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        return next(self._messages)

    def close(self) -> None:
        release, self._release = self._release, None
        if release is not None:
            try:
                getattr(self._messages, "close", lambda: None)()
            finally:
                release()
