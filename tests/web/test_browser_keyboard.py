"""Every control of every page works by keyboard (issue 14, point 7): Tab reaches it,
its focus shows, Enter and Space work it (tests/web/keyboard.py says how each is
checked). The pages are walked in the states a table sees: a guest's PIN form, the
new-game form, the lobby, a round being scored, every page mid-game (the TV view on a
1920×1080 TV), the pad test, a guest's seat picker and buzzer; then Twist's pile pads
and a Twin It! claim."""

from __future__ import annotations

import json

from playwright.sync_api import Browser, Page, expect

from .browser_support import (
    FITS,
    Served,
    browsing,
    enter,
    new_game,
    phones_on,
    play,
    table_and_pads,
    table_page,
)
from .keyboard import walk
from .tv_steps import Scorekeeper

PAGES = ["/", "/finish", "/join", "/tv"]


def walked(page: Page, found: dict[str, list[str]], name: str) -> None:
    problems = walk(page)
    if problems:
        found[name] = problems
    page.reload()  # the walk caught the page's clicks and requests: a fresh one goes on
    expect(page.get_by_test_id("live")).to_have_attribute("data-status", "live")


def test_every_control_of_every_page_works_by_keyboard(served: Served, browser: Browser) -> None:
    found: dict[str, list[str]] = {}
    with browsing(served, browser, "light", "light") as (watch, (host, guest)):
        page = watch.open(guest, "/table")
        expect(page.get_by_test_id("pin-input")).to_be_visible()
        walked(page, found, "/table (the PIN)")

        table = table_page(watch, host, served)
        expect(table.get_by_test_id("newgame-form")).to_be_visible()
        walked(table, found, "/table (a new game)")
        new_game_by_keyboard(table)
        walked(table, found, "/table (the lobby)")

        pads = watch.open(host, "/pads")
        phones_on(table)
        play(table, pads)
        pads.get_by_test_id("pad-stop-1").tap()
        enter(table, "stacks", {0: 3, 2: 5})
        expect(table.get_by_test_id("middle-form")).to_be_visible()
        walked(table, found, "/table (scoring)")
        walked(pads, found, "/pads")
        pads.close()  # each page holds a live stream: Chromium allows 6 per host
        for path in PAGES:
            page = watch.page(host)
            if path == "/tv":  # walked on the TV it is made for
                page.set_viewport_size(FITS["tv"])
            page.goto(f"{served.url}{path}")
            expect(page.get_by_test_id("live")).to_have_attribute("data-status", "live")
            walked(page, found, path)
            page.close()

        page = watch.open(guest, "/buzzer")
        expect(page.get_by_test_id("buzzer-seat-0")).to_be_enabled()
        walked(page, found, "/buzzer (a seat to pick)")
        page.get_by_test_id("buzzer-seat-0").click()
        expect(page.get_by_test_id("buzzer-stop")).to_be_visible()
        walked(page, found, "/buzzer (Ann's)")
        assert not found, json.dumps(found, indent=1, ensure_ascii=False)
        watch.check()


def new_game_by_keyboard(table: Page) -> None:
    """The new-game form filled and sent with the keyboard alone."""
    table.get_by_test_id("game-ligretto").focus()
    table.keyboard.press("Space")
    table.get_by_test_id("player-name-0").focus()
    table.keyboard.type("Ann")
    table.keyboard.press("Tab")
    table.keyboard.type("Ben")
    table.get_by_test_id("add-player").focus()
    table.keyboard.press("Enter")
    table.get_by_test_id("player-name-2").focus()
    table.keyboard.type("Cara")
    table.keyboard.press("Enter")
    expect(table.get_by_test_id("phase")).to_have_attribute("data-phase", "lobby")


def test_twist_piles_and_a_twin_it_claim_work_by_keyboard(served: Served, browser: Browser) -> None:
    """The other games' own controls: Ligretto Twist's pile pads, a Twin It! claim to
    settle and its slaps to take back."""
    found: dict[str, list[str]] = {}
    with browsing(served, browser) as (watch, [host]):
        table, pads = table_and_pads(watch, host, served, "twist", ["Ann", "Ben"])
        expect(pads.get_by_test_id("pad-pile-1-3")).to_be_visible()
        walked(pads, found, "/pads (Twist)")
        new_game(table, "twinit", ["Ann", "Ben", "Cara"])
        play(table, pads)
        # Ben's slap, Ann's 1 ms after (their moments given: both in the claim's second)
        Scorekeeper(browser.new_context(), served).presses([(1, "slap"), (0, "slap")])
        expect(table.get_by_test_id("claim")).to_contain_text("Ben claims a pair")
        expect(table.get_by_test_id("void-row-1")).to_be_visible()
        walked(table, found, "/table (a Twin It! claim)")
        walked(pads, found, "/pads (Twin It!)")
        assert not found, json.dumps(found, indent=1, ensure_ascii=False)
        watch.check()
