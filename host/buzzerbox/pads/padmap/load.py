"""The pad map: which contact is which pad. A TOML file, read with tomllib.

Format 1 (see also README.md and examples/)::

    seats = 4              # seats 0..seats-1 (1-12); required
    piles = 2              # piles 0..piles-1 for "pile" pads (0-12); default 0

    [release_ms]           # optional: release hold per pad role, ms (0-400)
    pile = 120             # a release counts once the contact stayed open this long
    stop = 0               # (defaults: pile 120, stop 0, slap 0)

    [gpio]                 # optional: pads wired to the Pi's own header
    pull = "up"            # "up": a pad shorts its pin to GND (default); "down": to 3V3
    debounce_us = 5000     # leading-edge debounce window (0-100000); default 5000

    [[board]]              # a pad board (Pico) on a serial link; one table per board
    id = "pico-e6614103"   # the id it says in HELLO
    alias = "a"            # optional: pads may say board = "a" (a new id: one line)
    url = "/dev/serial/by-id/usb-Raspberry_Pi_Pico_E6614103-if00"   # optional
    channels = 16          # optional: its inputs are 0..channels-1
    debounce_us = 3000     # optional: sent as DEBOUNCE after its HELLO
    sync = 15              # optional: its sync-wire input (never a pad)

    [sync]                 # optional: the Pi pulses the sync wire on this GPIO
    gpio = 7               # (without it, a board's sync pulses come from elsewhere)

    [test_line]            # optional: the self-test line (hardware/self-test.md)
    gpio = 16              # the Pi's output that pulses it (doctor --fairness)
    gpio_in = 20           # optional: a Pi input it reaches too (needs [gpio] pull "up")
    boards = { a = 22 }    # each board (id or alias) = its spare input on the line

    [[pad]]                # one table per pad
    id = "north-slap"      # optional; default "gpio:<pin>" or "<board>:<ch>"
    role = "slap"          # stop | slap | pile
    seat = 0
    pile = 1               # for role "pile" only, and required there
    gpio = 17              # the input: a GPIO pin (BCM 0-27) ...
    board = "pico-e6614103"  # ... or a declared board (its id or alias)
    ch = 3                 #     and one of its input channels
    light_gpio = 27        # optional light: a GPIO output pin ...
    light_ch = 3           # ... or an LED channel on the pad's board

Refused at load, naming the line (or the entry) and what is allowed: unknown
keys, wrong types, a seat or pile out of range, an unknown role or board, a
pin, channel or pad id used twice, a pad on a board's sync channel.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from buzzerbox.pads.errors import PadMapError
from buzzerbox.pads.pad import Pad
from buzzerbox.pads.padmap.reading import TableReader, Where
from buzzerbox.pads.padmap.spec import (
    DEFAULT_RELEASE_MS,
    MAX_RELEASE_MS,
    ROLES,
    BoardSpec,
    GpioSettings,
    PadMap,
    TestLine,
)
from buzzerbox.pads.padmap.testline import read_test_line
from buzzerbox.pads.timeline.arbiter import GPIO

__all__ = ["ROLES", "BoardSpec", "GpioSettings", "Pad", "PadMap", "load_pad_map", "parse_pad_map"]

MAX_SEATS: Final = 12
MAX_PILES: Final = 12
MAX_DEBOUNCE_US: Final = 100_000

_TOP_KEYS: Final = ("seats", "piles", "release_ms", "gpio", "board", "pad", "sync", "test_line")
_GPIO_KEYS: Final = ("pull", "debounce_us")
_BOARD_KEYS: Final = ("id", "alias", "url", "channels", "debounce_us", "sync")
_PAD_KEYS: Final = ("id", "role", "seat", "pile", "gpio", "board", "ch", "light_gpio", "light_ch")


def load_pad_map(path: str | Path) -> PadMap:
    """Read and check the pad map at `path`; PadMapError says what is wrong and where."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PadMapError(f"pad map {str(path)!r} cannot be read: {exc}") from exc
    return parse_pad_map(text, name=str(path))


