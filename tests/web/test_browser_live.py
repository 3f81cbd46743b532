"""The live dot (issue 14, point 5): a box that went quiet is "reconnecting" after two
missed keepalives, in words and not only in colour, and live again once it answers.

The box is frozen (SIGSTOP: its sockets stay open, as when its power or wifi is gone,
so no error reaches the page) and the page's time is driven by Playwright's clock:
nothing here waits for the keepalives' seconds to pass.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager

from playwright.sync_api import Browser, Page, expect

from . import browser_support as support
from .browser_support import PHONE, Served, Watch, audit, fits, phone

playwright, browser, served = support.playwright, support.browser, support.served

#: the box's keepalive (SSE_KEEPALIVE_S, web/__init__.py) and the page's grace after two
EVERY_MS = 2000
GRACE_MS = 500


@contextmanager
def frozen(served: Served) -> Iterator[None]:
    """The box stops answering, its connections open, until the block ends."""
    os.kill(served.process.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(served.process.pid, signal.SIGCONT)


def live(page: Page) -> None:
    expect(page.get_by_test_id("live")).to_have_attribute("data-status", "live")
    expect(page.get_by_test_id("link-note")).to_be_hidden()


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
        with frozen(served):
            page.clock.run_for(2 * EVERY_MS + GRACE_MS - 200)
            live(page)  # two keepalives are not yet missed
            page.clock.run_for(400)
            expect(page.get_by_test_id("live")).to_have_attribute("data-status", "reconnecting")
            note = page.get_by_test_id("link-note")
            expect(note).to_be_visible()
            expect(note).to_have_text("reconnecting to the box…")
            expect(note).to_have_attribute("role", "status")
            fits(page, "live-reconnecting")
            # still quiet: the page keeps asking, and keeps saying so
            page.clock.run_for(2 * EVERY_MS + GRACE_MS)
            expect(note).to_have_text("reconnecting to the box…")
            page.clock.resume()  # axe keeps time with timers: let the page's run again
            assert audit(page) == []
        live(page)  # the box answers the stream the page opened last: live again
        watch.check()
    finally:
        context.close()


def test_the_keepalive_says_how_often_it_comes(served: Served, browser: Browser) -> None:
    """The page learns the box's interval from its first keepalive (the stream's head):
    a stream that has not said so yet is watched with the same 2 s."""
    context = phone(browser)
    try:
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
    finally:
        context.close()
