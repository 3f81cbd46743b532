"""What the archive keeps of the games it read back (issue 39, item 6).

Anyone on the Wi-Fi may ask for a past game (GET /api/games/<id>) or its exports, and a
30,000-event game took 1.6 s to replay each time: 16 such requests at once took a
viewer's /api/state from 3 ms to 625 ms. So each answer is kept, by what it is (a view,
an export, the language of its labels), the game and the game's last change (a finished
game's log changes only by an undo of its finish, which changes that too): a game asked
for again costs a look-up. The game in play changes with every press: its answer is
kept for `every_s` at least, so a crowd asking costs one replay every so often, never
one each. One computation at a time (the others wait and take its answer); at most
`most` answers and `most_chars` characters are kept, the oldest go first.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar, cast

T = TypeVar("T")

#: answers kept, and their size at most (a 30,000-event log is ~3 MB of text)
MOST = 32
MOST_CHARS = 16 * 1024 * 1024
#: the game in play: an answer this young is served again, though the game moved on
EVERY_S = 5.0


class Kept:
    """Answers by key, each computed once (the game in play: once an `every_s`)."""

    def __init__(
        self,
        most: int = MOST,
        most_chars: int = MOST_CHARS,
        every_s: float = EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.most, self.most_chars, self.every_s, self.clock = most, most_chars, every_s, clock
        self.computed = 0
        self._held: OrderedDict[Hashable, tuple[float, int, Any]] = OrderedDict()
        self._young: dict[Hashable, Hashable] = {}  # (what, game) in play -> its newest key
        self._chars = 0
        self._lock = threading.Lock()

    def get(self, what: Hashable, version: Hashable, in_play: bool, compute: Callable[[], T]) -> T:
        """The answer `what` (its kind and game) of the game at `version` (its last
        change): kept, or computed now. `in_play`: an answer of an older version is
        served while it is younger than `every_s`."""
        with self._lock:
            key: Hashable = (what, version)
            held = self._held.get(key)
            older = self._young.get(what) if held is None and in_play else None
            if older in self._held and self.clock() - self._held[older][0] < self.every_s:
                key, held = older, self._held[older]
            if held is not None:
                self._held.move_to_end(key)
                return cast(T, held[2])
            value = compute()
            self.computed += 1
            self._keep(key, value)
            if in_play:
                self._young[what] = key
            return value

    def _keep(self, key: Hashable, value: Any) -> None:
        chars = len(value) if isinstance(value, str | bytes) else sys.getsizeof(value)
        if chars > self.most_chars:
            return
        self._held[key] = (self.clock(), chars, value)
        self._chars += chars
        while len(self._held) > self.most or self._chars > self.most_chars:
            _, (_, gone, _) = self._held.popitem(last=False)
            self._chars -= gone
