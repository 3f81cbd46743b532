"""Mistakes at the table, on two scorekeepers' phones (issue 14, point 1, client side).

Counts typed stay on the phone until the round moves on (a reload or an undo finds
them again); a phone whose form another phone saved first says so.
"""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api")

from playwright.sync_api import Browser, expect

from . import browser_support as support
from .browser_support import (
    Served,
    Watch,
    enter,
    fits,
    log_in,
    new_game,
    phone,
    start_round,
    wait_for_go,
)

playwright, browser, served = support.playwright, support.browser, support.served


def test_typed_counts_stay_and_a_second_phone_is_noticed(served: Served, browser: Browser) -> None:
    watch = Watch(served.url)
    first_phone, second_phone = phone(browser), phone(browser, "dark")
    try:
        a = watch.page(first_phone)
        a.goto(f"{served.url}/table")
        log_in(a, served.pin)
        new_game(a, "ligretto", ["Ann", "Ben", "Cara"])
        b = watch.page(second_phone)
        b.goto(f"{served.url}/table")
        log_in(b, served.pin)
        pads = watch.page(first_phone)
        pads.goto(f"{served.url}/pads")
        start_round(a, pads)
        wait_for_go(pads)
        pads.get_by_test_id("pad-stop-0").tap()  # Ann calls

        # phone A types Ben's stack, then the phone reloads: the count is still there
        expect(a.get_by_test_id("stacks-form")).to_be_visible()
        a.get_by_test_id("stack-1").fill("5")
        a.reload()
        expect(a.get_by_test_id("stack-1")).to_have_value("5")
        expect(a.get_by_test_id("stack-0")).to_have_value("0")
        a.get_by_test_id("stack-2").fill("4")

        # phone B saves the stacks first: phone A is told, not silently replaced
        enter(b, "stacks", {1: 3, 2: 2})
        expect(b.get_by_test_id("middle-form")).to_be_visible()
        expect(a.get_by_test_id("middle-form")).to_be_visible()
        expect(a.get_by_test_id("table-error")).to_contain_text("Another phone saved first")
        expect(a.get_by_test_id("table-error")).to_contain_text("the stacks of round 1")
        expect(b.get_by_test_id("table-error")).to_have_text("")
        fits(a, "mistakes-notice")

        # phone B takes its stacks back: its form comes back as it was typed
        b.get_by_test_id("undo").click()
        expect(b.get_by_test_id("stacks-form")).to_be_visible()
        expect(b.get_by_test_id("stack-1")).to_have_value("3")
        expect(b.get_by_test_id("stack-2")).to_have_value("2")
        # and phone A finds its own counts again
        expect(a.get_by_test_id("stack-1")).to_have_value("5")
        expect(a.get_by_test_id("stack-2")).to_have_value("4")
        a.get_by_test_id("stacks-submit").click()
        expect(a.get_by_test_id("middle-form")).to_be_visible()
        expect(a.get_by_test_id("table-error")).to_have_text("")
        expect(b.get_by_test_id("table-error")).to_contain_text("Another phone saved first")
        watch.check()
    finally:
        first_phone.close()
        second_phone.close()
