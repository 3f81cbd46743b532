"""The connection-level defences of the box's and the hub's server (waitress).

A guest on the Wi-Fi must not be able to take the server down by opening
connections and sending nothing, or a byte every few seconds ("slowloris"), nor
by holding every live-stream slot, nor by holding uploads open. So:

- a request's head (request line and headers) must arrive within `head_s` of its
  first byte (of the connection's opening, for the first request); its body within
  `body_s` plus its size at `min_rate` bytes/s (a chunked one's size: the most its
  endpoint takes, so a stalled one is cut as a sized one is); a kept-alive connection waits
  `idle_s` at most for its next request. Late ones are closed (checked each second).
- one address (an IPv6 /64 counts as one) holds at most `per_address` connections
  and `streams_per_address` live streams, and opens at most `opens_burst`
  connections in a row, then `opens_per_s` a second (door.py). The server accepts
  every connection waiting in one turn of its loop and refuses those over these
  caps before it builds anything for them (one write, then close); on Linux the
  kernel hands it no connection before its first byte (TCP_DEFER_ACCEPT, up to
  `head_s`), so one that sends nothing costs the server nothing.
- heads and bodies are read into memory (never a temporary file) and what every
  unfinished request holds counts against one budget, `held_bytes` for the whole
  server (held.py): over it, the address holding the most gives way (503), never a
  phone's request that came at once; the admin's import never gives way and is
  refused (503) if it does not fit.
- a body over its endpoint's size (`body_limit`: the app sets it, see limits.py) is
  answered 413 when its head has arrived, before the body is read; a chunked one as
  soon as it passes the size.
- the server accepts `lane` connections beyond its limit. When it is over the
  limit, each new connection closes the oldest one that has waited `evict_after_s`
  or more for a request (the slow ones); if there is none, the new connection is
  a *lane* connection: only an admin's requests are served on it (`is_lane`; the
  app answers the rest with 503). So a logged-in admin is served at the cap.

`Guard.install(server, limit)` puts this into a waitress server (server.py does);
the live streams' places are streams.py's.
This uses waitress internals (pinned in pyproject): HTTPChannel, its `request`
parser, `requests`, `last_activity`, and the server's `maintenance`, `handle_accept`
(replaced: its accept, socket options and channel, as waitress's own), `socket`
and `_map`.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from waitress.channel import HTTPChannel

from buzzerbox.errors import Words
from buzzerbox.i18n import say
from buzzerbox.server.address import UNCAPPED, address_key
from buzzerbox.server.door import Door, accept_all, defer_accept
from buzzerbox.server.held import SMALL_BODY, Budget
from buzzerbox.server.language import header_language
from buzzerbox.server.limits import too_large

log = logging.getLogger(__name__)
#: how often the guard says what it dropped (s)
REPORT_S = 60.0

#: an address holding more connections than this evicts no one for its new ones
EVICTING_SHARE = 4

#: the answer to a connection refused before it is served
REFUSAL = (
    b"HTTP/1.1 %s\r\nContent-Type: application/json\r\n"
    b"Retry-After: 5\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s"
)


@dataclass(frozen=True, slots=True)
class Limits:
    head_s: float = 10.0
    idle_s: float = 30.0
    body_s: float = 10.0
    min_rate: int = 32 * 1024
    per_address: int = 32
    opens_per_s: float = 2.0
    #: a phone's first two pages open 14-15 connections over a real link (Chromium's
    #: six at once, each page: tests/net); 32 refused the fourth device behind one
    #: address (a household's NAT, a laptop with the table and the TV) in CI
    opens_burst: int = 64
    streams_per_address: int = 8
    lane: int = 64
    evict_after_s: float = 2.0
    held_bytes: int = 32 * 1024 * 1024
    max_body: int = 4 * 1024 * 1024 + 64 * 1024


STATUS = {503: b"503 Service Unavailable", 413: b"413 Content Too Large"}

#: body_limit(path, cookie header) -> (what the endpoint takes, the most bytes)
BodyLimit = Callable[[str, str], tuple[Words, int]]


def refusal(message: str, status: int = 503, code: str | None = None) -> bytes:
    body = json.dumps({"error": message} | ({"code": code} if code else {})).encode()
    return REFUSAL % (STATUS[status], len(body), body)


class Guard:
    """The defences of one server: per-address counts, deadlines, the admin's lane."""

    def __init__(self, limits: Limits | None = None, clock: Callable[[], float] = time.monotonic):
        self.limits = limits or Limits()
        self.clock = clock
        self.limit = 0  # the server's connection limit (install sets it)
        self.open = 0
        self.budget = Budget(self.limits.held_bytes)
        self.door = Door(self.limits.opens_per_s, self.limits.opens_burst, clock)
        self.dropped = {
            "slow": 0, "address": 0, "opens": 0, "evicted": 0, "held": 0, "bodies": 0,
            "size": 0,
        }  # fmt: skip
        self.body_limit: BodyLimit | None = None  # the app's sizes per endpoint
        self._connections: dict[str, int] = {}
        self._lock = threading.Lock()
        self._victims: list[tuple[float, Any]] = []  # (since, channel) waiting, oldest last
        self._reported = (dict(self.dropped), self.clock())

    # -- the server ------------------------------------------------------------------

    def install(self, server: Any, limit: int) -> None:
        """Guard a waitress server whose connection limit is `limit` (plus the lane)."""
        self.limit = limit
        server.channel_class = self.channel_class()
        defer_accept(server.socket, self.limits.head_s)
        original = server.maintenance

        def maintenance(now: float) -> None:
            original(now)
            self.sweep(list(server.active_channels.values()))
            self.door.forget_rested()

        server.maintenance = maintenance
        server.handle_accept = lambda: accept_all(server, self.at_door)

    def at_door(self, host: str) -> bytes | None:
        """The refusal for a connection from `host` over its address's caps (None:
        welcome): it holds its share of connections, or opens them too fast (door.py).
        No request has come, so no language but the API's English."""
        address = address_key(host)
        if address in UNCAPPED:
            return None
        if self._connections.get(address, 0) >= self.limits.per_address:
            self.dropped["address"] += 1
            return refusal("too many connections from one address: close some and retry")
        if not self.door.may_open(address):
            self.dropped["opens"] += 1
            return refusal("too many new connections from one address: retry in a moment")
        return None

    def channel_class(self) -> type[HTTPChannel]:
        guard = self

        class GuardedChannel(HTTPChannel):
            def __init__(self, server: Any, sock: Any, addr: Any, adj: Any, map: Any = None):
                self.address = address_key(str(addr[0]) if addr else "")
                self.is_lane = False
                self.opened_at = guard.clock()
                self.started_at: float | None = None
                self.tracked: Any = None
                self.held = 0
                self.body_most: tuple[str, int] | None = None
                self.counted = False
                super().__init__(server, sock, addr, adj, map)
                guard.opened(self)

            def received(self, data: bytes) -> bool:
                result: bool = super().received(data)
                guard.progress(self)
                return result

            def del_channel(self, map: Any = None) -> None:
                guard.closed(self)
                super().del_channel(map)

        return GuardedChannel

    def opened(self, channel: Any) -> None:
        with self._lock:
            count = self._connections.get(channel.address, 0) + 1
            self._connections[channel.address] = count
            self.open += 1
            channel.counted = True
        if self.limit and self.open > self.limit:
            # an address that holds many already evicts no one: its new connection is
            # a lane one (evicting its own old ones would only make it spin)
            crowded = count > EVICTING_SHARE and channel.address not in UNCAPPED
            if crowded or not self.evict_one():
                channel.is_lane = True

    def closed(self, channel: Any) -> None:
        with self._lock:
            if not getattr(channel, "counted", False):
                return
            channel.counted = False
            self.open -= 1
            left = self._connections.get(channel.address, 1) - 1
            if left > 0:
                self._connections[channel.address] = left
            else:
                self._connections.pop(channel.address, None)
            self.budget.hold(channel, 0)

    def refuse(
        self, channel: Any, message: str, status: int = 503, code: str | None = None
    ) -> None:
        """Answer `status` with `message` and close, without serving a request."""
        channel.will_close = False
        try:
            channel.write_soon(refusal(message, status, code))
        except Exception:  # the client is gone already
            channel.will_close = True
            return
        channel.close_when_flushed = True

    def progress(self, channel: Any) -> None:
        """After bytes arrived: note when a request started; count what it holds."""
        request = channel.request
        if request is None:  # the app has it (or none began)
            channel.started_at = None
            channel.tracked = None
            self.hold(channel, 0)
            return
        if request is not channel.tracked:
            channel.tracked = request
            channel.started_at = self.clock()
            channel.body_most = None
            self.hold(channel, 0)
        if not request.headers_finished:
            self.hold(channel, int(request.header_bytes_received))
        elif not request.completed and not self.over_size(channel):
            size = self.limits.max_body if request.chunked else int(request.content_length)
            if channel.body_most is not None and request.chunked:
                size = channel.body_most[1]
            head = int(request.header_bytes_received)
            self.hold(channel, head + size, upload=size > SMALL_BODY)

    def hold(self, channel: Any, size: int, *, upload: bool = False) -> None:
        """`channel` holds `size` bytes before the app runs: those that must give way
        for the budget are answered 503 and closed (held.py)."""
        if size == channel.held:
            return
        with self._lock:
            gone = self.budget.hold(channel, size, upload=upload)
        for victim in gone:
            headers = victim.request.headers if victim.request is not None else {}
            victim.request = None
            if victim is channel and upload:
                self.dropped["bodies"] += 1
                words = Words("the box is receiving too many uploads now: retry soon")
                code = "too-many-uploads"
            else:
                self.dropped["held"] += 1
                self.door.charge(victim.address)
                words = Words("the box is receiving too much at once: retry soon")
                code = "box-busy"
            self.refuse(victim, say(words, header_language(headers)), code=code)

    def over_size(self, channel: Any) -> bool:
        """Refuse (413) a request whose body is over its endpoint's size: its declared
        length when its head has come, a chunked one's bytes so far."""
        request = channel.request
        if self.body_limit is None:
            return False
        if channel.body_most is None:
            cookie = str(request.headers.get("COOKIE", ""))
            channel.body_most = self.body_limit(str(request.path), cookie)
        what, most = channel.body_most
        sent = int(request.body_bytes_received if request.chunked else request.content_length)
        if sent <= most:
            return False
        self.dropped["size"] += 1
        said = say(too_large(what, most, sent), header_language(request.headers))
        channel.request = None
        self.hold(channel, 0)
        self.refuse(channel, said, 413, code="too-large")
        return True

    def deadline(self, channel: Any) -> float | None:
        """When `channel` must have finished what it is sending (None: no limit now)."""
        limits = self.limits
        request = channel.request
        if request is not None and channel.started_at is not None:
            if not request.headers_finished:
                return float(channel.started_at + limits.head_s)
            size = int(request.content_length or limits.max_body)
            if request.chunked and channel.body_most is not None:  # as a sized body's most
                size = channel.body_most[1]
            return float(channel.started_at + limits.body_s + size / limits.min_rate)
        if channel.requests:
            return None  # being answered (a stream, a slow reader): not a slow sender
        if channel.started_at is None and channel.last_activity <= channel.creation_time:
            return float(channel.opened_at + limits.head_s)  # not a byte since it opened
        return None  # kept alive between requests: waitress's channel_timeout (idle_s)

    def sweep(self, channels: list[Any]) -> None:
        """Close the channels past their deadline; list the rest that wait, for eviction."""
        now = self.clock()
        waiting: list[tuple[float, Any]] = []
        for channel in channels:
            if not hasattr(channel, "opened_at") or channel.will_close:
                continue
            due = self.deadline(channel)
            if due is not None and now > due:
                self.dropped["slow"] += 1
                self.door.charge(channel.address)
                channel.will_close = True
            elif not channel.requests:
                waiting.append((channel.started_at or channel.opened_at, channel))
        waiting.sort(key=lambda pair: pair[0], reverse=True)
        self._victims = waiting
        while self.limit and self.open > self.limit + self.limits.lane and self.evict_one():
            pass
        before, at = self._reported
        if now - at >= REPORT_S:
            if self.dropped != before:
                news = {k: v - before[k] for k, v in self.dropped.items() if v != before[k]}
                log.warning("connections dropped in the last minute: %s", news)
            self._reported = (dict(self.dropped), now)

    def evict_one(self) -> bool:
        """Close the connection that has waited longest for a request, if it has waited
        `evict_after_s`; False if there is none (then a new connection takes the lane:
        evicting young ones would only make a reconnecting attacker spin)."""
        while self._victims:
            since, channel = self._victims[-1]
            if self.clock() - since < self.limits.evict_after_s:
                return False
            self._victims.pop()
            if channel.connected and not channel.requests and not channel.will_close:
                self.dropped["evicted"] += 1
                channel.handle_close()
                return True
        return False

    # -- the app ----------------------------------------------------------------------


def channel_of(environ: dict[str, Any]) -> Any | None:
    """The waitress channel serving this request (None on another server)."""
    probe = environ.get("waitress.client_disconnected")
    return getattr(probe, "__self__", None)


def is_lane(environ: dict[str, Any]) -> bool:
    """Whether this request came on a connection of the admin's lane."""
    return bool(getattr(channel_of(environ), "is_lane", False))
