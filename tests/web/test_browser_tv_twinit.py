"""Twin It! on the TV (issue 24, item 3): a steal, an error and a split take the whole
screen as they are settled, the split with its 3 – 2 – 1 big enough for the room; on
a 1080p and a 720p screen, six players with long names, none of them cut."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, ViewportSize, expect

from .axe_audit import audit
from .browser_support import FITS, Served, browsing, tv_screen, wait_for_go
from .tv_steps import FONT_PX, Scorekeeper, nothing_cut, pads_page, takes_the_screen, tv_page

SIX = [
    "Maximilian-Alexander von Hohenzollern",
    "Marie-Thérèse Dubois",
    "Konstantinos Papadopoulos",
    "Oluwaseun Adebayo-Okafor",
    "高橋 さくら",
    "Guðmundur Sigurðsson",
]
#: the count's call ("Turn over!") stays this long after the 3 – 2 – 1 (common.js)
GO_MS = 1500
SCREENS: list[ViewportSize] = [FITS["tv"], {"width": 1280, "height": 720}]

#: the count's digit over a third of the screen's height: read from anywhere in the room
DIGIT_SHARE = 1 / 3

#: the countdown's share of the window, and whether it lies over the moments
COUNT_OVER = """() => {
  const el = document.querySelector("#countdown");
  const r = el.getBoundingClientRect();
  const z = (e) => Number(getComputedStyle(e).zIndex) || 0;
  return [(r.width * r.height) / (innerWidth * innerHeight),
          z(el) > z(document.querySelector("#tv-reveal"))];
}"""


def moment(tv: Page, big: str, line: str) -> None:
    """`big` and `line` over the whole screen, on both screens, the names whole."""
    expect(tv.get_by_test_id("tv-reveal-big")).to_have_text(big)
    expect(tv.get_by_test_id("tv-reveal-name")).to_have_text(line)
    for size in SCREENS:
        tv.set_viewport_size(size)
        takes_the_screen(tv)
        nothing_cut(tv, ".tv-reveal-name, .tv-name")
    tv.set_viewport_size(SCREENS[0])


def slap(keeper: Scorekeeper, *seats: int) -> None:
    """Slaps 1 ms apart, their moments given: all in the claim's second however slow the
    machine (pressed at their arrival, a late one would be left out)."""
    keeper.presses([(seat, "slap") for seat in seats])


def test_steal_error_and_split_take_the_screen(served: Served, browser: Browser) -> None:
    with browsing(served, browser, "light", tv_screen) as (watch, (hand, screen)):
        keeper = Scorekeeper(hand, served)
        keeper.game("twinit", SIX, first=0)
        pads = pads_page(watch, hand, served)
        tv = tv_page(watch, screen, served)
        expect(tv.get_by_test_id("tv-standings").locator("li")).to_have_count(6)
        keeper.event(type="round")
        wait_for_go(pads)
        tv.clock.run_for(GO_MS)  # the count and its call are gone
        reveal = tv.get_by_test_id("tv-reveal")

        # Marie-Thérèse slaps first: FIRST!, and her pair is taken (no moment of its own)
        slap(keeper, 1)
        expect(reveal).to_have_attribute("data-kind", "race")
        expect(tv.get_by_test_id("tv-reveal-name")).to_have_text("Marie-Thérèse Dubois")
        keeper.event(type="claim", result="pair")

        # Konstantinos steals it
        slap(keeper, 2)
        keeper.event(type="claim", result="steal", victim=SIX[1])
        expect(reveal).to_have_attribute("data-kind", "claim")
        moment(tv, "Stolen!", "Konstantinos Papadopoulos steals Marie-Thérèse Dubois's pair")
        expect(tv.get_by_test_id("tv-total-2")).to_have_text("1")

        # Oluwaseun slaps on no pair
        slap(keeper, 3)
        keeper.event(type="claim", result="error")
        moment(tv, "No pair!", "Oluwaseun Adebayo-Okafor was wrong")

        # a split: 3 – 2 – 1 and the pair is turned over, over everything
        slap(keeper, 4, 5)
        keeper.event(type="claim", result="split")
        count = tv.get_by_test_id("countdown")
        expect(count).to_be_visible()
        expect(count).to_contain_text("3 – 2 – 1 Turn over!")
        # the TV's clock waits at 3 (until the box's own count ends: 3 s from the claim)
        expect(tv.get_by_test_id("countdown-big")).to_have_text("3")
        for size in SCREENS:
            tv.set_viewport_size(size)
            share, over = tv.evaluate(COUNT_OVER)
            assert share >= 0.99 and over, (size, share, over)
            digit = tv.evaluate(FONT_PX, "[data-testid=countdown-big]")
            assert digit >= size["height"] * DIGIT_SHARE, (size, digit)
        # the count itself says what it is for, above its number; the split's moment does
        # not show under it (issue 41, item 2: "Sp3t!")
        title = tv.get_by_test_id("countdown-title")
        expect(title).to_contain_text("Split!")
        expect(title).to_contain_text("A tie: on 3 – 2 – 1, turn the pair over")
        expect(tv.get_by_test_id("tv-reveal")).to_be_hidden()
        tv.clock.resume()  # the count follows the box's own, in real time: it ends
        expect(count).to_be_hidden()

        # the end: Konstantinos has the one take
        keeper.event(type="finish")
        expect(reveal).to_have_attribute("data-kind", "winners")
        expect(tv.get_by_test_id("tv-finale-title")).to_have_text("Konstantinos Papadopoulos wins!")
        expect(tv.get_by_test_id("tv-finale-total-2")).to_have_text("1 take")
        expect(tv.get_by_test_id("tv-finale-total-1")).to_have_text("0 takes")
        for size in SCREENS:
            tv.set_viewport_size(size)
            takes_the_screen(tv)
            nothing_cut(tv, ".tv-finale-name")
        assert audit(tv) == []
        watch.check()


def test_a_slap_within_the_calls_second_takes_its_place(served: Served, browser: Browser) -> None:
    """A slap while the TV still shows the count's call ("Twin It!", 1.2 s after the go):
    its moment takes the call's place, never drawn over it (the layout test found them
    overlapping once its slaps came right after the go)."""
    with browsing(served, browser, "light", tv_screen) as (watch, (hand, screen)):
        keeper = Scorekeeper(hand, served)
        keeper.game("twinit", SIX, first=0)
        pads = pads_page(watch, hand, served)
        tv = tv_page(watch, screen, served)  # its clock stands still: the call stays up
        expect(tv.get_by_test_id("tv-standings").locator("li")).to_have_count(6)
        keeper.event(type="round")
        wait_for_go(pads)
        expect(tv.get_by_test_id("countdown-big")).to_have_text("Twin It!")
        slap(keeper, 1)
        expect(tv.get_by_test_id("tv-reveal")).to_have_attribute("data-kind", "race")
        expect(tv.get_by_test_id("tv-reveal")).to_be_visible()
        expect(tv.get_by_test_id("countdown")).to_be_hidden()
        takes_the_screen(tv)
