"""The live stream: GET /api/events, Server-Sent Events to every phone at the table.

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

import threading
import time
from collections.abc import Callable, Iterator
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


def frame(seq: int, data: str) -> bytes:
    return f"id: {seq}\nevent: state\ndata: {data}\n\n".encode()


class Hub:
    """The latest message, and the streams waiting for a newer one."""

    def __init__(self, render: Render, max_clients: int = 1000) -> None:
        self.render = render
        self.max_clients = max_clients
        self.clients = 0
        self._cond = threading.Condition()
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

    def join(self) -> bool:
        with self._cond:
            if self.clients >= self.max_clients:
                return False
            self.clients += 1
            return True

    def leave(self) -> None:
        with self._cond:
            self.clients -= 1


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


class Stream:
    """A stream's body: iterates the messages; `close` (called by the server when the
    phone goes, or the stream ends) gives its place back to the hub, once."""

    def __init__(self, hub: Hub, messages: Iterator[bytes]) -> None:
        self._hub = hub
        self._messages = messages
        self._open = True

    def __iter__(self) -> Iterator[bytes]:
        return self._messages

    def close(self) -> None:
        if self._open:
            self._open = False
            self._messages.close()  # type: ignore[attr-defined]
            self._hub.leave()
