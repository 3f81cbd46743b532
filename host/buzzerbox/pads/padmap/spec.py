"""What a pad map holds, once read (`load.py` reads and checks the TOML).

A pad (`Pad`, from pad.py), a pad board (`BoardSpec`), the Pi header's settings
(`GpioSettings`) and the whole map (`PadMap`), with its release hold per pad
role: a pile zone's release counts only after the contact stayed open
`release_ms` (default `DEFAULT_RELEASE_MS`), so a resting hand that shifts its
weight is one card, not two (see `debounce.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from buzzerbox.pads.pad import Pad

ROLES: Final = ("stop", "slap", "pile")
"""Pad roles; the same names as the game log's `pad` field."""
DEFAULT_RELEASE_MS: Final[Mapping[str, int]] = {"stop": 0, "slap": 0, "pile": 120}
"""Release hold per role (ms): a pile zone flickers under a resting hand for up to
about 80 ms; a real lift and the next card take 300 ms or more."""
MAX_RELEASE_MS: Final = 400
"""A longer hold would hold a source's watermark back past the arbiter's silence
limit (500 ms) and have it left out."""
FIRMWARE_LAYOUTS: Final[Mapping[int, str]] = {24: "pads24", 12: "pads12"}
"""The pad-board firmware's layouts by their input channels (hardware/pico-pinout.md)."""


def _layout(channels: int) -> str:
    name = FIRMWARE_LAYOUTS.get(channels)
    return f" (layout {name})" if name else ""


@dataclass(frozen=True, slots=True)
class GpioSettings:
    pull: Literal["up", "down"] = "up"
    debounce_us: int = 5000


@dataclass(frozen=True, slots=True)
class BoardSpec:
    """A pad board: `id` is what it says in HELLO; `alias` (optional) is the name the
    map's pads may use for it instead, so a new board id is a one-line change."""

    id: str
    url: str | None = None
    channels: int | None = None
    debounce_us: int | None = None
    line: int | None = None
    alias: str | None = None
    sync: int | None = None
    """The input channel the sync wire reaches (hardware/sync-wire.md), if any."""

    @property
    def name(self) -> str:
        """What the wiring docs call it: the alias if it has one."""
        return self.alias or self.id


@dataclass(frozen=True, slots=True)
class TestLine:
    """The self-test line (hardware/self-test.md): the Pi's output `gpio` pulses it; it
    reaches the spare input `channels[board id]` of each board and, with `gpio_in`, a
    Pi input (the direct-GPIO path). Never a pad: `doctor --fairness` measures with it."""

    __test__ = False  # not a pytest class

    gpio: int
    gpio_in: int | None = None
    channels: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PadMap:
    seats: int
    pads: tuple[Pad, ...] = ()
    piles: int = 0
    boards: tuple[BoardSpec, ...] = ()
    gpio: GpioSettings = GpioSettings()
    name: str = "<pad map>"
    release_ms: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_RELEASE_MS))
    sync_gpio: int | None = None
    """The Pi's pin that pulses the sync wire ([sync] gpio); None: the pulses, if
    any, come from a pulser the host does not drive."""
    test_line: TestLine | None = None
    """The self-test line ([test_line]), if the box has one."""

    def pad(self, pad_id: str) -> Pad | None:
        return next((p for p in self.pads if p.id == pad_id), None)

    def at(self, board: str, ch: int) -> Pad | None:
        """The pad on `board` (or ``"gpio"``) channel (or pin) `ch`."""
        return next((p for p in self.pads if p.board == board and p.ch == ch), None)

    def board(self, board_id: str) -> BoardSpec | None:
        """The board with this id (or alias)."""
        return next((b for b in self.boards if board_id in (b.id, b.alias)), None)

    def board_on(self, url: str) -> BoardSpec | None:
        """The board whose `url` this is (a board not heard yet is known by its port)."""
        return next((b for b in self.boards if url and b.url == url), None)

    def board_name(self, board_id: str) -> str:
        """The board's alias if it has one, else `board_id`."""
        spec = self.board(board_id)
        return spec.name if spec is not None else board_id

    @property
    def is_virtual(self) -> bool:
        """A pad source of wired pads (see virtual.py for the other kind)."""
        return False

    def for_game(self, game: object) -> list[Pad]:
        """The pads a game has: all of the map's (enrolment re-seats them)."""
        return list(self.pads)

    @property
    def gpio_pads(self) -> tuple[Pad, ...]:
        return tuple(p for p in self.pads if p.is_gpio)

    def channels_problem(self, board_id: str, channels: int) -> str | None:
        """What is wrong when the board `board_id` says (HELLO) it has `channels` inputs:
        the map wants another layout, or has a pad or its sync wire past its last
        channel; else None."""
        spec = self.board(board_id)
        if spec is None:
            return None
        fix = "flash it with `buzzerbox firmware install PORT --layout {}`"
        has = f"board {spec.name} has {channels} input channels{_layout(channels)}"
        if spec.channels is not None and spec.channels != channels:
            want = FIRMWARE_LAYOUTS.get(spec.channels)
            how = fix.format(want) if want else "fix channels in the pad map"
            return (
                f"{has}, but the pad map says channels = {spec.channels}"
                f"{_layout(spec.channels)}: {how}, or change channels in the pad map"
            )
        beyond = [p for p in self.pads if p.board == spec.id and p.ch >= channels]
        if beyond:
            pad = max(beyond, key=lambda p: p.ch)
            return (
                f"{has}, but the pad map puts pad {pad.id} on ch {pad.ch}: "
                f"{fix.format('pads24')}, or move the pad to ch 0-{channels - 1}"
            )
        if spec.sync is not None and spec.sync >= channels:
            return (
                f"{has}, but the pad map puts its sync wire on ch {spec.sync}: "
                f"{fix.format('pads24')}, or set sync to a channel 0-{channels - 1}"
            )
        return None

    def release_us(self, board: str, ch: int) -> int:
        """The release hold (µs) of the pad at `board` `ch`: its role's; 0 for an input
        no pad holds (the sync wire's is never held back)."""
        pad = self.at(board, ch)
        return 0 if pad is None else self.release_ms.get(pad.role, 0) * 1000
