"""The hub's live dot: a hub that went quiet is "reconnecting to the hub…" after two
missed keepalives, in words and not only in colour, and live again once it answers
(the box's pages do the same: tests/web/test_browser_live.py).

The hub is frozen (SIGSTOP: its sockets stay open, as when its power or the TV's wifi
is gone, so no error reaches the page) and the page's time is driven by Playwright's
clock (tests/web/quiet.py), paused from the start: everything the page hears, it hears
at the same instant of its time, and nothing here waits for the keepalives' seconds.
"""

from __future__ import annotations

from playwright.sync_api import Browser
from web import browser_support as support  # type: ignore[import-not-found]
from web.quiet import frozen, live, reconnecting_after_two_missed  # type: ignore[import-not-found]

from .test_untrusted import Hub

# the browser fixtures of the web tests (Debian's Chromium, headless)
playwright, browser = support.playwright, support.browser


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
        with frozen(hub.process):
            page.evaluate("() => 0")  # a round trip: what the hub wrote before has come in
            reconnecting_after_two_missed(page, "reconnecting to the hub…", "hub-reconnecting")
        live(page)  # the hub answers the stream the page opened last: live again
        assert hub.board()["tables"] == []  # and it is the hub it was, serving
        watch.check()
    finally:
        context.close()
