"""The one live stream engine: `Stream`, what every screen is sent as Server-Sent Events.

A `Stream` keeps the latest `ring` messages, each under a version (and the id
`[<tag>.]<version>.<boot>`: a view's own tag, e.g. the box's log seq, then the
stream's version and the boot token of this process), and the streams waiting for the
next. A screen that reconnects with its Last-Event-ID gets the messages since, while the
ring holds them, else the whole thing again (`full`: the box's state, the hub's
board), never a queue that grows. The views per audience are apart: the box's phones'
(livestate.py `StateView`: the public state, then JSON Patch deltas) and the event's
hub (its leaderboard's updates, `Stream.publish`); a thread per stream writes it
(`Stream.messages`), or, under waitress, the fanout (fanout.py) writes every stream.

Every stream counts against `max_clients` (`Clients.join`/`leave`; the endpoint
refuses with 503 beyond it, so the server's threads never run out) and is handed to
the server as a `StreamBody`, whose `close` gives the place back, once. Each sends the
same keepalive (`keepalive_frame`), an event the page watches for.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any


def is_number(text: str) -> bool:
    """Digits int() takes, of a size a version has (no "²", no 5,000 digits)."""
    return text.isascii() and text.isdigit() and len(text) < 19


def frame(event_id: int | str, data: str, event: str = "state") -> bytes:
    return f"id: {event_id}\nevent: {event}\ndata: {data}\n\n".encode()


def keepalive_frame(keepalive_s: float) -> bytes:
    """`event: keepalive` (no id: the browser's Last-Event-ID stays), every `keepalive_s`:
    its data is how often it comes, in ms (the page's watchdog, static/keepalive.js, says
    "reconnecting" after two missed)."""
    return f"event: keepalive\ndata: {round(keepalive_s * 1000)}\n\n".encode()


class Clients:
    """The streams open at once, at most `max_clients`; its condition wakes them."""

    def __init__(self, max_clients: int) -> None:
        self.max_clients = max_clients
        self.clients = 0
        self._cond = threading.Condition()

    def join(self, reserve: int = 0) -> bool:
        """Take a place; `reserve` places beyond `max_clients` are kept for the admin."""
        with self._cond:
            if self.clients >= self.max_clients + reserve:
                return False
            self.clients += 1
            return True

    def leave(self) -> None:
        with self._cond:
            self.clients -= 1


Update = tuple[str, Any]


def json_frame(event_id: int | str, kind: str, data: Any) -> bytes:
    return frame(event_id, json.dumps(data, ensure_ascii=False, separators=(",", ":")), kind)


#: full(latest, is_admin) -> the `data:` JSON of the whole thing for a stream starting
#: now (None: nothing to show yet); `latest` is what the view last pushed
Full = Callable[[Any, bool], str | None]


@dataclass(frozen=True, slots=True)
class StreamSettings:
    keepalive_s: float = 2.0
    max_stream_s: float = 600.0
    retry_ms: int = 2000

    @property
    def keepalive(self) -> bytes:
        """The keepalive message: its data is how often it comes, in ms."""
        return keepalive_frame(self.keepalive_s)

    @property
    def head(self) -> bytes:
        """What a stream starts with: the browser's retry delay, and a keepalive."""
        return f"retry: {self.retry_ms}\n\n".encode() + self.keepalive


class Stream(Clients):
    """The latest messages of one live stream (a ring), their versions, and the streams
    waiting for the next; the whole thing (`full`, sent as `full_kind`) for a stream
    that starts or fell behind the ring."""

    def __init__(
        self, full: Full, *, full_kind: str = "state", max_clients: int = 1000, ring: int = 64
    ) -> None:
        super().__init__(max_clients)
        self.full = full
        self.full_kind = full_kind
        self.boot = secrets.token_hex(4)
        self._version = 0
        self._tag: object = None
        self._latest: Any = None
        self._ring: deque[tuple[int, bytes]] = deque(maxlen=ring)
        self._bells: list[Callable[[], None]] = []

    @property
    def version(self) -> int:
        return self._version

    def listen(self, ring: Callable[[], None]) -> None:
        """Call `ring` on every new version, after it is the stream's (a fanout sender's
        `Bell`: it waits on its phones' sockets and this, not on `wait_newer`)."""
        with self._cond:
            self._bells.append(ring)

    def _news(self) -> None:
        self._cond.notify_all()
        for ring in self._bells:
            ring()

    def event_id(self, version: int, tag: object = None) -> str:
        return f"{version}.{self.boot}" if tag is None else f"{tag}.{version}.{self.boot}"

    def version_of(self, last_event_id: str | None) -> int | None:
        """The version a Last-Event-ID names, if it is this stream's (since its start)."""
        parts = (last_event_id or "").strip().split(".")
        if len(parts) not in (2, 3) or parts[-1] != self.boot or not is_number(parts[-2]):
            return None
        return int(parts[-2])

    def push(self, kind: str | None, data: str, latest: Any = None, tag: object = None) -> None:
        """The next version: a message of `kind` (None: none, the ring starts again and a
        stream behind gets `full`); `latest` is what `full` is made of from now on."""
        with self._cond:
            self._push(kind, data, latest, tag)
            self._news()

    def _push(self, kind: str | None, data: str, latest: Any, tag: object) -> None:
        version = self._version + 1
        self._version, self._tag, self._latest = version, tag, latest
        if kind is None:
            self._ring.clear()
        else:
            self._ring.append((version, frame(self.event_id(version, tag), data, kind)))

    def publish(self, updates: list[Update]) -> None:
        """Each update as a message of its own (the hub's: `event: table`, `race`, ...)."""
        if not updates:
            return
        with self._cond:
            for kind, data in updates:
                self._push(
                    kind, json.dumps(data, ensure_ascii=False, separators=(",", ":")), None, None
                )
            self._news()

    def wait_newer(self, version: int, timeout: float) -> int:
        """The latest version, once it is newer than `version` or `timeout` s have passed."""
        with self._cond:
            if self._version <= version:
                self._cond.wait(timeout)
            return self._version

    def deltas(self, version: int, latest: int) -> bytes | None:
        """The messages from `version` to `latest` (the same for every screen), or None
        when the ring no longer holds them all."""
        with self._cond:
            return self._since(version, latest)

    def _since(self, version: int, latest: int) -> bytes | None:
        ring = self._ring
        if not ring or not ring[0][0] <= version + 1 <= latest <= ring[-1][0]:
            return None
        return b"".join(m for v, m in ring if version < v <= latest)

    def catch_up(self, version: int | None, is_admin: bool) -> tuple[int, bytes]:
        """(the latest version, what a stream at `version` needs to reach it): nothing,
        the messages since, or the whole thing (`version` None, or older than the ring)."""
        with self._cond:
            latest, tag, current = self._version, self._tag, self._latest
            if version == latest:
                return latest, b""
            if version is not None and (data := self._since(version, latest)) is not None:
                return latest, data
        whole = self.full(current, is_admin)
        if whole is None:
            return latest, b""
        return latest, frame(self.event_id(latest, tag), whole, self.full_kind)

    def messages(
        self,
        is_admin: bool,
        last_version: int | None,
        settings: StreamSettings,
        clock: Callable[[], float] = time.monotonic,
    ) -> Generator[bytes, None, None]:
        """The messages of one stream, written by its own thread: the whole thing (or the
        messages since `last_version`), then each change, until `max_stream_s` has passed."""
        version, data = self.catch_up(last_version, is_admin)
        yield settings.head + data
        deadline = clock() + settings.max_stream_s
        while (left := deadline - clock()) > 0:
            if self.wait_newer(version, min(settings.keepalive_s, left)) == version:
                yield settings.keepalive
                continue
            version, data = self.catch_up(version, is_admin)
            yield data


class StreamBody:
    """A stream's response body: its messages; `close` (called by the server when the
    phone or screen goes, or the stream ends, started or not) gives its place back, once."""

    def __init__(self, clients: Clients, messages: Iterator[bytes]) -> None:
        self._clients = clients
        self._messages = messages
        self._open = True

    def __iter__(self) -> Iterator[bytes]:
        return self._messages

    def close(self) -> None:
        if self._open:
            self._open = False
            self._messages.close()  # type: ignore[attr-defined]
            self._clients.leave()
