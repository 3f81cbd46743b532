"""Players' names: trimmed and NFC-normalised before they are compared (v1.1).

"Zoë" typed with a precomposed ë and with e + combining diaeresis is one name. A
name holding a control or format character (Unicode categories Cc and Cf: tabs,
zero-width spaces, bidi overrides such as U+202E, which makes "evil" display as
"live") is refused: two names would look the same, or one would hide another.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Final

from buzzerbox.rules.errors import InvalidEventError

ALLOWED: Final = (
    "a name is letters, digits, spaces, punctuation and emoji, "
    "without control, zero-width or direction-changing characters"
)


def hidden_character(name: str) -> str | None:
    """The first control or format character of `name`, as 'U+200B ZERO WIDTH SPACE'."""
    for ch in name:
        if unicodedata.category(ch) in ("Cc", "Cf"):
            label = unicodedata.name(ch, "a control character")
            return f"U+{ord(ch):04X} {label}"
    return None


def clean_name(raw: str) -> str:
    """`raw` trimmed and NFC-normalised, or InvalidEventError if it hides a character."""
    if raw.isascii() and raw.isprintable():
        return raw.strip()
    name = unicodedata.normalize("NFC", raw.strip())
    bad = hidden_character(name)
    if bad is not None:
        shown = "".join(ch for ch in name if unicodedata.category(ch) not in ("Cc", "Cf"))
        raise InvalidEventError(
            f"the name {shown!r} holds an invisible character ({bad}): {ALLOWED}",
            subject=shown,
        )
    return name


def clean_counts(counts: Mapping[str, int]) -> dict[str, int]:
    """A table entry's counts keyed by cleaned names; a name given twice is refused."""
    out: dict[str, int] = {}
    for raw, n in counts.items():
        name = clean_name(raw)
        if name in out:
            raise InvalidEventError(
                f"{name} is given twice (as {raw!r} too): give one count per player",
                subject=name,
            )
        out[name] = n
    return out