def parse_pad_map(text: str, *, name: str = "<pad map>") -> PadMap:
    """Check a pad map given as TOML text; `name` (a file name) prefixes every message."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PadMapError(f"{name}: not valid TOML: {exc}") from exc
    return _MapReader(text, name).read(data)


class _MapReader(TableReader):
    """Checks the parsed TOML of a whole map, finding lines in the text for the messages."""

    # The map ------------------------------------------------------------------

    def read(self, data: dict[str, Any]) -> PadMap:
        """The whole map, checked."""
        top = Where(self, None, 0, None)
        self.keys(data, _TOP_KEYS, "the top level", top)
        if "seats" not in data:
            raise self.fail(f"seats is missing: say how many seats there are (1-{MAX_SEATS})", None)
        seats = self.whole(data, "seats", 1, MAX_SEATS, top)
        piles = self.whole(data, "piles", 0, MAX_PILES, top) if "piles" in data else 0
        release = self._release(data.get("release_ms", {}))
        gpio = self._gpio(data.get("gpio", {}))
        boards = self._boards(data.get("board", []))
        sync_gpio = self._sync(data.get("sync", {}))
        raw_pads = data.get("pad", [])
        if not isinstance(raw_pads, list):
            raise top.fail("pad", "pad must be an array of tables: write [[pad]]")
        pads = tuple(self._pad(raw, i, seats, piles, boards) for i, raw in enumerate(raw_pads))
        test_line = (
            read_test_line(self, data["test_line"], boards, gpio) if "test_line" in data else None
        )
        self._unique(pads, sync_gpio, test_line)
        specs = tuple(dict.fromkeys(boards.values()))
        return PadMap(seats, pads, piles, specs, gpio, self.name, release, sync_gpio, test_line)

    def _sync(self, raw: object) -> int | None:
        where = self.table(raw, "[sync", 0, "[sync]")
        assert isinstance(raw, dict)
        self.keys(raw, ("gpio",), "[sync]", where)
        return self.pin(raw, "gpio", where) if "gpio" in raw else None

    def _release(self, raw: object) -> dict[str, int]:
        where = self.table(raw, "[release_ms", 0, "[release_ms]")
        assert isinstance(raw, dict)
        self.keys(raw, ROLES, "[release_ms] (one key per pad role)", where)
        release = dict(DEFAULT_RELEASE_MS)
        for role in raw:
            release[role] = self.whole(raw, role, 0, MAX_RELEASE_MS, where)
        return release

    def _gpio(self, raw: object) -> GpioSettings:
        where = self.table(raw, "[gpio", 0, "[gpio]")
        assert isinstance(raw, dict)
        self.keys(raw, _GPIO_KEYS, "[gpio]", where)
        pull = raw.get("pull", "up")
        if pull not in ("up", "down"):
            raise where.fail("pull", f"pull {pull!r} is not allowed: it must be 'up' or 'down'")
        debounce = (
            self.whole(raw, "debounce_us", 0, MAX_DEBOUNCE_US, where)
            if "debounce_us" in raw
            else 5000
        )
        return GpioSettings("up" if pull == "up" else "down", debounce)

    def _boards(self, raw: object) -> dict[str, BoardSpec]:
        """The boards by id and by alias (the same spec under both)."""
        if not isinstance(raw, list):
            raise self.fail("board must be an array of tables: write [[board]]", None)
        boards: dict[str, BoardSpec] = {}
        for i, entry in enumerate(raw):
            where = self.table(entry, "[[board", i, f"board {i + 1}")
            assert isinstance(entry, dict)
            self.keys(entry, _BOARD_KEYS, "a [[board]]", where)
            if "id" not in entry:
                raise where.fail(None, "id is missing: give the id the board says in its HELLO")
            board_id = self.text(entry, "id", where)
            if board_id == GPIO:
                raise where.fail(
                    "id", f"board id {GPIO!r} is not allowed: it names the Pi's header"
                )
            alias = self.text(entry, "alias", where) if "alias" in entry else None
            for key, name in (("id", board_id), ("alias", alias)):
                if name is not None and name in boards:
                    first = boards[name].line
                    raise where.fail(
                        key, f"board {name!r} is declared twice (first at line {first})"
                    )
            if alias == GPIO:
                raise where.fail(
                    "alias", f"alias {GPIO!r} is not allowed: it names the Pi's header"
                )
            url = entry.get("url")
            if url is not None and (not isinstance(url, str) or not url):
                raise where.fail("url", f"url {url!r} is not allowed: it must be a port or URL")
            channels = (
                self.whole(entry, "channels", 1, 1024, where) if "channels" in entry else None
            )
            debounce = (
                self.whole(entry, "debounce_us", 0, MAX_DEBOUNCE_US, where)
                if "debounce_us" in entry
                else None
            )
            limit = (channels or 1024) - 1
            sync = self.whole(entry, "sync", 0, limit, where) if "sync" in entry else None
            spec = BoardSpec(board_id, url, channels, debounce, where.line(), alias, sync)
            boards[board_id] = spec
            if alias is not None:
                boards[alias] = spec
        return boards

    def _pad(
        self, raw: object, i: int, seats: int, piles: int, boards: Mapping[str, BoardSpec]
    ) -> Pad:
        where = self.table(raw, "[[pad", i, f"pad {i + 1}")
        assert isinstance(raw, dict)
        self.keys(raw, _PAD_KEYS, "a [[pad]]", where)
        for key in ("role", "seat"):
            if key not in raw:
                raise where.fail(None, f"{key} is missing: every pad has a role and a seat")
        role = raw["role"]
        if role not in ROLES:
            raise where.fail(
                "role", f"role {role!r} is not a pad role: roles are {', '.join(ROLES)}"
            )
        seat = raw["seat"]
        if type(seat) is not int or not 0 <= seat < seats:
            raise where.fail(
                "seat", f"seat {seat!r} does not exist: this map has seats 0-{seats - 1}"
            )
        pile = raw.get("pile")
        if role == "pile":
            if pile is None:
                raise where.fail(None, "pile is missing: a pile pad names its pile")
            if type(pile) is not int or not 0 <= pile < piles:
                allowed = f"piles 0-{piles - 1}" if piles else "no piles (set piles = N)"
                raise where.fail("pile", f"pile {pile!r} does not exist: this map has {allowed}")
        elif pile is not None:
            raise where.fail("pile", f"pile {pile!r} is not allowed: only a pile pad has a pile")
        if ("gpio" in raw) == ("board" in raw):
            raise where.fail(
                None, "say where the pad is: either gpio = PIN or board = ID with ch = N"
            )
        light_gpio = self.pin(raw, "light_gpio", where) if "light_gpio" in raw else None
        if "gpio" in raw:
            board, ch = GPIO, self.pin(raw, "gpio", where)
            for key in ("ch", "light_ch"):
                if key in raw:
                    raise where.fail(
                        key, f"{key} is not allowed on a GPIO pad: use light_gpio for a light"
                    )
            light_ch = None
        else:
            board = raw["board"]
            if not isinstance(board, str) or board not in boards:
                known = ", ".join(boards) or "none yet"
                raise where.fail(
                    "board",
                    f"board {board!r} is not declared: boards are {known} (add a [[board]])",
                )
            if "ch" not in raw:
                raise where.fail(None, "ch is missing: a board pad names its input channel")
            spec = boards[board]
            board = spec.id  # an alias stands for the board's id
            limit = spec.channels or 1024
            ch = self.whole(raw, "ch", 0, limit - 1, where)
            if ch == spec.sync:
                raise where.fail(
                    "ch",
                    f"board {board} channel {ch} is its sync channel (sync = {ch}): a sync "
                    "channel is never a pad; wire the pad to another channel",
                )
            light_ch = self.whole(raw, "light_ch", 0, 1023, where) if "light_ch" in raw else None
        if light_gpio is not None and light_ch is not None:
            raise where.fail("light_ch", "a pad has one light: light_gpio or light_ch, not both")
        pad_id = self.text(raw, "id", where) if "id" in raw else f"{board}:{ch}"
        return Pad(pad_id, role, seat, board, ch, pile, light_gpio, light_ch, where.line())

    def _unique(
        self, pads: tuple[Pad, ...], sync_gpio: int | None = None, test: TestLine | None = None
    ) -> None:
        used: dict[tuple[str, ...], tuple[str, Pad]] = {}
        nobody = Pad("", "", 0)  # a stand-in holder for the wires' pins and channels
        if sync_gpio is not None:
            used[("pin", str(sync_gpio))] = ("the sync wire ([sync] gpio)", nobody)
        if test is not None:
            pins = [("gpio", test.gpio)] + [("gpio_in", test.gpio_in)] * (test.gpio_in is not None)
            for key, pin in pins:
                held = used.get(("pin", str(pin)))
                if held is not None:
                    raise self.fail(f"[test_line] {key} {pin} is {held[0]}'s pin", None)
                used[("pin", str(pin))] = (f"the test line ([test_line] {key})", nobody)
            for board, ch in test.channels.items():
                used[("in", board, str(ch))] = ("the test line ([test_line] boards)", nobody)

        def claim(key: tuple[str, ...], what: str, user: str, pad: Pad) -> None:
            if key in used:
                first_user, first = used[key]
                raise self.fail(
                    f"{what} is used twice: by {first_user}{_at(first)} and {user}{_at(pad)}", None
                )
            used[key] = (user, pad)

        for pad in pads:
            src = f"pin {pad.ch}" if pad.is_gpio else f"board {pad.board} channel {pad.ch}"
            claim(
                ("in", pad.board, str(pad.ch)) if not pad.is_gpio else ("pin", str(pad.ch)),
                src,
                pad.describe(),
                pad,
            )
            if pad.light_gpio is not None:
                claim(
                    ("pin", str(pad.light_gpio)),
                    f"pin {pad.light_gpio}",
                    f"the light of {pad.describe()}",
                    pad,
                )
            if pad.light_ch is not None:
                claim(
                    ("led", pad.board, str(pad.light_ch)),
                    f"board {pad.board} led {pad.light_ch}",
                    f"the light of {pad.describe()}",
                    pad,
                )
            claim(("id", pad.id), f"pad id {pad.id!r}", pad.describe(), pad)


def _at(pad: Pad) -> str:
    return "" if pad.line is None else f" (line {pad.line})"
