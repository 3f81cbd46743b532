"""The TV view (issue 14, point 4; issue 24, item 3) against the real box, on a 1080p
and a 720p screen with twelve players and long names.

No name is cut (its box holds all of its text: scrollWidth <= clientWidth), every row
and the photo finish are on the screen, the call takes the whole screen ("Jean-Luc
Picard called — count your cards", by how much over the runner), the photo finish is
readable across the room, and the winners take the screen for good with everyone's
total.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Browser, Page, ViewportSize, expect

from .axe_audit import audit
from .browser_support import FITS, Served, browsing, dark_tv, fits
from .tv_steps import (
    FONT_PX,
    OFF_SCREEN,
    TWELVE,
    Scorekeeper,
    nothing_cut,
    pads_page,
    round_called,
    scored_ligretto,
    takes_the_screen,
    tv_page,
)

#: how long a moment stays (tv.js REVEAL_MS)
REVEAL_MS = 5000
#: the count's call stays this long after its 3 – 2 – 1 (common.js: 1.2 s)
GO_MS = 1500
SCREENS: dict[str, ViewportSize] = {"1080p": FITS["tv"], "720p": {"width": 1280, "height": 720}}

#: Readable across a room, on a 1080p TV. A 55" 1080p screen is 68 cm high: 1 px is
#: 0.63 mm. Signage's rule of thumb is 1 cm of capital height per 3-4 m; a capital is
#: about 0.7 of the font size. So 24 px text (capitals of 10.6 mm) reads from about
#: 3.5 m, a sofa's distance; the first name in the photo finish is twice that. On a
#: 720p screen (the same TV, fewer pixels) two thirds of these.
PHOTO_TEXT_PX = 24
PHOTO_NAME_PX = 44
#: The QR code's size on the TV is checked where the TV shows one: on a real network
#: (tests/net/test_network.py, QR_PX); a box on loopback shows none (no phone reaches it).
#: the 1080p threshold scaled to another screen's height
scaled = {"1080p": 1.0, "720p": 720 / 1080}

#: the photo finish's text: [what, font size]
PHOTO = """() => {
  const photo = document.querySelector("#photo");
  return [...photo.querySelectorAll(".name, .lead, .photo-margin, .pad-name, .small")]
    .filter((el) => el.getClientRects().length)
    .map((el) => [el.className, parseFloat(getComputedStyle(el).fontSize)]);
}"""


def readable(tv: Page, screen: str) -> None:
    texts = tv.evaluate(PHOTO)
    assert texts, "the photo finish shows the presses"
    small = [t for t in texts if t[1] < PHOTO_TEXT_PX * scaled[screen] - 0.5]
    assert small == [], f"{screen}: text under {PHOTO_TEXT_PX * scaled[screen]:.0f} px: {small}"
    name = tv.evaluate(FONT_PX, "#photo .photo-name")
    assert name >= PHOTO_NAME_PX * scaled[screen] - 0.5, (screen, name)


def on_every_screen(tv: Page, check: Callable[[str], None]) -> None:
    for screen, size in SCREENS.items():
        tv.set_viewport_size(size)
        check(screen)
    tv.set_viewport_size(SCREENS["1080p"])


def test_twelve_long_names_the_call_and_the_winners(served: Served, browser: Browser) -> None:
    with browsing(served, browser, "light", dark_tv) as (watch, (hand, screen)):
        keeper = Scorekeeper(hand, served)
        keeper.game("ligretto", TWELVE)
        pads = pads_page(watch, hand, served)
        tv = tv_page(watch, screen, served)
        expect(tv.get_by_test_id("tv-standings").locator("li")).to_have_count(12)
        expect(tv.get_by_test_id("tv-player-0")).to_contain_text("=1")
        tv.get_by_test_id("tv-sound").click()
        expect(tv.get_by_test_id("tv-sound")).to_have_attribute("aria-pressed", "true")

        # round 1: Jean-Luc calls, Dorothea presses right after; the call takes the screen
        round_called(keeper, pads, caller=1, runner=3)
        tv.clock.run_for(GO_MS)  # the count's call ("Ligretto!") is gone
        reveal = tv.get_by_test_id("tv-reveal")
        expect(reveal).to_be_visible()
        expect(reveal).to_have_attribute("data-kind", "call")
        expect(tv.get_by_test_id("tv-reveal-big")).to_have_text("Stop!")
        expect(tv.get_by_test_id("tv-reveal-name")).to_have_text(
            "Jean-Luc Picard called — count your cards"
        )
        expect(tv.get_by_test_id("tv-reveal-by")).to_have_text(
            re.compile(r"^by \d+(\.\d+)? (µs|ms|s) over Dorothea Wilhelmina$")
        )

        def called(size: str) -> None:
            takes_the_screen(tv)
            nothing_cut(tv, ".tv-reveal-name")

        on_every_screen(tv, called)
        assert int(tv.evaluate("document.body.dataset.tones || '0'")) >= 2  # count, call
        tv.clock.run_for(REVEAL_MS)
        expect(reveal).to_be_hidden()  # after a few seconds, the board again
        scored_ligretto(keeper, TWELVE, caller=1, rnd=1)

        # round 2: every row has its last round now, and still no name is cut
        round_called(keeper, pads, caller=4, runner=0)
        tv.clock.run_for(GO_MS)
        expect(reveal).to_contain_text("Konstantinos Papadopoulos called")
        reveal.click()  # a tap: the board at once
        expect(reveal).to_be_hidden()
        scored_ligretto(keeper, TWELVE, caller=4, rnd=2)
        expect(tv.get_by_test_id("tv-last-0")).to_contain_text("last round")

        def board(size: str) -> None:
            nothing_cut(tv, ".tv-name")
            assert tv.evaluate(OFF_SCREEN) == [], size
            readable(tv, size)

        on_every_screen(tv, board)
        fits(tv, "tv-scored")

        # the end: the winner and everyone's total, over the whole screen, for good
        keeper.event(type="finish")
        expect(reveal).to_have_attribute("data-kind", "winners")
        state = hand.request.get(f"{served.url}/api/state").json()
        players, winners = state["players"], state["winners"]
        won = f"{winners[0]} wins!" if len(winners) == 1 else f"{' & '.join(winners)} win!"
        expect(tv.get_by_test_id("tv-finale-title")).to_have_text(won)
        for seat, p in enumerate(players):
            n = p["total"]
            unit = "point" if abs(n) == 1 else "points"
            text = f"{'−' if n < 0 else ''}{abs(n)} {unit}"
            expect(tv.get_by_test_id(f"tv-finale-total-{seat}")).to_have_text(text)

        def finale(size: str) -> None:
            takes_the_screen(tv)
            nothing_cut(tv, ".tv-finale-name")
            rows = tv.get_by_test_id("tv-finale-list").locator("li")
            assert rows.count() == 12
            for i in range(12):
                box = rows.nth(i).bounding_box()
                assert box is not None and box["y"] + box["height"] <= SCREENS[size]["height"]

        on_every_screen(tv, finale)
        tv.clock.run_for(REVEAL_MS + 1000)
        expect(reveal).to_be_visible()  # it stays: no timer hides the winners
        tv.clock.resume()  # axe keeps time with timers
        assert audit(tv) == []
        watch.check()
