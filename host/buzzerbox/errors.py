"""The one error root of buzzerbox, for every layer, and the faults every layer shares.

Every error buzzerbox raises on purpose is a `BuzzerboxError`. A leaf that stands for
one of Python's own errors also subclasses it (as gpiozero's do), so a caller that only
knows `ValueError` still catches a bad setting. The rules (buzzerbox.rules) import this
module and nothing else of ours; their own leaves live in buzzerbox/rules/errors.py.
"""

from __future__ import annotations


class BuzzerboxError(Exception):
    """The root of every error buzzerbox raises on purpose.

    `subject` names what the refusal is about where that is one thing a page can
    point at: a player's name for a count, or a field of the event.
    """

    def __init__(self, message: str = "", *, subject: str | None = None) -> None:
        super().__init__(message)
        self.subject = subject


class ConfigError(BuzzerboxError, ValueError):
    """A setting is refused: a settings file, a pad map, a URL or a command's argument."""


class InputError(BuzzerboxError, ValueError):
    """A value handed in at run time is refused: a channel, a clock rate, a window."""


class StoreError(BuzzerboxError, OSError):
    """A file the box keeps cannot be read or written (a disk error, a foreign file): the
    event log (store/), the admin sessions (server/sessions.py), the phone seats."""


__all__ = ["BuzzerboxError", "ConfigError", "InputError", "StoreError"]
