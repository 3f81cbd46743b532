"""What one guest may cost the box without a login (issue 28, item 8).

- `Buckets`: a token bucket per key (a seat, an address): `rate` a second, `burst` at
  once. A phone press is a logged, fsynced event: a seat may press PRESS_RATE times a
  second (a Twist round is about ten a second for the whole table), an address
  ADDRESS_RATE; a refused press is a 429 that says why, in words.
  A phone's "I am here" (POST /api/phones/here) is capped per address at HERE_RATE.
- `SeatOwners`: which address took which seat with which token; an address may hold
  SEATS_PER_ADDRESS seats, so one guest cannot take every seat with made-up tokens.
  (The box's own machine, 127.0.0.1 and ::1, is not capped by address, as in guard.py.)
- `Cached`: an anonymous request's costly answer (GET /api/stats reads back every
  finished game) computed once per key, one computation at a time (the others
  wait for it and take its answer); `every_s` > 0 also serves an answer that old.

Every clock is passed in (tests drive it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from buzzerbox.errors import InputError, Words
from buzzerbox.server.address import UNCAPPED
from buzzerbox.web.errors import TooFastError

PRESS_RATE, PRESS_BURST = 10.0, 20
ADDRESS_RATE, ADDRESS_BURST = 20.0, 40
#: a seat's phone says it is there every 3 s (POST /api/phones/here): an address may
#: say so this often (its two seats, a reload, a flaky network's retries)
HERE_RATE, HERE_BURST = 2.0, 10
SEATS_PER_ADDRESS = 2
#: keys a bucket table remembers at most (the oldest full ones go first)
MAX_KEYS = 10_000

T = TypeVar("T")


class Buckets:
    """A token bucket for each key: `rate` tokens a second, at most `burst`."""

    def __init__(
        self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.refused = 0
        self._held: dict[str, tuple[float, float]] = {}  # key -> (tokens, at)
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """0 and a token taken, or the seconds until `key` has one."""
        with self._lock:
            now = self.clock()
            tokens, at = self._held.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - at) * self.rate)
            if tokens < 1:
                self.refused += 1
                self._held[key] = (tokens, now)
                return (1 - tokens) / self.rate
            if key not in self._held and len(self._held) >= MAX_KEYS:
                self._held.pop(next(iter(self._held)))
            self._held[key] = (tokens - 1, now)
            return 0.0


class PressRates:
    """The presses a seat and an address may make, and how often an address's phones
    may say they are there."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.seats = Buckets(PRESS_RATE, PRESS_BURST, clock)
        self.addresses = Buckets(ADDRESS_RATE, ADDRESS_BURST, clock)
        self.here = Buckets(HERE_RATE, HERE_BURST, clock)

    def check_here(self, address: str) -> None:
        """Raise TooFastError if `address` said its phone is there faster than allowed."""
        wait = 0.0 if address in UNCAPPED else self.here.take(address)
        if wait > 0:
            said = {"rate": HERE_RATE, "wait": wait}
            words = Words(
                "a phone says it is here more than {rate:g} times a second from this "
                "address: wait {wait:.2f} s",
                said,
            )
            raise TooFastError(words, wait)

    def check(self, seat: int | None, address: str) -> None:
        """Raise TooFastError if `address` (or `seat`) pressed faster than allowed."""
        wait = 0.0 if address in UNCAPPED else self.addresses.take(address)
        if wait > 0:
            said = {"rate": ADDRESS_RATE, "wait": wait}
            words = Words(
                "more than {rate:g} presses a second from one address: wait {wait:.2f} s", said
            )
            raise TooFastError(words, wait)
        if seat is not None:
            wait = self.seats.take(f"seat {seat}")
            if wait > 0:
                said = {"seat": seat, "rate": PRESS_RATE, "wait": wait}
                words = Words(
                    "seat {seat} pressed more than {rate:g} times a second: wait {wait:.2f} s", said
                )
                raise TooFastError(words, wait)


class SeatOwners:
    """The tokens each address took seats with, at most SEATS_PER_ADDRESS."""

    def __init__(self, most: int = SEATS_PER_ADDRESS) -> None:
        self.most = most
        self._tokens: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def check(self, address: str, token: object, held: Callable[[str], bool]) -> None:
        """Raise InputError if `address` would hold more than `most` seats with `token`;
        `held(token)` says whether a token still holds a seat (freed ones do not count)."""
        if not isinstance(token, str) or address in UNCAPPED:
            return  # the seat's own check says what a token is; the box's own screen
        with self._lock:
            tokens = [t for t in self._tokens.get(address, []) if t != token and held(t)]
            if len(tokens) >= self.most:
                said = {"n": len(tokens), "most": self.most}
                raise InputError(
                    Words(
                        "this address holds {n} seats already: at most {most} "
                        "a phone (free one on the table view first)",
                        said,
                    ),
                    code="too-many-seats",
                )
            self._tokens[address] = [*tokens, token]
            if len(self._tokens) > MAX_KEYS:
                self._tokens.pop(next(iter(self._tokens)))


class Cached(Generic[T]):
    """One value computed per key (or per `every_s` s), one computation at once."""

    def __init__(self, every_s: float = 0.0, clock: Callable[[], float] = time.monotonic):
        self.every_s, self.clock = every_s, clock
        self.computed = 0
        self._value: tuple[object, float, T] | None = None  # (key, at, value)
        self._lock = threading.Lock()

    def get(self, key: object, compute: Callable[[], T]) -> T:
        with self._lock:  # the others wait for this one, and take its answer
            held = self._value
            now = self.clock()
            if held is not None and (held[0] == key or now - held[1] < self.every_s):
                return held[2]
            value = compute()
            self.computed += 1
            self._value = (key, self.clock(), value)
            return value
