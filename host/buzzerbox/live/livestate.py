"""The box's live stream (GET /api/events): the full state once, then deltas.

The box announces each change once (under its lock, so in order); the `LiveState` works it
out once for every phone: the public state (a viewer's, web/__init__.py `public`),
what changed since the last one as a JSON Patch (live/delta.py), and one message

    id: <log seq>.<version>.<boot>
    event: delta
    data: [{"op": "replace", "path": "/box/seq", "value": 42}, ...]

that every phone gets, admin or not (the admin flag never changes within a stream).
A stream starts with the full state

    id: <log seq>.<version>.<boot>
    event: state
    data: <the state object, as GET /api/state returns it>

and gets it again (a resync) when it fell behind further than the last `ring` deltas
(a phone asleep, a slow link). The id names the log seq first (what tools read), then
the stream's version and the boot token of this box: a browser that reconnects sends
it back as Last-Event-ID and gets the deltas since, if the box still has them, else
the full state (too old, or from before a restart).

A stream sends a keepalive every `keepalive_s` seconds when nothing else is sent

    event: keepalive
    data: <keepalive_s in ms>

(an event, not a comment: the page sees it, and shows "reconnecting" after two missed;
the first comes at once, so the page knows how often to expect them), ends after
`max_stream_s` (the browser reconnects by itself, with Last-Event-ID), and is refused
with 503 while
`max_clients` streams are open. Under waitress one thread writes every message to
every phone (fanout.py); elsewhere each stream's thread does (`stream`).
"""

from __future__ import annotations

import json
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from buzzerbox.live.delta import diff
from buzzerbox.live.sse import Clients, frame, is_number, keepalive_frame

#: view(state) -> the public state a viewer gets (a new dict: the LiveState keeps it)
View = Callable[[dict[str, Any]], dict[str, Any]]
#: full(view, is_admin) -> the `data:` JSON of the full state for a viewer or the admin
Full = Callable[[dict[str, Any], bool], str]


def dumps(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class LiveState(Clients):
    """The latest public state, the last `ring` deltas, and the streams waiting."""

    def __init__(self, view: View, full: Full, max_clients: int = 1000, ring: int = 64) -> None:
        super().__init__(max_clients)
        self.view = view
        self.full = full
        self.boot = secrets.token_hex(4)
        self._view: dict[str, Any] | None = None
        self._seq = 0
        self._version = 0
        self._ring: deque[tuple[int, bytes]] = deque(maxlen=ring)

    @property
    def version(self) -> int:
        return self._version

    def event_id(self, seq: int, version: int) -> str:
        return f"{seq}.{version}.{self.boot}"

    def version_of(self, last_event_id: str | None) -> int | None:
        """The version a Last-Event-ID names, if it is this box's (since its start)."""
        parts = (last_event_id or "").strip().split(".")
        if len(parts) != 3 or parts[2] != self.boot or not is_number(parts[1]):
            return None
        return int(parts[1])

    def publish(self, state: dict[str, Any]) -> None:
        """Called by the box after each change (under the box's lock, so in order)."""
        view = self.view(state)
        seq = int(state["box"]["seq"])
        delta = None if self._view is None else diff(self._view, view)  # one publisher
        if delta == []:
            return
        version = self._version + 1
        event_id = self.event_id(seq, version)
        message = None if delta is None else frame(event_id, dumps(delta), "delta")
        with self._cond:
            self._view, self._seq, self._version = view, seq, version
            if message is None:
                self._ring.clear()
            else:
                self._ring.append((version, message))
            self._cond.notify_all()

    def wait_newer(self, version: int, timeout: float) -> int:
        """The latest version, once it is newer than `version` or `timeout` s have passed."""
        with self._cond:
            if self._version <= version:
                self._cond.wait(timeout)
            return self._version

    def deltas(self, version: int, latest: int) -> bytes | None:
        """The delta messages from `version` to `latest` (the same for the admin and
        every viewer), or None when the ring no longer holds them all."""
        with self._cond:
            return self._since(version, latest)

    def _since(self, version: int, latest: int) -> bytes | None:
        """The deltas after `version` up to `latest`, or None when the ring no longer
        holds them all (the caller holds the lock)."""
        ring = self._ring
        if not ring or not ring[0][0] <= version + 1 <= latest <= ring[-1][0]:
            return None
        return b"".join(m for v, m in ring if version < v <= latest)

    def catch_up(self, version: int | None, is_admin: bool) -> tuple[int, bytes]:
        """(the latest version, what a stream at `version` needs to reach it): nothing,
        the deltas since, or the full state (`version` None, or older than the ring)."""
        with self._cond:
            latest, view, seq = self._version, self._view, self._seq
            if view is None or version == latest:
                return latest, b""
            if version is not None and (data := self._since(version, latest)) is not None:
                return latest, data
        return latest, frame(self.event_id(seq, latest), self.full(view, is_admin))


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


def stream(
    hub: LiveState,
    is_admin: bool,
    last_version: int | None,
    settings: StreamSettings,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[bytes]:
    """The messages of one stream, written by its own thread: the full state (or the
    deltas since `last_version`), then each change, until `max_stream_s` has passed."""
    version, data = hub.catch_up(last_version, is_admin)
    yield settings.head + data
    deadline = clock() + settings.max_stream_s
    while (left := deadline - clock()) > 0:
        if hub.wait_newer(version, min(settings.keepalive_s, left)) == version:
            yield settings.keepalive
            continue
        version, data = hub.catch_up(version, is_admin)
        yield data
