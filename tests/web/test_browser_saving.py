"""The pages say "Saving…" while the box shows a move its memory card has not confirmed
(state.box.unsaved, store/behind.py: an fsync slower than the reveal wait), once that
lasted SAVING_AFTER_MS, and drop it as soon as the card confirms it (issue 29, item 2).

common.js's `showSaving`, the module the page itself runs, in Chromium against the real
`buzzerbox serve`, on German and English phones; the states are given here (a box whose
card stalls on cue is not something `serve` can be asked for).
"""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from .browser_support import Served, browsing

SAY = """async (unsaved) => {
  const c = await import("/assets/common.js");
  c.showSaving({ box: { unsaved } });
  return c.SAVING_AFTER_MS;
}"""


def say(page: Page, unsaved: int | None) -> int:
    after: int = page.evaluate(SAY, unsaved)
    return after


def test_saving_is_said_once_the_card_is_slow_and_gone_once_it_confirmed(
    served: Served, browser: Browser
) -> None:
    with browsing(served, browser) as (watch, [context]):
        page = watch.page(context)
        page.clock.install()
        page.goto(f"{served.url}/")
        # from here on the page's timers run only when this test says (an installed
        # clock flows with real time until paused)
        page.clock.pause_at(page.evaluate("Date.now()") + 1000)
        note = page.get_by_test_id("save-note")
        expect(note).to_be_hidden()

        # a usual fsync (tens of ms) is never said: it is confirmed before the wait ends
        after = say(page, 7)
        assert 100 <= after <= 1000
        page.clock.run_for(after - 50)
        say(page, None)
        page.clock.run_for(after * 2)
        expect(note).to_be_hidden()

        # a stall is said after the wait, in words, and goes when the card confirms
        say(page, 8)
        page.clock.run_for(after - 50)
        expect(note).to_be_hidden()  # not yet
        page.clock.run_for(100)
        expect(note).to_be_visible()
        expect(note).to_have_text("Saving…")
        assert "power cut" in (note.get_attribute("title") or "")
        say(page, 9)  # a later move unsaved too: still said, not restarted
        expect(note).to_be_visible()
        say(page, None)
        expect(note).to_be_hidden()
        watch.check()


def test_saving_is_said_in_the_phones_language(served: Served, browser: Browser) -> None:
    with browsing(served, browser) as (watch, [context]):
        context.add_cookies([{"name": "lang", "value": "de", "url": served.url}])
        page = watch.page(context)
        page.goto(f"{served.url}/")
        say(page, 3)
        expect(page.get_by_test_id("save-note")).to_have_text("Wird gespeichert …")
        watch.check()
