"""The TV view (issue 14, point 4) on a 1920×1080 screen, against the real box.

Twelve players fit without scrolling, the photo finish is in view, and every race
is shouted: "FIRST! name, by … over …", with a tone once the sound is switched on.
"""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from .browser_support import FITS, Served, Watch, enter, fits, new_game, phone, play, table_page

NAMES = [
    "Ann",
    "Ben",
    "Cara",
    "Dan",
    "Eli",
    "Fay",
    "Gus",
    "Hana",
    "Ivo",
    "Maximilian-Alexander",
    "Kai",
    "Lou",
]

#: the rows and the photo, each wholly on the screen
IN_VIEW = """() => [...document.querySelectorAll("#tv-standings > li, #photo")]
  .map((el) => [el.dataset.testid || el.id, el.getBoundingClientRect().toJSON()])
  .filter(([, r]) => r.top < 0 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5)"""


def test_the_tv_view_fits_twelve_and_shouts_the_first(served: Served, browser: Browser) -> None:
    watch = Watch(served.url)
    hand = phone(browser)
    screen = browser.new_context(viewport=FITS["tv"], color_scheme="dark")
    try:
        table = table_page(watch, hand, served)
        new_game(table, "ligretto", NAMES)
        pads = watch.open(hand, "/pads")

        tv = watch.open(screen, "/tv")
        expect(tv.get_by_test_id("tv-standings").locator("li")).to_have_count(12)
        expect(tv.get_by_test_id("tv-player-0")).to_contain_text("=1")
        assert tv.evaluate(IN_VIEW) == []
        tv.get_by_test_id("tv-sound").click()
        expect(tv.get_by_test_id("tv-sound")).to_have_attribute("aria-pressed", "true")

        # a race: Kai's stop pad first, Ben's right after
        play(table, pads)
        pads.get_by_test_id("pad-stop-10").tap()
        pads.get_by_test_id("pad-stop-1").tap()
        reveal = tv.get_by_test_id("tv-reveal")
        expect(reveal).to_be_visible()
        expect(reveal).to_contain_text("FIRST!")
        expect(tv.get_by_test_id("tv-reveal-name")).to_have_text("Kai")
        expect(tv.get_by_test_id("tv-reveal-by")).to_have_text(
            # the virtual pads' times are the requests' arrival: some ms apart
            re.compile(r"^by \d+(\.\d+)? (µs|ms|s) over Ben$")
        )
        assert int(tv.evaluate("document.body.dataset.tones || '0'")) >= 2  # ready, go, first
        expect(tv.get_by_test_id("tv-photo")).to_contain_text("Kai")
        expect(reveal).to_be_hidden()  # after a few seconds, the board again
        assert tv.evaluate(IN_VIEW) == []
        fits(tv, "tv-playing")

        # scored: the totals on the TV, in ranking order
        enter(table, "stacks", {i: 3 for i in range(12) if i != 10})
        enter(table, "middle", {i: 4 for i in range(12)})
        expect(tv.get_by_test_id("tv-total-10")).to_have_text("4")
        expect(tv.get_by_test_id("tv-standings").locator("li").first).to_contain_text("Kai")
        expect(tv.get_by_test_id("tv-player-0")).to_contain_text("=2")
        assert tv.evaluate(IN_VIEW) == []
        fits(tv, "tv-scored")
        watch.check()
    finally:
        hand.close()
        screen.close()
