"""Who gets a live stream: the places per address, and the stream that gives its place
back when it ends.

One address (an IPv6 /64 counts as one) holds at most `per_address` live streams;
the box's own machine (its kiosk screen, the tests) is not capped. The endpoint
(web/stream.py, hub/app.py) asks `take` before it opens a stream and the stream's
`Slotted` body gives the place back (`give`) when the server closes it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

from buzzerbox.server.address import UNCAPPED, address_key

#: live streams kept beyond --max-phones (the hub: --max-screens) for the admin's own
ADMIN_STREAMS = 8


class StreamShares:
    """The live streams each address holds, at most `per_address`."""

    def __init__(self, per_address: int) -> None:
        self.per_address = per_address
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, host: str) -> bool:
        """A live-stream place for this address; False when it holds its share."""
        key = address_key(host)
        with self._lock:
            held = self._held.get(key, 0)
            if held >= self.per_address and key not in UNCAPPED:
                return False
            self._held[key] = held + 1
            return True

    def give(self, host: str) -> None:
        key = address_key(host)
        with self._lock:
            left = self._held.get(key, 1) - 1
            if left > 0:
                self._held[key] = left
            else:
                self._held.pop(key, None)


class Slotted:
    """A stream's messages that give the address's stream place back when closed, once
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
