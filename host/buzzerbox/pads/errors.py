"""Errors of the pads area: one root under `BuzzerboxError`, leaves by kind.

Each leaf also subclasses a builtin (ConfigError and InputError are ValueErrors),
so callers that only know Python's own
errors still catch them. Messages name the subject, the value and what is
allowed: ``"pin 17 is used twice: by slap of seat 0 (line 4) and stop of seat 1
(line 9)"``.
"""

from __future__ import annotations

from buzzerbox.errors import BuzzerboxError, ConfigError, InputError


class PadsError(BuzzerboxError):
    """The root of every error the pads area raises on purpose."""


class PadMapError(PadsError, ConfigError):
    """A pad map (TOML) is refused: a bad value, a clash, an unknown name."""


class FrameError(PadsError, InputError):
    """A frame cannot be encoded: a field is not allowed or the line is too long."""


class GpioUnavailableError(PadsError, RuntimeError):
    """GPIO pads were asked for where no usable pin factory exists (not a Pi)."""


class FakeBoardCommandError(PadsError, InputError):
    """A fake-board key or script line is not one the emulator knows."""


class PadNotFoundError(PadsError, LookupError):
    """A pad (or its light) that the pad map does not have."""


class CommandRefusedError(PadsError, ValueError):
    """A host line a board will not act on: `err` (the protocol's ERR code) and `text`
    make its ERR frame."""

    def __init__(self, err: int, text: str) -> None:
        super().__init__(text)
        self.err = err
        self.text = text
