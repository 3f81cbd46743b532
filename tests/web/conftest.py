"""Fixtures of the web tests: the browser tests' real `buzzerbox serve` and Chromium
(browser_support.py). The box, its app, a viewer and the admin are the package's own
fixtures (buzzerbox.fixtures)."""

from __future__ import annotations

from .browser_support import browser, playwright, served  # noqa: F401  (the browser tests')
