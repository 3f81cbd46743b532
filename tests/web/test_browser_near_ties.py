"""Honest near ties (issue 41, item 4) in Chromium against the real `buzzerbox serve`:
two presses timed at the touch to ±0.9 ms (a phone's clock map, as the pages send it:
`touch_us`, `error_us`) and 0.2 ms apart are too close to call. The guests' buzzer
phones (Ann's in English, Chloé's in German) and the TV's photo finish say so, and how
it is decided (the table names the caller), and the photo finish draws each press with
its error bar, the two overlapping; a clear win (22.3 ms, each ±0.9 ms) still says by
how much."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, BrowserContext, Page, expect

from .browser_support import (
    Served,
    Watch,
    browsing,
    german_phone,
    served_with,
    tv_screen,
    wait_for_go,
)
from .tv_steps import Scorekeeper, scored_ligretto

ERROR_US = 900
served = served_with("near-ties", "countdown_s = 1.0\n")


def guest(watch: Watch, context: BrowserContext, served: Served, seat: int) -> Page:
    page = watch.page(context)
    page.goto(f"{served.url}/buzzer")
    page.get_by_test_id(f"buzzer-seat-{seat}").click()
    expect(page.get_by_test_id("buzzer-title")).to_be_visible()
    return page


def race(keeper: Scorekeeper, buzzer: Page, gap_us: int) -> None:
    """A round; after the go, Ann's stop then Chloé's `gap_us` later, each timed at the
    touch to ±ERROR_US (as a phone's press is, or a virtual pad's on the pads page)."""
    keeper.event(type="round")
    wait_for_go(buzzer, "buzzer-phase")
    go_t_us = keeper.request.get(f"{keeper.url}/api/state").json()["go_t_us"]
    # both touches after the go, `gap_us` apart however slow the machine (their moments
    # given, each before its request leaves)
    keeper.presses([(0, "stop"), (1, "stop")], gap_us, ERROR_US, after_us=go_t_us)


#: each error bar's box on the photo finish's tracks: [left, right], px
BARS = """() => [...document.querySelectorAll("#photo [data-testid=error-bar]")]
  .map((b) => { const r = b.getBoundingClientRect(); return [r.left, r.right]; })"""
#: each press's mark on the tracks: its left, px
MARKS = """() => [...document.querySelectorAll("#photo .track .mark")]
  .map((m) => m.getBoundingClientRect().left)"""


def test_a_near_tie_is_too_close_to_call_on_the_phones_and_the_tv_a_clear_win_is_not(
    served: Served, browser: Browser
) -> None:
    with browsing(served, browser, "light", "light", german_phone, tv_screen) as (
        watch,
        (host, one, two, screen),
    ):
        keeper = Scorekeeper(host, served)
        keeper.game("ligretto", ["Ann", "Chloé"])
        keeper.post("phones", {"on": True})
        ann = guest(watch, one, served, 0)
        chloe = guest(watch, two, served, 1)
        tv = watch.open(screen, "/tv")

        race(keeper, ann, 200)
        expect(ann.get_by_test_id("buzzer-title")).to_have_text("Too close to call with Chloé")
        expect(ann.get_by_test_id("buzzer-detail")).to_have_text("The table names the caller.")
        expect(chloe.get_by_test_id("buzzer-title")).to_have_text(
            "Zu knapp für eine Entscheidung mit Ann"
        )
        margin = tv.locator("#photo [data-testid=photo-margin]")
        expect(margin).to_have_text("too close to call with Chloé: 200 µs apart, timed to ±900 µs")
        expect(tv.locator("#photo [data-testid=photo-decided]")).to_have_text(
            "The table names the caller."
        )
        expect(tv.locator("#photo")).not_to_contain_text("by 200")
        expect(tv.locator("#photo").get_by_test_id("error-1")).to_have_text(" · ±900 µs")
        (a, b), (c, d) = tv.evaluate(BARS)
        marks = tv.evaluate(MARKS)
        assert c < b and a < d, "the two presses' error bars overlap"
        assert abs(marks[1] - marks[0]) < (b - a) / 2, "a 0.2 ms gap is not stretched"

        keeper.event(type="caller", seat=0)
        scored_ligretto(keeper, ["Ann", "Chloé"], 0, 1)
        race(keeper, ann, 22_300)
        expect(ann.get_by_test_id("buzzer-title")).to_have_text("You were first!")
        expect(ann.get_by_test_id("buzzer-detail")).to_contain_text("Chloé was 22.3 ms behind.")
        expect(chloe.get_by_test_id("buzzer-title")).to_have_text(re.compile(r"22,3 ms"))
        expect(margin).to_have_text("by 22.300 ms over Chloé")
        expect(tv.get_by_test_id("tv-reveal-by")).to_have_text("by 22.300 ms over Chloé")
        (a, b), (c, d) = tv.evaluate(BARS)
        assert b < c, "a clear win's error bars are apart"
        watch.check()
