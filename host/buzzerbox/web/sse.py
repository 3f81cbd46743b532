"""Server-Sent Events, for the box (`Hub`: GET /api/events, the state to every phone)
and for the event's hub (`Live`: the leaderboard to every screen).

Both count their open streams against `max_clients` (`Clients.join`/`leave`; the
endpoint refuses with 503 beyond it, so the server's threads never run out), and
both hand the server a `Stream` whose `close` gives the place back, once.

The box's stream:

The box announces each change once; the `Hub` renders it once (one message for
viewers, one for the admin) and wakes every stream waiting for it. A stream that
falls behind (a phone asleep, a slow link) skips to the latest state: there is one
message waiting at most per stream, never a queue. Each message is

    id: <log seq>
    event: state
    data: <the state object, as GET /api/state returns it>

A stream starts with the full state, unless its Last-Event-ID names the current seq;
it sends a comment every `keepalive_s` seconds, ends after `max_stream_s` (the
browser reconnects by itself, with Last-Event-ID) and is refused with 503 while
`max_clients` streams are open, so the server's threads never run out.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any

#: render(state, is_admin) -> the `data:` JSON of a message
Render = Callable[[dict[str, Any], bool], str]


@dataclass(frozen=True, slots=True)
class Message:
    version: int
    seq: int
    viewer: bytes
    admin: bytes

    def for_(self, is_admin: bool) -> bytes:
        return self.admin if is_admin else self.viewer


def frame(seq: int, data: str, event: str = "state") -> bytes:
    return f"id: {seq}\nevent: {event}\ndata: {data}\n\n".encode()


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


class Hub(Clients):
    """The latest message, and the streams waiting for a newer one."""

    def __init__(self, render: Render, max_clients: int = 1000) -> None:
        super().__init__(max_clients)
        self.render = render
        self._latest = Message(0, 0, b"", b"")

    def publish(self, state: dict[str, Any]) -> None:
        """Called by the box after each change (under the box's lock, so in order)."""
        seq = int(state["box"]["seq"])
        viewer = frame(seq, self.render(state, False))
        admin = frame(seq, self.render(state, True))
        with self._cond:
            self._latest = Message(self._latest.version + 1, seq, viewer, admin)
            self._cond.notify_all()

    @property
    def latest(self) -> Message:
        return self._latest

    def wait_newer(self, version: int, timeout: float) -> Message | None:
        """The latest message if it is newer than `version`, waiting up to `timeout` s."""
        with self._cond:
            if self._latest.version <= version:
                self._cond.wait(timeout)
            latest = self._latest
        return latest if latest.version > version else None


@dataclass(frozen=True, slots=True)
class StreamSettings:
    keepalive_s: float = 15.0
    max_stream_s: float = 600.0
    retry_ms: int = 2000


def stream(
    hub: Hub,
    first: Callable[[bool], tuple[int, str]],
    is_admin: bool,
    last_id: int | None,
    settings: StreamSettings,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[bytes]:
    """The messages of one stream; `first(is_admin)` renders the state now (seq, data)."""
    version = hub.latest.version
    seq, data = first(is_admin)
    head = f"retry: {settings.retry_ms}\n\n".encode()
    yield head if last_id == seq else head + frame(seq, data)
    deadline = clock() + settings.max_stream_s
    while (left := deadline - clock()) > 0:
        message = hub.wait_newer(version, min(settings.keepalive_s, left))
        if message is None:
            yield b": keepalive\n\n"
            continue
        version = message.version
        yield message.for_(is_admin)


Update = tuple[str, Any]


def json_frame(version: int, kind: str, data: Any) -> bytes:
    return frame(version, json.dumps(data, ensure_ascii=False, separators=(",", ":")), kind)


class Live(Clients):
    """The hub's stream: the latest updates, and the screens waiting for them.

    A stream starts with the whole board (`event: board`), then gets each update as
    it comes (`event: table`, `race` or `tournament`; each replaces the thing it
    names). The last `ring` updates are kept; a screen that fell further behind gets
    the whole board again instead, never a queue that grows.
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

    @property
    def version(self) -> int:
        return self._version

    def publish(self, updates: list[Update]) -> None:
        """Called for each board change, by one thread (the subscriber's), in order."""
        if not updates:
            return
        with self._cond:
            for kind, data in updates:
                self._version += 1
                self._ring.append((self._version, json_frame(self._version, kind, data)))
            self._cond.notify_all()

    def _next(self, version: int, timeout: float) -> tuple[int, bytes | None, bool]:
        """(new version, the frames since `version` or None, whether to resend all)."""
        with self._cond:
            if self._version == version:
                self._cond.wait(timeout)
            latest = self._version
            if latest == version:
                return version, None, False
            if not self._ring or self._ring[0][0] > version + 1:
                return latest, None, True
            return latest, b"".join(f for v, f in self._ring if v > version), False

    def stream(
        self,
        keepalive_s: float = 15.0,
        max_stream_s: float = 600.0,
        retry_ms: int = 2000,
        clock: Callable[[], float] = time.monotonic,
    ) -> Generator[bytes, None, None]:
        """The frames of one screen's stream, until `max_stream_s` has passed."""
        version = self._version
        yield f"retry: {retry_ms}\n\n".encode() + json_frame(version, "board", self.snapshot())
        deadline = clock() + max_stream_s
        while (left := deadline - clock()) > 0:
            version, frames, resend = self._next(version, min(keepalive_s, left))
            if resend:
                yield json_frame(version, "board", self.snapshot())
            elif frames is None:
                yield b": keepalive\n\n"
            else:
                yield frames


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
