"""Players' names: trimmed and NFC-normalised before they are compared (v1.1).

`player_names` and `variant_names` check a game line's lists of them (events.py).

"Zoë" typed with a precomposed ë and with e + combining diaeresis is one name. A
name holding a control or format character (Unicode categories Cc and Cf: tabs,
zero-width spaces, bidi overrides such as U+202E, which makes "evil" display as
"live") is refused: two names would look the same, or one would hide another.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Final

from buzzerbox.errors import Words
from buzzerbox.rules.errors import InvalidEventError

#: a game's `variants`: how many, and how long each may be
MAX_VARIANTS: Final = 10
MAX_VARIANT = 60

ALLOWED: Final = Words(
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


#: names cleaned before (the same few come with every count), up to _CLEAN_MAX of them;
#: a memo of a pure function, so replay stays a fold of its lines
_CLEAN: dict[str, str] = {}
_CLEAN_MAX: Final = 4096


def clean_name(raw: str) -> str:
    """`raw` trimmed and NFC-normalised, or InvalidEventError if it hides a character."""
    name = _CLEAN.get(raw)
    if name is None:
        name = _clean(raw)
        if len(_CLEAN) < _CLEAN_MAX:
            _CLEAN[raw] = name
    return name


def _clean(raw: str) -> str:
    if raw.isascii() and raw.isprintable():
        return raw.strip()
    name = unicodedata.normalize("NFC", raw.strip())
    bad = hidden_character(name)
    if bad is not None:
        shown = "".join(ch for ch in name if unicodedata.category(ch) not in ("Cc", "Cf"))
        said = {"name": shown, "bad": bad, "allowed": ALLOWED}
        raise InvalidEventError(
            Words("the name {name!r} holds an invisible character ({bad}): {allowed}", said),
            subject=shown,
            code="hidden-character",
        )
    return name


def clean_counts(counts: Mapping[str, int]) -> dict[str, int]:
    """A table entry's counts keyed by cleaned names; a name given twice is refused."""
    out: dict[str, int] = {}
    for raw, n in counts.items():
        name = _CLEAN.get(raw) or clean_name(raw)
        if name in out:
            raise InvalidEventError(
                Words(
                    "{name} is given twice (as {raw!r} too): give one count per player",
                    {"name": name, "raw": raw},
                ),
                subject=name,
                code="given-twice",
            )
        out[name] = n
    return out


def player_names(players: object) -> tuple[str, ...]:
    """A game's players, checked and cleaned: a list of unique, non-empty names."""
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        words = Words("players must be a list of names")
        raise InvalidEventError(words, subject="players", code="players-not-names")
    names = tuple(clean_name(p) for p in players)
    if any(not n for n in names):
        words = Words("a player's name is empty: every player needs a name")
        raise InvalidEventError(words, subject="players", code="empty-name")
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise InvalidEventError(
            Words(
                "{names} is named twice: names must be unique "
                "(they are compared trimmed and Unicode-normalised)",
                {"names": ", ".join(twice)},
            ),
            subject=twice[0],
            code="named-twice",
        )
    return names


def variant_names(value: object) -> tuple[str, ...]:
    """A game's variants, checked and cleaned: at most MAX_VARIANTS short names."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        words = Words('variants must be a list of names, e.g. ["row as storage"]')
        raise InvalidEventError(words, subject="variants", code="bad-variants")
    if len(value) > MAX_VARIANTS or any(len(v) > MAX_VARIANT for v in value):
        said = {"most": MAX_VARIANTS, "chars": MAX_VARIANT}
        words = Words("variants: at most {most}, each at most {chars} characters", said)
        raise InvalidEventError(words, subject="variants", code="bad-variants")
    return tuple(clean_name(v) for v in value)
