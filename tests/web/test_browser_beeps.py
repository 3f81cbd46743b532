"""The countdown's sound on the TV (issue 14, point 4): once the sound is switched on, a
beep as each of 3, 2, 1 shows and a higher one at the go, scheduled on the Web Audio
clock one second apart. Chromium plays nothing audible here: the test records what
the page asked of Web Audio (OscillatorNode.start, wrapped before the page loads)."""

from __future__ import annotations

import itertools

from playwright.sync_api import Browser, expect

from . import browser_support as support
from .browser_support import Served, browsing, new_game, table_page, tv_screen

#: every oscillator started: its pitch, and how far ahead on the audio clock (s)
RECORD = """window.__beeps = [];
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (when = 0) {
  window.__beeps.push({hz: this.frequency.value, when, now: this.context.currentTime});
  return start.call(this, when);
};"""

BEEPS = "() => window.__beeps.length"


def test_the_tv_beeps_each_second_of_the_countdown(served: Served, browser: Browser) -> None:
    with browsing(served, browser, "light", tv_screen, tv_screen) as (watch, contexts):
        hand, screen, quiet_screen = contexts
        table = table_page(watch, hand, served)
        new_game(table, "ligretto", ["Ann", "Ben"])

        tv = watch.page(screen)
        tv.add_init_script(RECORD)
        tv.goto(f"{served.url}/tv")
        expect(tv.get_by_test_id("tv-standings").locator("li")).to_have_count(2)
        tv.get_by_test_id("tv-sound").click()  # a tap: the browser allows sound now
        expect(tv.get_by_test_id("tv-sound")).to_have_attribute("aria-pressed", "true")
        assert tv.evaluate(BEEPS) == 0

        quiet = watch.page(quiet_screen)  # another TV, its sound left off
        quiet.add_init_script(RECORD)
        quiet.goto(f"{served.url}/tv")
        expect(quiet.get_by_test_id("tv-sound")).to_have_attribute("aria-pressed", "false")

        table.get_by_test_id("start-round").click()
        expect(tv.get_by_test_id("countdown")).to_be_visible()
        tv.wait_for_function("() => window.__beeps.some((b) => b.hz === 880)")  # the go's
        beeps = tv.evaluate("window.__beeps")
        assert [b["hz"] for b in beeps] == [440, 440, 440, 880], beeps
        when = [b["when"] for b in beeps]
        # 3 at once (the audio clock moves in steps: it may read a bit behind), the go
        # about 3 s on (the count reached the TV some ms after it began), each second
        now = beeps[0]["now"]
        assert when[0] - now < 0.05 and 2.0 < when[3] - now < 3.05, beeps
        gaps = [round(b - a, 6) for a, b in itertools.pairwise(when)]
        # "3": now, not in the past; up to half a second shorter when the count reached
        # the TV late (a busy machine), for the 3 showing then still has its beep
        assert 0.5 < gaps[0] <= 1 and gaps[1:] == [1, 1], when
        # the go's beep and nothing more
        expect(tv.get_by_test_id("countdown-big")).to_have_text(
            "Ligretto!", timeout=support.GO_TIMEOUT_MS
        )
        assert tv.evaluate(BEEPS) == 4
        expect(quiet.get_by_test_id("countdown-big")).to_have_text("Ligretto!")
        assert quiet.evaluate(BEEPS) == 0
        watch.check()
