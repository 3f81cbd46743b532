"""The box's words in the reader's language: German, French, Danish and English.

gettext catalogs, made and read with Babel (`pybabel extract` / `update` / `compile`,
README.md here says how): locale/<lang>/LC_MESSAGES/

- messages.po  what Python says to a person: refusals of the rules, the box and the
               web, the exports' headers, the result card
- pages.po     what the pages say: their JavaScript (web/static/*.js and the hub's,
               through t() and tn() of web/static/i18n.js; served to them as JSON,
               `pages_catalog`) and their templates' _()

The key of a message is its English text (gettext's msgid), with {named} placeholders;
English needs no catalog. The compiled .mo files are committed beside their .po (a
test holds them to it), so an installed box needs no build step.
"""

from __future__ import annotations

import re
import string
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.lists import format_list
from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations

from buzzerbox.errors import Words

#: the languages the box speaks, English first (the msgids' language)
LANGUAGES = ("en", "de", "fr", "da")
DEFAULT = "en"
LOCALE_DIR = Path(__file__).with_name("locale")
DOMAINS = ("messages", "pages")

#: each language's name in itself, for the switch on every page
NAMES = {lang: str(Locale.parse(lang).get_display_name(lang)).capitalize() for lang in LANGUAGES}


def known(lang: object) -> str | None:
    """`lang` if the box speaks it ("de", "de-AT", "DE" are German), else None."""
    if not isinstance(lang, str):
        return None
    base = lang.strip().replace("_", "-").split("-", 1)[0].lower()
    return base if base in LANGUAGES else None


@cache
def translations(lang: str, domain: str = "messages") -> NullTranslations:
    """The catalog of `domain` in `lang` (English: none, the msgids are English)."""
    if known(lang) in (None, DEFAULT):
        return NullTranslations()
    return Translations.load(str(LOCALE_DIR), [lang], domain)


def local(value: object, lang: str, spec: str = "") -> object:
    """A value as the reader writes it: numbers with the locale's separators (a format
    spec's precision kept: "{ms:.1f}" is "12,5" in German), a list (a tuple) joined as
    the language joins one ("stop und pile"), a clause (Words) said in `lang`."""
    if isinstance(value, Words):
        return say(value, lang)
    if isinstance(value, tuple):
        return format_list([str(item) for item in value], locale=lang)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    fixed = _FIXED.fullmatch(spec)
    if fixed:
        places = int(fixed.group(1))
        pattern = "#,##0." + "0" * places if places else "#,##0"
        return format_decimal(value, format=pattern, locale=lang, decimal_quantization=True)
    return format_decimal(value, locale=lang)


_FIXED = re.compile(r",?\.(\d)f")


class _Local(string.Formatter):
    """str.format with every value written as `lang` writes it (`local`)."""

    def __init__(self, lang: str) -> None:
        self.lang = lang

    def format_field(self, value: Any, format_spec: str) -> str:
        said = local(value, self.lang, format_spec)
        if said is value:  # a text: its own spec (a width, a cut: "{value!r:.24}")
            return format(value, format_spec)
        return str(said)


def say(words: Words | str, lang: str) -> str:
    """`words` in `lang`, their values filled in as that language writes them.

    A catalog's text that does not fit its values (a placeholder it lost or made
    up) never fails a refusal: the English is said instead, and a test catches it.
    """
    if isinstance(words, str):
        return translations(lang).gettext(words)
    if known(lang) in (None, DEFAULT):
        return words.english()  # the msgids' own language: as str() of the error says it
    catalog = translations(lang)
    if words.plural is not None and words.n is not None:
        text = catalog.ngettext(words.msgid, words.plural, words.n)
    else:
        text = catalog.gettext(words.msgid)
    try:
        return _Local(lang).format(text, **words.values())
    except (KeyError, IndexError, ValueError, AttributeError):
        return words.english()


def said_elsewhere(words: Words) -> dict[str, str]:
    """`words` in each language but English, for a state every phone shares (each shows
    its own; the English stands beside it)."""
    return {lang: say(words, lang) for lang in LANGUAGES if lang != DEFAULT}


def pages_catalog(lang: str) -> dict[str, Any]:
    """The pages' catalog in `lang` for web/static/i18n.js: {msgid: text} and, for a
    plural, {msgid: [one, other]} (the pages pick the form with Intl.PluralRules)."""
    catalog = translations(lang, "pages")
    messages: dict[str, Any] = {}
    for key, text in getattr(catalog, "_catalog", {}).items():
        if isinstance(key, tuple):
            msgid, index = key
            forms = messages.setdefault(msgid, [])
            if isinstance(forms, list):
                forms.extend([""] * (index + 1 - len(forms)))
                forms[index] = text
        elif key and text:
            messages[key] = text
    return {"lang": known(lang) or DEFAULT, "messages": messages}


__all__ = [
    "LANGUAGES",
    "NAMES",
    "known",
    "pages_catalog",
    "said_elsewhere",
    "say",
    "translations",
]
