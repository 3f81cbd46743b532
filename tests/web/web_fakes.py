"""Fakes for the web tests (a module of its own: test modules import from it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask.testing import FlaskClient

PIN = "4711"


@dataclass
class Timer:
    due: int
    fn: Callable[[], None]
    is_cancelled: bool = False

    def cancel(self) -> None:
        self.is_cancelled = True


@dataclass
class ManualClock:
    """The box's clock, driven by the test: `advance` runs the callbacks that fall due."""

    now: int = 1_000_000
    timers: list[Timer] = field(default_factory=list)

    def ticks(self) -> int:
        return self.now

    def call_later(self, delay_us: int, fn: Callable[[], None]) -> Timer:
        timer = Timer(self.now + delay_us, fn)
        self.timers.append(timer)
        return timer

    def advance(self, us: int) -> None:
        self.now += us
        due = [t for t in self.timers if t.due <= self.now and not t.is_cancelled]
        self.timers = [t for t in self.timers if t not in due and not t.is_cancelled]
        for timer in sorted(due, key=lambda t: t.due):
            timer.fn()


@dataclass
class Seconds:
    """A monotonic clock in seconds for the login limiter."""

    now: float = 100.0

    def __call__(self) -> float:
        return self.now


def play(admin: FlaskClient, *events: dict[str, Any]) -> dict[str, Any]:
    """Post table entries, each one accepted; the last state."""
    state: dict[str, Any] = {}
    for event in events:
        reply = admin.post("/api/event", json=event)
        assert reply.status_code == 200, (event, reply.json)
        state = reply.json  # type: ignore[assignment]
    return state


def new_game(admin: FlaskClient, game: str = "ligretto", **fields: Any) -> dict[str, Any]:
    body = {"game": game, "players": ["Ann", "Ben", "Cem"], **fields}
    reply = admin.post("/api/game", json=body)
    assert reply.status_code == 200, reply.json
    return reply.json  # type: ignore[return-value]
