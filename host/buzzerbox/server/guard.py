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
  and `streams_per_address` live streams.
- bodies are read into memory (never a temporary file); those over 64 KiB (the
  uploads) at most `bodies_bytes` at once over all connections: an upload beyond
  that is refused with 503, a table entry never.
- a body over its endpoint's size (`body_limit`: the app sets it, see limits.py) is
  answered 413 when its head has arrived, before the body is read; a chunked one as
  soon as it passes the size.
- the server accepts `lane` connections beyond its limit. When it is over the
  limit, each new connection closes the oldest one that has waited `evict_after_s`
  or more for a request (the slow ones); if there is none, the new connection is
  a *lane* connection: only an admin's requests are served on it (`is_lane`; the
  app answers the rest with 503). So a logged-in admin is served at the cap.

`Guard.install(server, limit)` puts this into a waitress server (server.py does);
the app asks `take_stream`/`give_stream` for the per-address stream slots.
This uses waitress internals (pinned in pyproject): HTTPChannel, its `request`
parser, `requests`, `last_activity`, and the server's `maintenance`, `handle_accept`
and `_map`.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from waitress.channel import HTTPChannel

from buzzerbox.errors import Words
from buzzerbox.i18n import say
from buzzerbox.server.language import header_language
from buzzerbox.server.limits import too_large

log = logging.getLogger(__name__)
#: how often the guard says what it dropped (s)
REPORT_S = 60.0
#: live streams kept beyond --max-phones (the hub: --max-screens) for the admin's own
ADMIN_STREAMS = 8

#: an address holding more connections than this evicts no one for its new ones
EVICTING_SHARE = 4

#: connections accepted at most in one turn of the server's loop
ACCEPT_BURST = 256

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
    streams_per_address: int = 8
    lane: int = 64
    evict_after_s: float = 2.0
    bodies_bytes: int = 64 * 1024 * 1024
    max_body: int = 4 * 1024 * 1024 + 64 * 1024


def address_key(host: str) -> str:
    """Who a client is, for the per-address caps: its IPv4 address, or its IPv6 /64."""
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return "::1" if ip.is_loopback else str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


#: bodies this small are not counted against `bodies_bytes` (the connections' own
#: caps bound them), so uploads held open never stop the table's entries
SMALL_BODY = 64 * 1024

#: the box's own machine (its kiosk screen, the tests) is not capped per address
UNCAPPED = frozenset({"127.0.0.1", "::1"})


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
        self.body_bytes = 0
        self.dropped = {"slow": 0, "address": 0, "evicted": 0, "bodies": 0, "size": 0}
        self.body_limit: BodyLimit | None = None  # the app's sizes per endpoint
        self._connections: dict[str, int] = {}
        self._streams: dict[str, int] = {}
        self._lock = threading.Lock()
        self._victims: list[tuple[float, Any]] = []  # (since, channel) waiting, oldest last
        self._reported = (dict(self.dropped), self.clock())

    # -- the server ------------------------------------------------------------------

    def install(self, server: Any, limit: int) -> None:
        """Guard a waitress server whose connection limit is `limit` (plus the lane)."""
        self.limit = limit
        server.channel_class = self.channel_class()
        original = server.maintenance

        def maintenance(now: float) -> None:
            original(now)
            self.sweep(list(server.active_channels.values()))

        server.maintenance = maintenance
        accept_one = server.handle_accept

        def handle_accept() -> None:
            """Accept what waits, up to ACCEPT_BURST, not one a loop: a loop over
            thousands of silent connections is slow, and the admin's waits behind the
            ones reconnecting (issue 28, item 6)."""
            for _ in range(ACCEPT_BURST):
                before = len(server._map)
                accept_one()
                if len(server._map) == before:
                    return  # none waiting (or one that failed)

        server.handle_accept = handle_accept

    def channel_class(self) -> type[HTTPChannel]:
        guard = self

        class GuardedChannel(HTTPChannel):
            def __init__(self, server: Any, sock: Any, addr: Any, adj: Any, map: Any = None):
                self.address = address_key(str(addr[0]) if addr else "")
                self.is_lane = False
                self.opened_at = guard.clock()
                self.started_at: float | None = None
                self.tracked: Any = None
                self.body_held = 0
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
        if count > self.limits.per_address and channel.address not in UNCAPPED:
            self.dropped["address"] += 1
            # no request yet, so no language but the API's English
            self.refuse(channel, "too many connections from one address: close some and retry")
            return
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
        self.release_body(channel)

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
        """After bytes arrived: note when a request started; count its body's memory."""
        request = channel.request
        if request is None:
            channel.started_at = None
            channel.tracked = None
            self.release_body(channel)
            return
        if request is not channel.tracked:
            channel.tracked = request
            channel.started_at = self.clock()
            channel.body_most = None
            self.release_body(channel)
        if request.headers_finished and not request.completed and self.over_size(channel):
            return
        if request.headers_finished and not channel.body_held and not request.completed:
            size = self.limits.max_body if request.chunked else int(request.content_length)
            if size <= SMALL_BODY:
                return  # a table entry or a login: never held back by uploads
            with self._lock:
                fits = self.body_bytes + size <= self.limits.bodies_bytes
                if fits:
                    self.body_bytes += size
                    channel.body_held = size
            if not fits:
                self.dropped["bodies"] += 1
                words = Words("the box is receiving too many uploads now: retry soon")
                said = say(words, header_language(request.headers))
                channel.request = None
                self.refuse(channel, said, code="too-many-uploads")

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
        self.release_body(channel)
        self.refuse(channel, said, 413, code="too-large")
        return True

    def release_body(self, channel: Any) -> None:
        with self._lock:
            self.body_bytes -= channel.body_held
            channel.body_held = 0

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

    def take_stream(self, host: str) -> bool:
        """A live-stream slot for this address; False when it holds its share."""
        key = address_key(host)
        with self._lock:
            held = self._streams.get(key, 0)
            if held >= self.limits.streams_per_address and key not in UNCAPPED:
                return False
            self._streams[key] = held + 1
            return True

    def give_stream(self, host: str) -> None:
        key = address_key(host)
        with self._lock:
            left = self._streams.get(key, 1) - 1
            if left > 0:
                self._streams[key] = left
            else:
                self._streams.pop(key, None)


def channel_of(environ: dict[str, Any]) -> Any | None:
    """The waitress channel serving this request (None on another server)."""
    probe = environ.get("waitress.client_disconnected")
    return getattr(probe, "__self__", None)


def is_lane(environ: dict[str, Any]) -> bool:
    """Whether this request came on a connection of the admin's lane."""
    return bool(getattr(channel_of(environ), "is_lane", False))


class Slotted:
    """A stream's messages that give the address's stream slot back when closed, once
    (also when the stream never started: the server closes it all the same)."""

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
