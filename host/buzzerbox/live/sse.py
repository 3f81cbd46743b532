"""Server-Sent Events: what the box's stream (livestate.py: `LiveState`, GET /api/events,
the state to every phone) and the event's hub (`Live`: the leaderboard to every
screen) share, and `Live` itself.

Both count their open streams against `max_clients` (`Clients.join`/`leave`; the
endpoint refuses with 503 beyond it, so the server's threads never run out), and
both hand the server a `Stream` whose `close` gives the place back, once. Both send
the same keepalive (`keepalive_frame`), an event the page watches for.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterator
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


class Live(Clients):
    """The hub's stream: the latest updates, and the screens waiting for them.

    A stream starts with the whole board (`event: board`), then gets each update as
    it comes (`event: table`, `race` or `tournament`; each replaces the thing it
    names). A keepalive (`keepalive_frame`) comes with the board, and again whenever
    nothing else was sent for `keepalive_s`. The last `ring` updates are kept; a screen
    that fell further behind gets the whole board again instead, never a queue that
    grows. Each frame's id is `<version>.<boot>`: a screen that reconnects with it as
    Last-Event-ID gets the updates since, while the ring still holds them, not the
    whole board.
    """

    def __init__(
        self,
        snapshot: Callable[[], dict[str, Any]],
        *,
        ring: int = 256,
        max_clients: int = 100,
    ) -> None:
        super().__init__(max_clients)
        self.snapshot = snapshot
        self._ring: deque[tuple[int, bytes]] = deque(maxlen=ring)
        self._version = 0
        self.boot = secrets.token_hex(4)

    @property
    def version(self) -> int:
        return self._version

    def version_of(self, last_event_id: str | None) -> int | None:
        """The version a Last-Event-ID names, if it is this hub's (since its start)."""
        version, _, boot = (last_event_id or "").strip().partition(".")
        return int(version) if boot == self.boot and is_number(version) else None

    def publish(self, updates: list[Update]) -> None:
        """Called for each board change, by one thread (the subscriber's), in order."""
        if not updates:
            return
        with self._cond:
            for kind, data in updates:
                self._version += 1
                event_id = f"{self._version}.{self.boot}"
                self._ring.append((self._version, json_frame(event_id, kind, data)))
            self._cond.notify_all()

    def _next(self, version: int, timeout: float) -> tuple[int, bytes | None, bool]:
        """(new version, the frames since `version` or None, whether to resend all)."""
        with self._cond:
            if self._version == version:
                self._cond.wait(timeout)
            latest = self._version
            if latest == version:
                return version, None, False
            if not self._ring or self._ring[0][0] > version + 1 or version > latest:
                return latest, None, True
            since = []  # the newest first, back to `version`: not the whole ring each time
            for v, f in reversed(self._ring):
                if v <= version:
                    break
                since.append(f)
            return latest, b"".join(reversed(since)), False

    def stream(
        self,
        keepalive_s: float = 2.0,
        max_stream_s: float = 600.0,
        retry_ms: int = 2000,
        clock: Callable[[], float] = time.monotonic,
        last_version: int | None = None,
    ) -> Generator[bytes, None, None]:
        """The frames of one screen's stream, until `max_stream_s` has passed: the whole
        board, or the updates since `last_version` (its Last-Event-ID) if still held."""
        keepalive = keepalive_frame(keepalive_s)
        head = f"retry: {retry_ms}\n\n".encode() + keepalive
        version, frames, resend = self._next(-1 if last_version is None else last_version, 0)
        if last_version is None or resend:
            yield head + self._board(version)
        else:
            yield head + (frames or b"")
        deadline = clock() + max_stream_s
        while (left := deadline - clock()) > 0:
            version, frames, resend = self._next(version, min(keepalive_s, left))
            if resend:
                yield self._board(version)
            elif frames is None:
                yield keepalive
            else:
                yield frames

    def _board(self, version: int) -> bytes:
        return json_frame(f"{version}.{self.boot}", "board", self.snapshot())


class Stream:
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
