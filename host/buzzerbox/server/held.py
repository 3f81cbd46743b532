"""One memory budget for what connections hold before the app runs (issue 39, item 3).

The server reads a request's head and body into memory before the app sees them. A
crowd of addresses, each under its own caps, can hold a lot that way: 4,000
connections from 125 addresses, each a 15 KiB head and a 16 KiB body sent slowly,
took the box from 48.5 MB to 228 MB. So every unfinished request counts against one
budget for the whole server (`Limits.held_bytes`): its head as it arrives, then its
head and its body's size (the declared one, or for a chunked body the most its
endpoint takes) as soon as the head has come, until the app has the request.

Over the budget, the address holding the most gives way: its oldest unfinished
request (`Budget.hold` names it; the guard answers it 503 and closes it). A phone's
request comes at once and its address holds little, so the crowd gives way, not the
phone. An upload (a body the endpoint allows beyond SMALL_BODY: only the admin's
import) is never made to give way; uploads hold at most half of the budget (the
next is refused), so that they never stop the rest: a table entry, a press.

Pure bookkeeping: `Budget` knows a channel by its `address` and `held` attributes
and never touches a socket (guard.py does).
"""

from __future__ import annotations

from typing import Any

#: bodies a guest may send are at most this (a table entry: 16 KiB); beyond it only
#: the admin's import, which never gives way to others (limits.py's sizes)
SMALL_BODY = 64 * 1024


class Budget:
    """What unfinished requests hold, in total and per address; who gives way."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.total = 0
        self.uploads = 0  # of the total
        #: address -> the bytes its requests that may give way hold
        self._by_address: dict[str, int] = {}
        #: address -> its channels holding bytes that may give way, oldest first
        self._holders: dict[str, dict[Any, None]] = {}

    def hold(self, channel: Any, size: int, *, upload: bool = False) -> list[Any]:
        """`channel` holds `size` bytes now (0: none). The channels that must give way
        for the total to fit, their bytes already given back: none, others, or (an
        upload over the uploads' half) `channel` itself."""
        self._let_go(channel)
        if size <= 0:
            return []
        if upload and self.uploads + size > self.most // 2:
            return [channel]
        channel.held = size
        self.total += size
        if upload:
            self.uploads += size
        else:
            self._by_address[channel.address] = self._by_address.get(channel.address, 0) + size
            self._holders.setdefault(channel.address, {})[channel] = None  # the youngest
        gone: list[Any] = []
        while self.total > self.most:
            victim = self._victim()
            if victim is None:  # only uploads hold (at most half): cannot be
                break
            self._let_go(victim)
            gone.append(victim)
        return gone

    def _victim(self) -> Any | None:
        """The oldest holder of the address that holds the most (None: no one may)."""
        if not self._by_address:
            return None
        address = max(self._by_address, key=self._by_address.__getitem__)
        return next(iter(self._holders[address]))

    def _let_go(self, channel: Any) -> None:
        held = getattr(channel, "held", 0)
        if not held:
            return
        channel.held = 0
        self.total -= held
        holders = self._holders.get(channel.address)
        if holders is None or channel not in holders:
            self.uploads -= held  # an upload: in the totals only
            return
        del holders[channel]
        left = self._by_address[channel.address] - held
        if holders:
            self._by_address[channel.address] = left
        else:
            del self._by_address[channel.address]
            del self._holders[channel.address]

    def by_address(self, address: str) -> int:
        """What `address`'s requests that may give way hold (bytes)."""
        return self._by_address.get(address, 0)
