"""A view of a live stream that sends the whole thing, then each update: the event's hub.

A screen that starts (or fell behind the ring) gets `snapshot()` whole (`event: board`),
then each update as it comes (`event: table`, `race`, `tournament`: each replaces the
thing it names). The engine is sse.py's `Stream`; the box's phones have the other view
(livestate.py: the state, then deltas). `snapshot` may be replaced (the hub shows new
pages the board as saved).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator, Mapping

from buzzerbox.live.sse import Stream, StreamSettings, Update


class UpdatesView:
    """The whole thing for a screen that starts, then each update (`publish`)."""

    def __init__(
        self,
        snapshot: Callable[[], Mapping[str, object]],
        *,
        kind: str = "board",
        ring: int = 256,
        max_clients: int = 100,
    ) -> None:
        self.snapshot = snapshot
        self.stream = Stream(self._whole, full_kind=kind, ring=ring, max_clients=max_clients)

    def _whole(self, _latest: object, _is_admin: bool) -> str:
        return json.dumps(self.snapshot(), ensure_ascii=False, separators=(",", ":"))

    def publish(self, updates: list[Update]) -> None:
        """Called for each change, by one thread (the hub's subscriber), in order."""
        self.stream.publish(updates)

    def messages(
        self,
        keepalive_s: float = 2.0,
        max_stream_s: float = 600.0,
        retry_ms: int = 2000,
        clock: Callable[[], float] = time.monotonic,
        last_version: int | None = None,
    ) -> Generator[bytes, None, None]:
        """One screen's stream (`Stream.messages`): the whole thing, or the updates since
        `last_version` (its Last-Event-ID) while the ring holds them, then each update."""
        settings = StreamSettings(keepalive_s, max_stream_s, retry_ms)
        return self.stream.messages(False, last_version, settings, clock)
