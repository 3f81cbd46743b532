"""Accessibility (issue 14, point 7): axe-core (npm, tests/web/axe) audits every page of
the box, in light and in dark, mid-game; no serious or critical violation is allowed.
And the table's entries work by keyboard alone.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("playwright.sync_api")

from playwright.sync_api import Browser, expect

from . import browser_support as support
from .browser_support import (
    PHONE,
    Served,
    Watch,
    audit,
    enter,
    log_in,
    new_game,
    start_round,
    table_and_pads,
    wait_for_go,
)

playwright, browser, served = support.playwright, support.browser, support.served

PAGES = ["/", "/finish", "/table", "/pads", "/join", "/tv", "/buzzer"]


def test_every_page_passes_axe_in_light_and_dark(served: Served, browser: Browser) -> None:
    watch = Watch(served.url)
    # the injected axe script needs the CSP bypassed: the box's own pages never do
    context = browser.new_context(viewport=PHONE, bypass_csp=True, has_touch=True)
    try:
        table, pads = table_and_pads(watch, context, served, "ligretto", ["Ann", "Ben", "Cara"])
        start_round(table, pads)
        wait_for_go(pads)
        pads.get_by_test_id("pad-stop-1").tap()
        pads.get_by_test_id("pad-stop-2").tap()
        enter(table, "stacks", {0: 3, 2: 5})
        expect(table.get_by_test_id("middle-form")).to_be_visible()

        found = {}
        for path in PAGES:
            page = watch.page(context)
            page.goto(f"{served.url}{path}")
            expect(page.get_by_test_id("live")).to_have_attribute("data-status", "live")
            found[path] = audit(page)
            page.close()  # each page holds a live stream: Chromium allows 6 per host
        found["/table (scoring)"] = audit(table)
        bad = {p: v for p, v in found.items() if v}
        assert not bad, json.dumps(bad, indent=1, ensure_ascii=False)
        watch.check()
    finally:
        context.close()


def test_the_table_works_by_keyboard(served: Served, browser: Browser) -> None:
    watch = Watch(served.url)
    context = browser.new_context(viewport=PHONE)
    try:
        table = watch.page(context)
        table.goto(f"{served.url}/table")
        log_in(table, served.pin)
        new_game(table, "kids", ["Ann", "Ben"])
        pads = watch.page(context)
        pads.goto(f"{served.url}/pads")
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
