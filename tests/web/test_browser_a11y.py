"""Accessibility (issue 14, point 7): axe-core (npm, tests/web/axe) audits every page of
the box with its real CSP, in light and in dark, on a phone and on a 1080p TV, mid-game;
no serious or critical violation is allowed. And the table's entries work by keyboard
alone (every control of every page: test_browser_keyboard.py).
"""

from __future__ import annotations

import json

from playwright.sync_api import Browser, expect

from .axe_audit import CSP_HOLDS, audit
from .browser_support import (
    PHONE,
    Served,
    Watch,
    browsing,
    confirm,
    enter,
    new_game,
    phones_on,
    play,
    table_page,
    wait_for_go,
)

PAGES = ["/", "/finish", "/table", "/pads", "/join", "/tv", "/buzzer"]


def test_every_page_passes_axe_in_light_and_dark_on_a_phone_and_a_tv(
    served: Served, browser: Browser
) -> None:
    """With the pages' real CSP (no bypass): the host's pages (the new-game form, every
    page mid-game, the game over), a guest's (the PIN form, the seat picker, a buzzer)."""
    with browsing(served, browser, "light", "light") as (watch, (host, guest)):
        found = {}
        table = table_page(watch, host, served)
        expect(table.get_by_test_id("newgame-form")).to_be_visible()
        found["/table (a new game)"] = audit(table)
        new_game(table, "ligretto", ["Ann", "Ben", "Cara"])
        pads = watch.open(host, "/pads")
        phones_on(table)
        play(table, pads)
        pads.get_by_test_id("pad-stop-1").tap()
        pads.get_by_test_id("pad-stop-2").tap()
        enter(table, "stacks", {0: 3, 2: 5})
        expect(table.get_by_test_id("middle-form")).to_be_visible()

        for path in PAGES:
            page = watch.page(host)
            page.goto(f"{served.url}{path}")
            expect(page.get_by_test_id("live")).to_have_attribute("data-status", "live")
            found[path] = audit(page)
            page.close()  # each page holds a live stream: Chromium allows 6 per host
        found["/table (scoring)"] = audit(table)
        pads.close()
        page = watch.open(guest, "/table")
        expect(page.get_by_test_id("pin-input")).to_be_visible()
        found["/table (guest: the PIN)"] = audit(page)
        page.goto(f"{served.url}/pads")
        expect(page.get_by_test_id("pin-input")).to_be_visible()
        found["/pads (guest: the PIN)"] = audit(page)
        page.goto(f"{served.url}/buzzer")
        expect(page.get_by_test_id("buzzer-seat-1")).to_be_enabled()
        found["/buzzer (a seat to pick)"] = audit(page)
        page.get_by_test_id("buzzer-seat-1").click()
        expect(page.get_by_test_id("buzzer-stop")).to_be_visible()
        found["/buzzer (Ben's)"] = audit(page)
        confirm(table, "finish")
        expect(table.get_by_test_id("table-winners")).to_be_visible()
        found["/table (finished)"] = audit(table)
        page.goto(f"{served.url}/")
        expect(page.get_by_test_id("winners")).to_be_visible()
        found["/ (finished)"] = audit(page)
        bad = {p: v for p, v in found.items() if v}
        assert not bad, json.dumps(bad, indent=1, ensure_ascii=False)
        watch.check()


def test_the_table_works_by_keyboard(served: Served, browser: Browser) -> None:
    watch = Watch(served.url)
    context = browser.new_context(viewport=PHONE)
    try:
        table = table_page(watch, context, served)
        new_game(table, "kids", ["Ann", "Ben"])
        pads = watch.open(context, "/pads")
        # start by keyboard: focus the button, Enter
        table.get_by_test_id("start-round").focus()
        table.keyboard.press("Enter")
        wait_for_go(pads)
        # name the caller by keyboard: Tab to Ann's button, Space
        table.get_by_test_id("caller-0").focus()
        table.keyboard.press("Space")
        expect(table.get_by_test_id("left-form")).to_be_visible()
        # type Ben's count and save it with Enter, no pointer at all
        table.get_by_test_id("left-1").focus()
        table.keyboard.type("4")
        table.keyboard.press("Enter")
        expect(table.get_by_test_id("mini-totals")).to_contain_text("Ben4")
        watch.check()
    finally:
        context.close()


def test_the_audit_sees_what_it_must_under_the_pages_csp(served: Served, browser: Browser) -> None:
    """The audit is no empty pass: under the real CSP it finds a nameless button and
    grey-on-white text, at both sizes (and the CSP still holds afterwards)."""
    with browsing(served, browser) as (_, [context]):
        page = context.new_page()
        page.goto(f"{served.url}/join")
        expect(page.get_by_test_id("live")).to_have_attribute("data-status", "live")
        page.evaluate(
            """() => {
              const p = Object.assign(document.createElement("p"), {textContent: "faint"});
              p.style.color = "#ddd";
              p.style.background = "#fff";
              document.querySelector("main").append(document.createElement("button"), p);
            }"""
        )
        found = {(v[0], v[1], v[2]) for v in audit(page)}
        for size in ("phone", "tv"):
            assert (size, "light", "button-name") in found, found
            assert (size, "light", "color-contrast") in found, found
        assert page.evaluate(CSP_HOLDS)
