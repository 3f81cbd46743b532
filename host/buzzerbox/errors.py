"""The one error root of buzzerbox, for every layer, and the faults every layer shares.

Every error buzzerbox raises on purpose is a `BuzzerboxError`. A leaf that stands for
one of Python's own errors also subclasses it (as gpiozero's do), so a caller that only
knows `ValueError` still catches a bad setting. The rules (buzzerbox.rules) import this
module and nothing else of ours; their own leaves live in buzzerbox/rules/errors.py.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Words:
    """A sentence a person reads, before its language is chosen.

    `msgid` is the English text with {named} placeholders, the key of the gettext
    catalogs (buzzerbox/i18n/); `plural` is its English plural, chosen by `n` (made
    with `plural_words`). The values in `params` are filled in at the edge, in the
    reader's language (buzzerbox.i18n.say): the rules never format for a language. A
    value may be `Words` itself (a clause of the sentence, said in the same language)
    or a tuple (a list, "stop and pile": at most two items in English here).
    """

    msgid: str
    params: Mapping[str, object] = field(default_factory=dict)
    plural: str | None = None
    n: int | None = None

    def values(self) -> dict[str, object]:
        """The values to fill in, with `n` for a plural."""
        return dict(self.params) if self.n is None else {"n": self.n, **self.params}

    def english(self) -> str:
        text = self.plural if self.plural is not None and self.n != 1 else self.msgid
        values = self.values()
        if any(isinstance(value, Words | tuple) for value in values.values()):
            return _ENGLISH.format(text, **values)  # a clause or a list in it
        return text.format(**values)


def plural_words(one: str, other: str, n: int, params: Mapping[str, object] | None = None) -> Words:
    """Words that depend on a count `n` ({n} in the text): `one` is said for 1 in English,
    `other` otherwise; each language chooses its own form (gettext's ngettext).
    `pybabel extract -k plural_words:1,2` reads it (i18n/README.md)."""
    return Words(one, dict(params or {}), plural=other, n=n)


class _English(string.Formatter):
    """str.format, with clauses (Words) and lists (tuples) said in English."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if isinstance(value, Words):
            value = value.english()
        elif isinstance(value, tuple):
            value = " and ".join(str(item) for item in value)
        return format(value, format_spec)


_ENGLISH = _English()


class BuzzerboxError(Exception):
    """The root of every error buzzerbox raises on purpose.

    `subject` names what the refusal is about where that is one thing a page can
    point at: a player's name for a count, or a field of the event. `code` names the
    refusal for machines (the API's `code`), and a refusal given as `Words` is said
    in the reader's language at the edge; str() of the error is its English.
    """

    def __init__(
        self, message: str | Words = "", *, subject: str | None = None, code: str | None = None
    ) -> None:
        self.words = message if isinstance(message, Words) else None
        super().__init__(message.english() if isinstance(message, Words) else message)
        self.subject = subject
        self.code = code


class ConfigError(BuzzerboxError, ValueError):
    """A setting is refused: a settings file, a pad map, a URL or a command's argument."""


class InputError(BuzzerboxError, ValueError):
    """A value handed in at run time is refused: a channel, a clock rate, a window."""


class StoreError(BuzzerboxError, OSError):
    """A file the box keeps cannot be read or written (a disk error, a foreign file): the
    event log (store/), the admin sessions (server/sessions.py), the phone seats."""


class FirmwareMissingError(BuzzerboxError, FileNotFoundError):
    """The firmware folder is missing or incomplete."""


class LayoutError(ConfigError):
    """A layout the firmware does not have."""


class MpremoteError(BuzzerboxError, RuntimeError):
    """mpremote is not installed, or one of its commands failed."""


class PicoChoiceError(BuzzerboxError, ValueError):
    """No port was named, and there is not exactly one Pico to take."""


class DataFolderBusyError(BuzzerboxError, RuntimeError):
    """Another box holds the data folder."""


__all__ = [
    "BuzzerboxError",
    "ConfigError",
    "InputError",
    "StoreError",
    "Words",
    "plural_words",
]
