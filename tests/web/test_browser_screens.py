"""What a family notices on the screens (issue 41, items 2, 3, 5 and 6), in Chromium
against the real box, with the long names of test_browser_layout.py.

- A Twin It! split on the TV: its count says "Split!" and what to do over the whole
  screen, the split's moment not under it ("Sp3t!"), and "Turn over!" after it, with
  nothing overlapping, on a 1080p and a 720p TV, in the four languages.
- A guest's phone that jumps the gun says so at once, above the count, with the time in
  its language's numbers ("1,32 s").
- The tab bars fit; the connection dot's words are the reader's language; /pads shows
  no pad ids or raw box times before the PIN; a badge keeps its units' case ("ms").
- Sound and vibration are one choice; the PIN's code says what to do with it; the
  new-game form shows no colour the game will not give; games left before their first
  round are hidden from Past games until asked for; /finish fills a TV.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, expect

from .browser_support import Served, browsing, served_with, table_page, wait_for_go
from .layout import LANGUAGES, LONG_NAMES, PHONES, TVS, faults
from .test_browser_buzzer_game import VIBRATE, vibrations
from .tv_steps import Scorekeeper, tv_page

#: a count long enough for a test to act in it on a busy machine
served = served_with("screens", "countdown_s = 8.0\n")
pytestmark = pytest.mark.timeout(400)

SIX = [*LONG_NAMES, "Maximilian-Alexander von", "Chloé"]


@pytest.fixture
def keeper(served: Served, browser: Browser) -> Iterator[Scorekeeper]:
    context = browser.new_context()
    yield Scorekeeper(context, served)
    context.close()


def tv_in(browser: Browser, served: Served, lang: str) -> BrowserContext:
    context = browser.new_context(viewport=TVS["1080p TV"])
    context.add_cookies([{"name": "lang", "value": lang, "url": served.url}])
    return context


def test_a_split_takes_the_tv_whole_and_nothing_overlaps(
    served: Served, browser: Browser, keeper: Scorekeeper
) -> None:
    keeper.post("phones", {"on": False})
    keeper.game("twinit", SIX, first=0)
    contexts = {lang: tv_in(browser, served, lang) for lang in LANGUAGES}
    with browsing(served, browser) as (watch, [own]):
        try:
            # each TV's clock held: its count stays where the box's last state put it
            tvs = {lang: tv_page(watch, context, served) for lang, context in contexts.items()}
            pads = watch.open(own, "/pads")
            keeper.event(type="round")
            wait_for_go(pads)
            keeper.presses([(0, "slap"), (1, "slap")])  # both in the claim's second
            keeper.event(type="claim", result="split")
            for tv in tvs.values():
                expect(tv.get_by_test_id("countdown-title")).to_be_visible()
            for context in contexts.values():  # no state comes: the "3" stays
                context.set_offline(True)
            for lang, tv in tvs.items():
                # the count as it stood (a busy machine may have reached the go)
                expect(tv.get_by_test_id("tv-reveal")).to_be_hidden()  # not under the count
                for name, size in TVS.items():
                    tv.set_viewport_size(size)
                    found = faults(tv, size, names=SIX, screen=True, frames=False)
                    assert found == [], f"{lang} on a {name}, the split's 3: {found}"
            # the count ends: "Turn over!", the split's words still over it
            for context in contexts.values():
                context.set_offline(False)
            for lang, tv in tvs.items():
                expect(tv.get_by_test_id("countdown-big")).not_to_have_text("3", timeout=15_000)
                expect(tv.get_by_test_id("countdown-title")).to_be_visible()
                for name, size in TVS.items():
                    tv.set_viewport_size(size)
                    found = faults(tv, size, names=SIX, screen=True, frames=False)
                    assert found == [], f"{lang} on a {name}, turn over: {found}"
        finally:
            for context in contexts.values():
                context.close()
        watch.check()


def guest_in(browser: Browser, served: Served, lang: str) -> BrowserContext:
    context = browser.new_context(viewport=PHONES["360 px phone"], is_mobile=True, has_touch=True)
    context.add_cookies([{"name": "lang", "value": lang, "url": served.url}])
    return context


def test_a_false_start_is_said_at_once_above_the_count(
    served: Served, browser: Browser, keeper: Scorekeeper
) -> None:
    keeper.post("phones", {"on": True})
    keeper.game("ligretto", ["Wolfeschlegelsteinhausen", "Chloé"])
    guest = guest_in(browser, served, "de")
    with browsing(served, browser) as (watch, [own]):
        try:
            phone = watch.page(guest)
            phone.add_init_script(VIBRATE)
            phone.goto(f"{served.url}/buzzer")
            phone.get_by_test_id("buzzer-seat-0").tap()
            expect(phone.get_by_test_id("buzzer-title")).to_be_visible()
            # sound and vibration are one choice: off, the phone stays still
            expect(phone.get_by_test_id("buzzer-sound")).to_have_text("Ton und Vibration: aus")
            keeper.event(type="round")
            expect(phone.get_by_test_id("countdown")).to_be_visible()
            phone.get_by_test_id("buzzer-stop").tap()
            note = phone.get_by_test_id("countdown-note")
            expect(note).to_be_visible()
            # in German, with a decimal comma, in the count's own layer above the number:
            # nothing there overlaps it
            expect(note).to_contain_text(re.compile(r"Fehlstart: \d+,\d+ s zu früh"))
            expect(phone.locator("#countdown [data-testid=countdown-note]")).to_be_visible()
            size = PHONES["360 px phone"]
            assert faults(phone, size, names=["Wolfeschlegelsteinhausen"], screen=False) == []
            assert vibrations(phone) == []
            wait_for_go(phone, "buzzer-phase")
            expect(phone.get_by_test_id("buzzer-detail")).to_contain_text(
                re.compile(r"Fehlstart: \d+,\d+ s zu früh")
            )
            pads = watch.open(own, "/pads")
            expect(pads.get_by_test_id("pads-phase")).to_have_attribute("data-phase", "playing")
        finally:
            guest.close()
        watch.check()


def test_the_words_and_numbers_are_the_readers(served: Served, browser: Browser) -> None:
    """The tab bar fits a 360 px phone in every language; the connection dot says its
    state in the page's language; /pads before the PIN shows seats and gaps, never pad
    ids or the box's raw µs; a badge's unit keeps its case."""
    keeper_context = browser.new_context()
    keeper = Scorekeeper(keeper_context, served)
    keeper.post("phones", {"on": False})
    keeper.game("ligretto", ["Wolfeschlegelsteinhausen", "Chloé"])
    live = {"en": "connected to the box", "de": "mit der Box verbunden"}
    live |= {"fr": "connecté à la box", "da": "forbundet til boksen"}
    try:
        for lang in LANGUAGES:
            context = guest_in(browser, served, lang)
            page = context.new_page()
            page.goto(f"{served.url}/pads")
            expect(page.get_by_test_id("live")).to_have_attribute("title", live[lang])
            tabs = page.evaluate(
                "() => [...document.querySelectorAll('.tabs a')].map((a) => "
                "a.getBoundingClientRect().right)"
            )
            assert max(tabs) <= 360, (lang, tabs)
            context.close()

        # a guest's /pads, before the PIN: the pad test in seats and gaps
        context = guest_in(browser, served, "en")
        guest = context.new_page()
        guest.goto(f"{served.url}/pads")
        expect(guest.get_by_test_id("login")).to_be_visible()
        keeper.event(type="round")
        wait_for_go(guest)
        keeper.press(0, "stop")
        keeper.press(1, "stop")
        edges = guest.get_by_test_id("pad-test-edges")
        expect(edges.locator("li")).to_have_count(4)
        expect(edges).to_contain_text("stop · Chloé")
        expect(edges.locator("code")).to_have_count(0)  # no pad id
        assert "µs" not in edges.inner_text()  # no raw box time
        context.close()

        # the table's own pads, logged in: a late press's badge, its unit lower-case
        context = browser.new_context()
        with browsing(served, browser) as (watch, [own]):
            table_page(watch, own, served)
            pads = watch.open(own, "/pads")
            expect(pads.get_by_test_id("pad-test-edges")).to_contain_text("µs")
            badge = pads.get_by_test_id("seat-card-1").locator(".badge").first
            expect(badge).to_be_visible()
            assert re.search(r"\d ms$", badge.inner_text()), badge.inner_text()
            watch.check()
        context.close()
    finally:
        keeper_context.close()


def test_small_things_a_family_notices(served: Served, browser: Browser) -> None:
    with browsing(served, browser, "light", lambda b: b.new_context(viewport=TVS["1080p TV"])) as (
        watch,
        [host, tv],
    ):
        table = table_page(watch, host, served)
        # the PIN's code says what to do with it
        table.get_by_test_id("show-pin").click()
        expect(table.get_by_test_id("pin-how")).to_contain_text("scan this code")
        table.get_by_test_id("show-pin").click()
        expect(table.get_by_test_id("pin-how")).to_be_hidden()

        # the new-game form numbers the seats: a colour is the player's, given by the box
        if table.get_by_test_id("new-game").is_visible():
            table.get_by_test_id("new-game").click()
            table.get_by_test_id("new-game").click()
        form = table.get_by_test_id("newgame-form")
        expect(form).to_be_visible()
        expect(form.locator(".player-row .dot")).to_have_count(0)
        expect(form.locator(".player-row .seat-no").first).to_have_text("1")

        # two games made and left before their first round: not in Past games at first
        keeper = Scorekeeper(host, served)
        keeper.game("ligretto", ["Ann", "Ben"])
        keeper.game("kids", ["Ann", "Ben"])
        keeper.game("twist", ["Ann", "Ben"])  # the game at the table: shown
        stats = watch.open(host, "/stats")
        switch = stats.get_by_test_id("past-unplayed")
        expect(switch).to_be_visible()
        expect(stats.locator(".past-game").first).to_be_visible()
        shown = stats.locator(".past-game").count()
        switch.click()
        expect(switch).to_have_attribute("aria-pressed", "true")
        expect(stats.locator(".past-game")).to_have_count(shown + 2)

        # /finish on a TV: as wide as the screen allows, its type read across a room
        finish = watch.open(tv, "/finish")
        width = finish.evaluate("() => document.querySelector('#photo-card').offsetWidth")
        size = finish.evaluate(
            "() => parseFloat(getComputedStyle(document.querySelector('#photo')).fontSize)"
        )
        assert width >= 1200 and size >= 22, (width, size)
        watch.check()
