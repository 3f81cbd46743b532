"""The live dot (issue 14, point 5): a box that went quiet is "reconnecting" after two
missed keepalives, in words and not only in colour, and live again once it answers.

The box is frozen (SIGSTOP: its sockets stay open, as when its power or wifi is gone,
so no error reaches the page) and the page's time is driven by Playwright's clock:
nothing here waits for the keepalives' seconds to pass (quiet.py; the hub's page is
checked the same way: tests/mqtt/test_hub_browser_live.py).
"""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from .browser_support import PHONE, Served, Watch, browsing
from .quiet import EVERY_MS, frozen, live, reconnecting_after_two_missed


def test_a_quiet_box_is_reconnecting_after_two_missed_keepalives(
    served: Served, browser: Browser
) -> None:
    watch = Watch(served.url)
    # the page's real CSP: axe (at the end) is evaluated over the DevTools protocol
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = watch.page(context)
        page.clock.install()
        page.goto(f"{served.url}/")
        live(page)
        # time stands still for the page; then a change comes (a new game): the page
        # heard the box at this instant of its time, and counts from it
        page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 0.05)  # in s
        csrf = context.request.post(f"{served.url}/api/login", data={"pin": served.pin}).json()
        made = context.request.post(
            f"{served.url}/api/game",
            data={"game": "ligretto", "players": ["Quiet", "Box"]},
            headers={"X-CSRF-Token": csrf["csrf"]},
        )
        assert made.ok, made.text()
        expect(page.get_by_test_id("main")).to_contain_text("Quiet")
        with frozen(served.process):
            reconnecting_after_two_missed(page, "reconnecting to the box…", "live-reconnecting")
        live(page)  # the box answers the stream the page opened last: live again
        watch.check()
    finally:
        context.close()


def test_the_keepalive_says_how_often_it_comes(served: Served, browser: Browser) -> None:
    """The page learns the box's interval from its first keepalive (the stream's head):
    a stream that has not said so yet is watched with the same 2 s."""
    with browsing(served, browser) as (_, [context]):
        page = context.new_page()
        page.goto(f"{served.url}/")
        live(page)
        head = page.evaluate(
            """async () => {
              const r = await fetch("/api/events");
              const reader = r.body.getReader();
              const {value} = await reader.read();
              reader.cancel();
              return new TextDecoder().decode(value);
            }"""
        )
        assert head.startswith(f"retry: 2000\n\nevent: keepalive\ndata: {EVERY_MS}\n\n")
