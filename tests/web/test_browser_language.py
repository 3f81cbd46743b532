"""The pages in the reader's language, in a real browser against the real `buzzerbox
serve` (the pages' own CSP): a round of Ligretto on German phones leaves no English text
on any page, and the language switch changes a page and is remembered on the next."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from babel.messages.pofile import read_po
from buzzerbox.i18n import LOCALE_DIR
from playwright.sync_api import Browser, Page, expect

from .browser_support import (
    Served,
    Watch,
    browsing,
    confirm,
    enter,
    german_phone,
    new_game,
    served_with,
    wait_for_go,
)
from .tv_steps import Scorekeeper

NAMES = ["Lea", "Tom"]
GAMES = {"ligretto", "twist", "kids", "twin", "it"}  # the games' names are theirs
WORD = re.compile(r"[A-Za-zÀ-ÿ]{2,}")

# every text a person reads on the page: text nodes (a <select>'s options are the
# languages, each in its own name; <code> and <kbd> are pad ids and keys), and the labels
# and titles read out or shown on hover
TEXTS = """() => {
  const shown = (el) => el.checkVisibility({ visibilityProperty: true });
  const texts = [document.title];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest("select, script, style, noscript, code, kbd") || !shown(el)) continue;
    if (node.textContent.trim()) texts.push(node.textContent.trim());
  }
  for (const el of document.querySelectorAll("[aria-label], [title], [alt], [placeholder]")) {
    if (!shown(el) && !el.closest(".live")) continue;
    for (const name of ["aria-label", "title", "alt", "placeholder"]) {
      if (el.getAttribute(name)) texts.push(el.getAttribute(name));
    }
  }
  return texts;
}"""


def english_words(lang: str) -> set[str]:
    """The words of the pages' English texts (pages.po's msgids) that the language's
    own texts never use: "Runde", "Ligretto", "Buzzer" or "live" are not English left over."""
    with open(Path(LOCALE_DIR, lang, "LC_MESSAGES", "pages.po"), "rb") as po:
        catalog = read_po(po, locale=lang)
    english: set[str] = set()
    own: set[str] = set()
    for m in catalog:
        if not m.id:
            continue
        for text in [m.id] if isinstance(m.id, str) else m.id:
            english |= {w.lower() for w in WORD.findall(PLACEHOLDER.sub(" ", text))}
        for text in [m.string] if isinstance(m.string, str) else m.string or ():
            own |= {w.lower() for w in WORD.findall(PLACEHOLDER.sub(" ", text))}
    return english - own - {n.lower() for n in NAMES} - GAMES - {"buzzerbox"}


PLACEHOLDER = re.compile(r"\{\w+\}")


def english_left(page: Page, words: set[str]) -> list[str]:
    """The texts on `page` with an English word in them."""
    return [
        text for text in page.evaluate(TEXTS) if any(w.lower() in words for w in WORD.findall(text))
    ]


served = served_with("language", "countdown_s = 1.0\n")


def unlock(table: Page, pin: str) -> None:
    table.get_by_test_id("pin-input").fill(pin)
    table.get_by_test_id("pin-submit").click()
    expect(table.get_by_test_id("login")).to_be_hidden()


@dataclass
class German:
    """Phones in German (the table's, logged in, and a viewer's) and what English they
    show: `look(page, where)` notes every English text left on `page`."""

    served: Served
    watch: Watch
    table: Page
    viewer: Page
    words: set[str]
    found: dict[str, list[str]] = field(default_factory=dict)

    def look(self, page: Page, where: str) -> None:
        expect(page.locator("html")).to_have_attribute("lang", "de")
        left = english_left(page, self.words)
        if left:
            self.found[where] = left

    def page(self, path: str) -> Page:
        page = self.watch.page(self.table.context)
        page.goto(f"{self.served.url}{path}")
        return page


@contextmanager
def german_phones(served: Served, browser: Browser) -> Iterator[German]:
    with browsing(served, browser, german_phone, german_phone) as (watch, (table_phone, viewer)):
        table = watch.open(table_phone, "/table")
        at = German(served, watch, table, watch.page(viewer), english_words("de"))
        at.look(table, "the PIN form")
        unlock(table, served.pin)
        at.viewer.goto(f"{served.url}/")
        yield at
        assert not at.found, f"English left on German pages: {at.found}"
        watch.check()


def test_a_round_on_german_phones_leaves_no_english(served: Served, browser: Browser) -> None:
    assert {"round", "the", "player", "wins", "called"} <= english_words("de")  # it knows English
    with german_phones(served, browser) as at:
        table, viewer, look = at.table, at.viewer, at.look
        look(table, "the new-game form")
        new_game(table, "ligretto", NAMES)
        look(table, "the table, lobby")
        pads = at.page("/pads")
        look(viewer, "the scoreboard, lobby")
        look(pads, "the pads, lobby")

        table.get_by_test_id("start-round").click()
        expect(viewer.get_by_test_id("countdown-big")).to_be_visible()
        look(viewer, "the scoreboard, counting down")
        wait_for_go(pads)
        look(table, "the table, playing")
        pads.keyboard.press("2")  # Tom calls "Ligretto Stop"
        expect(table.get_by_test_id("stacks-form")).to_be_visible()
        pads.keyboard.press("1")  # Lea too, after the call: late, with her lead
        look(table, "the stacks")
        look(pads, "the pads, scoring")
        look(viewer, "the scoreboard, scoring")
        enter(table, "stacks", {0: 4})
        expect(table.get_by_test_id("middle-form")).to_be_visible()
        look(table, "the middle")
        enter(table, "middle", {0: 12, 1: 15})
        expect(viewer.get_by_test_id("total-0")).to_have_text("4")  # 12 − 2 × 4
        look(table, "the table, scored")
        look(viewer, "the scoreboard, scored")
        expect(viewer.get_by_test_id("subline")).to_have_text("Als Nächstes Runde 2")

        for path in ("/finish", "/tv", "/join", "/buzzer"):
            viewer.goto(f"{served.url}{path}")
            expect(viewer.get_by_test_id("live")).to_have_attribute("data-status", "live")
            look(viewer, path)
        # the photo finish in German numbers: a lead in ms or s has a decimal comma
        viewer.goto(f"{served.url}/finish")
        expect(viewer.get_by_test_id("lead-1")).to_have_text(re.compile(r"^\+\d+,\d{3} (ms|s)$"))

        confirm(table, "finish")
        expect(table.get_by_test_id("table-winners")).to_have_text("Tom gewinnt!")
        look(table, "the table, finished")
        viewer.goto(f"{served.url}/")
        expect(viewer.get_by_test_id("winners")).to_contain_text("mit 15 Punkten nach 1 Runde")
        look(viewer, "the scoreboard, finished")


def test_twin_it_on_german_phones_leaves_no_english(served: Served, browser: Browser) -> None:
    with german_phones(served, browser) as at:
        table, viewer, look = at.table, at.viewer, at.look
        new_game(table, "twinit", NAMES)
        pads = at.page("/pads")
        table.get_by_test_id("start-round").click()
        wait_for_go(pads)
        look(table, "Twin It!, watching")
        # Tom's hand is underneath, Lea's on top 1 ms later (their moments given: both
        # in the claim's second however slow the machine)
        Scorekeeper(browser.new_context(), served).presses([(1, "slap"), (0, "slap")])
        expect(table.get_by_test_id("claim")).to_contain_text("Tom meldet ein Paar")
        look(table, "Twin It!, a claim")
        look(viewer, "Twin It!, the scoreboard in a claim")
        table.get_by_test_id("claim-pair").click()
        expect(table.get_by_test_id("claim-news")).to_have_text("Tom nimmt ein Paar")
        expect(table.get_by_test_id("undo")).to_have_text("Rückgängig: das Paar von Tom")
        look(table, "Twin It!, a pair taken")
        look(viewer, "Twin It!, the scoreboard")
        pads.keyboard.press("1")
        table.get_by_test_id("claim-error").click()
        expect(viewer.get_by_test_id("headline")).to_have_text("Lea lag falsch: kein Paar")
        look(viewer, "Twin It!, an error")
        look(pads, "Twin It!, the pads")


def test_the_switch_changes_the_page_and_the_phone_keeps_it(
    served: Served, browser: Browser
) -> None:
    with browsing(served, browser) as (watch, (context,)):  # it asks for nothing: English
        page = watch.open(context, "/")
        expect(page.locator("html")).to_have_attribute("lang", "en")
        expect(page.get_by_test_id("tab-scoreboard")).to_have_text("Score")
        switch = page.get_by_label("Language")
        expect(switch).to_have_value("en")
        expect(switch.locator("option[value=da]")).to_have_text("Dansk")  # in its own name
        with page.expect_navigation():
            switch.select_option("da")
        expect(page.locator("html")).to_have_attribute("lang", "da")
        expect(page.get_by_test_id("tab-scoreboard")).to_have_text("Stilling")
        expect(page.get_by_label("Sprog")).to_have_value("da")

        # the next page, and a page opened later, are in Danish too
        page.get_by_test_id("tab-finish").click()
        expect(page.locator("html")).to_have_attribute("lang", "da")
        expect(page.get_by_test_id("photo-title")).to_have_text("Målfoto")
        later = watch.open(context, "/tv")
        expect(later.get_by_test_id("tv-sound")).to_have_text("Lyd fra")

        # and back to English
        with later.expect_navigation():
            later.get_by_label("Sprog").select_option("en")
        expect(later.get_by_test_id("tv-sound")).to_have_text("Sound off")
        watch.check()
