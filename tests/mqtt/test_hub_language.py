"""The hub's page in the reader's language, in a real browser against a real `buzzerbox
hub` and mosquitto: a German TV finds no English on it, and its language switch changes
the page and is remembered."""

from __future__ import annotations

from playwright.sync_api import Browser, expect
from web import browser_support as support  # type: ignore[import-not-found]
from web.test_browser_language import (  # type: ignore[import-not-found]
    english_left,
    english_words,
)

from .mqtt_fakes import Mosquitto
from .test_board import state
from .test_untrusted import Hub, publish

# the browser fixtures of the web tests (Debian's Chromium, headless)
playwright, browser = support.playwright, support.browser


def test_the_hubs_page_in_german_and_its_switch(
    broker: Mosquitto, hub: Hub, browser: Browser
) -> None:
    url = f"http://127.0.0.1:{hub.port}/"
    context = browser.new_context(viewport=support.TV)
    context.set_extra_http_headers({"Accept-Language": "de"})
    watch = support.Watch(url.rstrip("/"))
    try:
        page = watch.page(context)
        page.goto(url)
        expect(page.locator("html")).to_have_attribute("lang", "de")
        expect(page.locator("#live")).to_have_attribute("data-status", "live")
        publish(broker.url, [("buzzerbox/t1/state", state(3), True)])
        card = page.locator('article[data-box="t1"]')
        expect(card.locator(".phase")).to_have_text("läuft")
        expect(page.get_by_test_id("summary")).to_have_text("1 von 1 Tisch online · 1 spielen")
        assert english_left(page, english_words("de")) == []

        with page.expect_navigation():
            page.get_by_label("Sprache").select_option("da")
        expect(page.locator("html")).to_have_attribute("lang", "da")
        expect(card.locator(".phase")).to_have_text("i gang")
        page.reload()  # the phone keeps the choice
        expect(page.get_by_label("Sprog")).to_have_value("da")
        expect(page.get_by_test_id("summary")).to_have_text("1 af 1 bord online · 1 spiller")
        watch.check()
    finally:
        context.close()
