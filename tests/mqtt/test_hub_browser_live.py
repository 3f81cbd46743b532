"""The hub's live dot: a hub that went quiet is "reconnecting to the hub…" after two
missed keepalives, in words and not only in colour, and live again once it answers
(the box's pages do the same: tests/web/test_browser_live.py).

The hub is frozen (SIGSTOP: its sockets stay open, as when its power or the TV's wifi
is gone, so no error reaches the page) and the page's time is driven by Playwright's
clock, paused from the start: everything the page hears, it hears at the same instant
of its time, and nothing here waits for the keepalives' seconds to pass.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager

from playwright.sync_api import Browser, Page, expect
from web import browser_support as support  # type: ignore[import-not-found]

from . import test_hub_browser
from .test_untrusted import Hub

# the browser fixtures of the web tests (Debian's Chromium, headless), and the hub's
playwright, browser = support.playwright, support.browser
hub = test_hub_browser.hub

#: the hub's keepalive (SSE_KEEPALIVE_S, hub/app.py) and the page's grace after two
EVERY_MS = 2000
GRACE_MS = 500


@contextmanager
def frozen(hub: Hub) -> Iterator[None]:
    """The hub stops answering, its connections open, until the block ends."""
    os.kill(hub.process.pid, signal.SIGSTOP)
    try:
        # a signal arrives a moment later, the hub may write until then: wait for its stop
        _, status = os.waitpid(hub.process.pid, os.WUNTRACED)
        assert os.WIFSTOPPED(status), f"the hub did not stop: wait status {status}"
        yield
    finally:
        os.kill(hub.process.pid, signal.SIGCONT)


def live(page: Page) -> None:
    expect(page.locator("#live")).to_have_attribute("data-status", "live")
    expect(page.get_by_test_id("link-note")).to_be_hidden()


def test_a_quiet_hub_is_reconnecting_after_two_missed_keepalives(
    hub: Hub, browser: Browser
) -> None:
    watch = support.Watch(f"http://127.0.0.1:{hub.port}")
    # the page's real CSP: axe (at the end) is evaluated over the DevTools protocol
    context = browser.new_context(viewport=support.TV)
    try:
        page = watch.page(context)
        page.clock.install()
        page.clock.pause_at(1_800_000_000)  # in s: the page's time stands still from the start
        page.goto(f"http://127.0.0.1:{hub.port}/")
        live(page)
        with frozen(hub):
            page.evaluate("() => 0")  # a round trip: what the hub wrote before has come in
            page.clock.run_for(2 * EVERY_MS + GRACE_MS - 200)
            live(page)  # two keepalives are not yet missed
            page.clock.run_for(400)
            expect(page.locator("#live")).to_have_attribute("data-status", "reconnecting")
            note = page.get_by_test_id("link-note")
            expect(note).to_be_visible()
            expect(note).to_have_text("reconnecting to the hub…")
            expect(note).to_have_attribute("role", "status")
            support.fits(page, "hub-reconnecting")
            # still quiet: the page keeps asking, and keeps saying so
            page.clock.run_for(2 * EVERY_MS + GRACE_MS)
            expect(note).to_have_text("reconnecting to the hub…")
            page.clock.resume()  # axe keeps time with timers: let the page's run again
            assert support.audit(page) == []
        live(page)  # the hub answers the stream the page opened last: live again
        assert hub.board()["tables"] == []  # and it is the hub it was, serving
        watch.check()
    finally:
        context.close()
