"""The pages' catalog (i18n/locale/<lang>/LC_MESSAGES/pages.po): every text of the pages'
JavaScript (t(), tn()) and of their templates (_()) is in it, in German, French and
Danish, each translation with the placeholders of its English msgid."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po
from buzzerbox.i18n import LANGUAGES, LOCALE_DIR

PACKAGE = LOCALE_DIR.parent.parent  # host/buzzerbox
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
PLACEHOLDER = re.compile(r"\{(\w+)\}")
# pybabel extract -F i18n/pages.cfg -k t -k tn:1,2 -k _ web hub (i18n/README.md)
KEYWORDS = {"t": None, "tn": (1, 2), "_": None}


def catalog(lang: str) -> Catalog:
    with open(Path(LOCALE_DIR, lang, "LC_MESSAGES", "pages.po"), "rb") as po:
        return read_po(po, locale=lang)


def in_the_code() -> dict[str | tuple[str, ...], str]:
    """Every msgid the pages' code says, as pybabel extracts it, and where."""
    with open(PACKAGE / "i18n" / "pages.cfg", encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)  # type: ignore[no-untyped-call]
    found: dict[str | tuple[str, ...], str] = {}
    for folder in ("web", "hub"):
        for name, line, message, _comments, _context in extract_from_dir(
            PACKAGE / folder, method_map, options_map, keywords=KEYWORDS
        ):
            key = message if isinstance(message, str) else tuple(message)
            found.setdefault(key, f"{folder}/{name}:{line}")
    return found


def key_of(msgid: str | tuple[str, ...] | list[str]) -> str | tuple[str, ...]:
    return msgid if isinstance(msgid, str) else tuple(msgid)


def test_every_text_of_the_pages_code_is_in_the_catalog_and_nothing_else() -> None:
    said = in_the_code()
    assert len(said) > 300  # the extraction found the pages' texts at all
    for lang in TRANSLATED:
        have = {key_of(m.id) for m in catalog(lang) if m.id}
        missing = {key: where for key, where in said.items() if key not in have}
        assert not missing, (
            f"pages.po ({lang}) lacks texts the pages say: run the extract and update of "
            f"i18n/README.md and translate them: {missing}"
        )
        stale = have - set(said)
        assert not stale, f"pages.po ({lang}) keeps texts no page says any more: {stale}"


# a t("…") whose text is no string literal is not extracted: it would stay English; nor
# is one inside a template literal (`… ${t("…")}`: pybabel reads no JavaScript in there)
NOT_A_LITERAL = re.compile(r"(?<![\w.])tn?\((?!\s*[\"')]|\s*$)|\$\{\s*tn?\(")


def test_every_t_call_of_the_pages_is_a_literal_pybabel_can_find() -> None:
    scripts = [*PACKAGE.glob("web/static/*.js"), *PACKAGE.glob("hub/static/*.js")]
    assert scripts
    bad = [
        f"{path.name}:{n}: {line.strip()}"
        for path in scripts
        if path.name != "i18n.js"  # it defines t() and tn()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if NOT_A_LITERAL.search(line) and not line.lstrip().startswith(("//", "*", "/**"))
    ]
    assert not bad, f"t() and tn() take the English text itself, a string literal: {bad}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_text_has_its_translation(lang: str) -> None:
    untranslated = []
    for m in catalog(lang):
        if not m.id:
            continue
        forms = [m.string] if isinstance(m.string, str) else list(m.string or ())
        if m.fuzzy or not forms or not all(f.strip() for f in forms):
            untranslated.append(m.id)
    assert not untranslated, f"pages.po ({lang}): no (or a fuzzy) translation for {untranslated}"


Text = str | tuple[str, ...] | list[str] | None


def placeholder_faults(msgid: Text, text: Text) -> list[str]:
    """The forms of a translation whose {placeholders} are not its msgid's: a plural's
    forms are held to its msgid_plural, the "one" form may say its {n} in words."""
    ids = [msgid] if isinstance(msgid, str) else list(msgid or ())
    forms = [text] if isinstance(text, str) else list(text or ())
    wanted = set(PLACEHOLDER.findall(ids[-1]))
    faults = []
    for i, form in enumerate(forms):
        have = set(PLACEHOLDER.findall(form))
        if have == wanted or (len(ids) > 1 and i == 0 and have == wanted - {"n"}):
            continue
        faults.append(form)
    return faults


def test_the_placeholder_check_finds_a_lost_or_made_up_one() -> None:
    assert placeholder_faults("{name} called stop", "{name} hat Stopp gerufen") == []
    assert placeholder_faults("{name} called stop", "hat Stopp gerufen") == ["hat Stopp gerufen"]
    assert placeholder_faults("Round {round}", "Runde {runde}") == ["Runde {runde}"]
    plural = ("{n} card", "{n} cards")
    assert placeholder_faults(plural, ("eine Karte", "{n} Karten")) == []
    assert placeholder_faults(plural, ("{n} Karte", "Karten")) == ["Karten"]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_translation_keeps_the_placeholders_of_its_msgid(lang: str) -> None:
    wrong = [(m.id, f) for m in catalog(lang) if m.id for f in placeholder_faults(m.id, m.string)]
    assert not wrong, f"pages.po ({lang}): placeholders lost or made up: {wrong}"
