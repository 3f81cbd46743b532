"""The catalogs of buzzerbox/i18n: every word Python says to a person is in `messages`,
said in German, French and Danish, and no translation drops or makes up a value.

`messages` is checked whole here (every msgid translated, nothing fuzzy, the catalog
is what `pybabel extract` finds in the code); the placeholders are checked in both
domains (`pages` too: its JavaScript's {name} and its templates' %(name)s).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from pathlib import Path

import buzzerbox
import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from buzzerbox.errors import Words, plural_words
from buzzerbox.i18n import LANGUAGES, LOCALE_DIR, say

PACKAGE = Path(buzzerbox.__file__).parent
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
#: the keywords README.md's `pybabel extract` for `messages` is given
KEYWORDS = {"Words": None, "plural_words": (1, 2)}


def catalog(lang: str, domain: str = "messages") -> Catalog:
    with open(LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po", "rb") as po:
        return read_po(po)


def messages(lang: str, domain: str = "messages") -> Iterator[Message]:
    return (m for m in catalog(lang, domain) if m.id)


def ids(message: Message) -> tuple[str, ...]:
    return (message.id,) if isinstance(message.id, str) else tuple(message.id)


def texts(message: Message) -> tuple[str, ...]:
    text = message.string
    return (text,) if isinstance(text, str) else tuple(text or ())


def python_fields(text: str) -> set[str]:
    """The fields of a str.format text, with conversion and spec: {'n!r', 'wait:.2f'}."""
    found = set()
    for _literal, name, spec, conversion in string.Formatter().parse(text):
        if name is not None:
            found.add(
                name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
            )
    return found


def page_fields(text: str) -> set[str]:
    """The values of a page's text: t()'s {name} (web/static/i18n.js) and _()'s %(name)s."""
    return set(re.findall(r"\{\w+\}|%\(\w+\)s", text))


def placeholders_of(text: str, domain: str) -> set[str]:
    return python_fields(text) if domain == "messages" else page_fields(text)


def in_code() -> set[tuple[str, ...]]:
    """What `pybabel extract -k Words -k plural_words:1,2` finds in buzzerbox/."""
    found = extract_from_dir(
        str(PACKAGE),
        method_map=[("**.py", "python")],
        keywords=KEYWORDS,
        comment_tags=(),
    )
    keys = set()
    for _file, _line, message, _comments, _context in found:
        keys.add((message,) if isinstance(message, str) else tuple(message))
    return keys


# -- every message translated ----------------------------------------------------------


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated_and_none_is_fuzzy(lang: str) -> None:
    untranslated = [m.id for m in messages(lang) if not all(s.strip() for s in texts(m))]
    fuzzy = [m.id for m in messages(lang) if m.fuzzy]
    assert not untranslated, f"{lang}/messages.po has no text for {untranslated[:5]}"
    assert not fuzzy, f"{lang}/messages.po has fuzzy texts: {fuzzy[:5]}"


def test_the_three_catalogs_hold_the_same_messages() -> None:
    keys = {lang: {ids(m) for m in messages(lang)} for lang in TRANSLATED}
    assert keys["de"] == keys["fr"] == keys["da"]
    assert len(keys["de"]) > 150  # every refusal of the rules, the box, the web, the hub


def test_the_catalog_is_what_the_code_says() -> None:
    """A Words(...) raised in the code that messages.po lacks fails here (and one that
    no code says any more): run README.md's extract and update."""
    code, kept = in_code(), {ids(m) for m in messages("de")}
    assert code - kept == set(), "said in the code, not in messages.po (pybabel extract)"
    assert kept - code == set(), "in messages.po, said nowhere in the code any more"


# -- the values of each text -----------------------------------------------------------


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("domain", ["messages", "pages"])
def test_every_translation_keeps_exactly_the_placeholders_of_its_msgid(
    lang: str, domain: str
) -> None:
    wrong = []
    for message in messages(lang, domain):
        wanted = set().union(*(placeholders_of(key, domain) for key in ids(message)))
        for text in texts(message):
            if text and placeholders_of(text, domain) != wanted:
                wrong.append((message.id, text))
    assert not wrong, f"{lang}/{domain}.po drops or makes up a value: {wrong[:3]}"


def test_the_placeholder_check_sees_a_dropped_and_a_made_up_value() -> None:
    assert python_fields("{name}: {n} cards") != python_fields("{name}: Karten")
    assert python_fields("{n} cards") != python_fields("{n} Karten {seat}")
    assert python_fields("wait {wait:.2f} s") != python_fields("warte {wait} s")
    assert python_fields('a login: {{"pin": "1234"}}') == set()
    assert page_fields("{name} was first!") != page_fields("{nom} était premier !")
    assert page_fields("%(n)s rounds") == {"%(n)s"}


def test_the_extraction_finds_words_and_plurals() -> None:
    keys = in_code()
    assert ("{name}: {n} cards left is impossible: a player has 0 to {dealt}",) in keys
    assert ("{n} round", "{n} rounds") in keys


# -- said in each language ----------------------------------------------------------------


def test_a_refusal_is_said_in_each_language_with_its_values() -> None:
    words = Words(
        "{name}: {n} cards left is impossible: a player has 0 to {dealt}",
        {"name": "Ann", "n": 11, "dealt": 10},
    )
    assert (
        say(words, "en")
        == words.english()
        == ("Ann: 11 cards left is impossible: a player has 0 to 10")
    )
    said = {lang: say(words, lang) for lang in TRANSLATED}
    assert said["de"] == "Ann: 11 übrige Karten gibt es nicht: ein Spieler hat 0 bis 10"
    assert said["fr"].startswith("Ann : 11 cartes restantes")
    assert said["da"].startswith("Ann: 11 resterende kort er umuligt")


def test_a_plural_takes_each_languages_form_and_clauses_their_language() -> None:
    one, two = (plural_words("{n} round", "{n} rounds", n) for n in (1, 2))
    assert [say(one, "de"), say(two, "de")] == ["1 Runde", "2 Runden"]
    assert [say(one, "fr"), say(two, "fr")] == ["1 manche", "2 manches"]
    assert [one.english(), two.english()] == ["1 round", "2 rounds"]
    clause = Words(
        "{what}: {where}; {allowed}",
        {
            "what": Words("no new round"),
            "where": Words("round {round} is playing", {"round": 2}),
            "allowed": Words("the round ends with a stop call first"),
        },
    )
    assert (
        clause.english()
        == "no new round: round 2 is playing; the round ends with a stop call first"
    )
    assert (
        say(clause, "da")
        == "Ingen ny runde: runde 2 er i gang; runden slutter først med et stop-råb"
    )


def test_numbers_and_times_are_written_as_the_language_writes_them() -> None:
    words = Words(
        "more than {rate:g} presses a second from one address: wait {wait:.2f} s",
        {"rate": 20.0, "wait": 0.125},
    )
    assert words.english() == "more than 20 presses a second from one address: wait 0.12 s"
    assert say(words, "de").endswith("warte 0,12 s")
    big = Words(
        "the file has {n:,} lines: a game log is at most {most:,} (nothing was imported)",
        {"n": 60000, "most": 50000},
    )
    assert big.english().startswith("the file has 60,000 lines")
    assert say(big, "de").startswith("Die Datei hat 60.000 Zeilen")
    assert say(big, "fr").startswith("Le fichier a 60\u202f000 lignes")
    assert say(Words("{ms:.1f} ms", {"ms": 12.34}), "da") == "12,3 ms"
