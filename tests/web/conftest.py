"""Fixtures of the web tests: the browser tests' real `buzzerbox serve` (served_box.py)
and Chromium (browser_support.py). The box, its app, a viewer and the admin are the
package's own fixtures (buzzerbox.fixtures).

One Playwright driver and one Chromium serve every module of tests/web (package scope:
started at the first browser test, closed after the folder's last test); `browser` hands
it to a module and closes, when the module ends, every context the module left open.
Browser contexts share nothing (cookies, storage, cache), so the modules stay apart."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Playwright

from .browser_support import closing_contexts, driving, launching
from .served_box import served  # noqa: F401  (the browser tests' box)


@pytest.fixture(scope="package")
def playwright() -> Iterator[Playwright]:
    yield from driving()


@pytest.fixture(scope="package")
def chromium(playwright: Playwright) -> Iterator[Browser]:
    yield from launching(playwright)


@pytest.fixture(scope="module")
def browser(chromium: Browser) -> Iterator[Browser]:
    yield from closing_contexts(chromium)
