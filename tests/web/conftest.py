"""Fixtures of the web tests: the browser tests' real `buzzerbox serve` (served_box.py)
and Chromium (browser_support.py). The box, its app, a viewer and the admin are the
package's own fixtures (buzzerbox.fixtures)."""

from __future__ import annotations

from .browser_support import browser, playwright  # noqa: F401  (the browser tests')
from .served_box import served  # noqa: F401  (the browser tests' box)
