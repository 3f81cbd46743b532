"""A server that went quiet, as the box's pages and the hub's page see it (both watch
the same keepalives: web/static/keepalive.js): frozen with SIGSTOP (its sockets stay
open, as when its power or the wifi is gone, so no error reaches the page), the page's
time driven by Playwright's clock, nothing waiting for the keepalives' seconds.

The page's clock must be paused at the instant it last heard the server.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

from playwright.sync_api import Page, expect

from .axe_audit import audit
from .browser_support import fits

#: the keepalive of the box and of the hub (SSE_KEEPALIVE_S) and the page's grace after two
EVERY_MS = 2000
GRACE_MS = 500


@contextmanager
def frozen(process: subprocess.Popen[str]) -> Iterator[None]:
    """The server stops answering, its connections open, until the block ends."""
    os.kill(process.pid, signal.SIGSTOP)
    try:
        # a signal arrives a moment later, the server may write until then: wait for its stop
        _, status = os.waitpid(process.pid, os.WUNTRACED)
        assert os.WIFSTOPPED(status), f"the server did not stop: wait status {status}"
        yield
    finally:
        os.kill(process.pid, signal.SIGCONT)


def live(page: Page) -> None:
    expect(page.get_by_test_id("live")).to_have_attribute("data-status", "live")
    expect(page.get_by_test_id("link-note")).to_be_hidden()


def reconnecting_after_two_missed(page: Page, words: str, name: str) -> None:
    """With the server frozen: live just before two keepalives and the grace are missed,
    `words` (in a status note, not only the dot's colour) just after, and still while the
    page keeps asking; the page fits (screenshot `name`) and axe finds nothing."""
    page.clock.run_for(2 * EVERY_MS + GRACE_MS - 200)
    live(page)  # two keepalives are not yet missed
    page.clock.run_for(400)
    expect(page.get_by_test_id("live")).to_have_attribute("data-status", "reconnecting")
    note = page.get_by_test_id("link-note")
    expect(note).to_be_visible()
    expect(note).to_have_text(words)
    expect(note).to_have_attribute("role", "status")
    fits(page, name)
    # still quiet: the page keeps asking, and keeps saying so
    page.clock.run_for(2 * EVERY_MS + GRACE_MS)
    expect(note).to_have_text(words)
    page.clock.resume()  # axe keeps time with timers: let the page's run again
    assert audit(page) == []
