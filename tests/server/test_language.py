"""Which language a page is said in (server/language.py), and the catalogs' files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from buzzerbox.box import Box
from buzzerbox.errors import BuzzerboxError, Words
from buzzerbox.i18n import LANGUAGES, LOCALE_DIR, say
from buzzerbox.web import create_app
from flask import Flask
from flask.testing import FlaskClient


def lang_of(client: FlaskClient, path: str = "/", **headers: str) -> str:
    html = client.get(path, headers=headers).get_data(as_text=True)
    return html.split('<html lang="', 1)[1].split('"', 1)[0]


@pytest.mark.parametrize(
    ("accept", "lang"),
    [
        ("da", "da"),
        ("de-AT,de;q=0.9,en;q=0.5", "de"),
        ("fr-CA,en;q=0.1", "fr"),  # the first the box speaks, not the first exact one
        ("es,pt;q=0.9", "en"),  # none the box speaks: the table's, English here
        ("", "en"),
    ],
)
def test_a_page_is_in_the_browsers_language(client: FlaskClient, accept: str, lang: str) -> None:
    assert lang_of(client, Accept_Language=accept) == lang


def test_the_switch_wins_over_the_browser(client: FlaskClient) -> None:
    client.set_cookie("lang", "fr")
    assert lang_of(client, Accept_Language="de") == "fr"
    client.set_cookie("lang", "xx")  # a cookie the box does not know is no choice
    assert lang_of(client, Accept_Language="de") == "de"


def test_the_tv_follows_the_table_and_a_phone_its_browser(
    box: Box, app_config: dict[str, Any]
) -> None:
    client = create_app(box, {**app_config, "LANGUAGE": "da"}).test_client()
    assert lang_of(client, "/tv", Accept_Language="de") == "da"
    assert lang_of(client, "/", Accept_Language="de") == "de"
    assert lang_of(client, "/", Accept_Language="es") == "da"
    client.set_cookie("lang", "fr")
    assert lang_of(client, "/tv", Accept_Language="de") == "fr"


def test_the_pages_catalog_is_served_and_kept(client: FlaskClient) -> None:
    answer = client.get("/i18n/de.json")
    assert answer.status_code == 200
    assert answer.json is not None and answer.json["lang"] == "de"
    assert isinstance(answer.json["messages"], dict)
    again = client.get("/i18n/de.json", headers={"If-None-Match": answer.headers["ETag"]})
    assert again.status_code == 304
    unknown = client.get("/i18n/xx.json")
    assert unknown.status_code == 404
    assert "en, de, fr, da" in unknown.get_data(as_text=True)


def test_a_refusal_carries_its_code_and_its_values_are_in_the_readers_language(app: Flask) -> None:
    @app.get("/refuse-for-test")
    def refused() -> str:
        raise BuzzerboxError(
            Words("{name} pressed {n} times", {"name": "Ben", "n": 1234}), code="x"
        )

    answer = app.test_client().get("/refuse-for-test", headers={"Accept-Language": "de"})
    # no German text for it: the English words, with the number as German writes it
    assert answer.json == {"error": "Ben pressed 1.234 times", "code": "x"}


def test_values_are_written_as_the_language_writes_them() -> None:
    words = Words("{ms} ms behind", {"ms": 12.5})
    assert say(words, "en") == "12.5 ms behind"
    assert say(words, "de").startswith("12,5")  # no German text yet: the English, German number


def same(text: str | tuple[str, ...] | list[str] | None) -> str | tuple[str, ...] | None:
    """A message's id or text as both readers give it (a plural's: a list or a tuple)."""
    return tuple(text) if isinstance(text, list | tuple) else text


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
@pytest.mark.parametrize("domain", ["messages", "pages"])
def test_each_compiled_catalog_is_its_po(lang: str, domain: str) -> None:
    folder = Path(LOCALE_DIR, lang, "LC_MESSAGES")
    with open(folder / f"{domain}.po", "rb") as po, open(folder / f"{domain}.mo", "rb") as mo:
        source, compiled = read_po(po), read_mo(mo)
    wanted = {same(m.id): same(m.string) for m in source if m.id and m.string and not m.fuzzy}
    have = {same(m.id): same(m.string) for m in compiled if m.id}
    assert have == wanted, (
        f"{folder / domain}.mo is not its .po: run pybabel compile (i18n/README.md)"
    )
