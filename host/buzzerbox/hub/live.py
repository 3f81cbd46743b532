"""The hub's live stream: Server-Sent Events from the board to every screen.

A stream starts with the whole board (`event: board`), then gets each update as it
comes (`event: table`, `race` or `tournament`; each replaces the thing it names, so
the page just draws it). The last `ring` updates are kept; a screen that fell
further behind (asleep, a slow link) gets the whole board again instead, never a
queue that grows. A comment every `keepalive_s` keeps the line open; a stream ends
after `max_stream_s` and the browser reconnects by itself.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterator
from typing import Any

Update = tuple[str, Any]


def frame(version: int, kind: str, data: Any) -> bytes:
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"id: {version}\nevent: {kind}\ndata: {body}\n\n".encode("utf-8", "replace")


class Live:
    """The latest updates, and the streams waiting for them."""

    def __init__(
        self,
        snapshot: Callable[[], dict[str, Any]],
        *,
        ring: int = 256,
        max_clients: int = 100,
    ) -> None:
        self.snapshot = snapshot
        self.max_clients = max_clients
        self.clients = 0
        self._cond = threading.Condition()
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
                self._ring.append((self._version, frame(self._version, kind, data)))
            self._cond.notify_all()

    def join(self) -> bool:
        with self._cond:
            if self.clients >= self.max_clients:
                return False
            self.clients += 1
            return True

    def leave(self) -> None:
        with self._cond:
            self.clients -= 1

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
        yield f"retry: {retry_ms}\n\n".encode() + frame(version, "board", self.snapshot())
        deadline = clock() + max_stream_s
        while (left := deadline - clock()) > 0:
            version, frames, resend = self._next(version, min(keepalive_s, left))
            if resend:
                yield frame(version, "board", self.snapshot())
            elif frames is None:
                yield b": keepalive\n\n"
            else:
                yield frames


class Stream:
    """A stream's response body: its frames; `close` (called by the server when the
    screen goes or the stream ends, started or not) gives its place back, once."""

    def __init__(self, live: Live, frames: Generator[bytes, None, None]) -> None:
        self._live = live
        self._frames = frames
        self._open = True

    def __iter__(self) -> Iterator[bytes]:
        return self._frames

    def close(self) -> None:
        if self._open:
            self._open = False
            self._frames.close()
            self._live.leave()
