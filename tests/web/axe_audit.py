"""The accessibility audit of the browser tests: axe-core (npm, tests/web/axe, installed
by `bash tests/check`) on a page as it stands, under the page's real CSP."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from .browser_support import FITS, PHONE, settle

#: axe-core from npm (tests/web/axe, installed by `bash tests/check`)
AXE = Path(__file__).parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"

#: axe's serious and critical violations: rule, impact, what it says and where
AXE_RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => [v.id, v.impact, v.help, v.nodes.slice(0, 3).map((n) => n.target.join(" "))]);
}"""

#: whether the page's own CSP holds: an inline script it did not send must not run
CSP_HOLDS = """() => {
  const s = document.createElement("script");
  s.textContent = "window.cspBroken = true";
  document.head.append(s);
  s.remove();
  return window.cspBroken !== true;
}"""


def audit(page: Page) -> list[list[object]]:
    """axe-core's serious and critical violations on the page as it stands, in light and
    in dark, on a 390×844 phone and on a 1920×1080 TV: [size, scheme, rule, impact, help,
    where]. The page keeps its real CSP: axe's source is evaluated through the DevTools
    protocol (as a test's own script, which no CSP governs), never as a <script> tag,
    and the context needs no `bypass_csp`. The page's size and scheme come back."""
    if not AXE.exists():
        pytest.fail(f"no axe-core at {AXE}: run `bash tests/check` (npm ci in tests/web/axe)")
    assert page.evaluate(CSP_HOLDS), f"{page.url}: the page's CSP is bypassed"
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    own = page.viewport_size or PHONE
    found: list[list[object]] = []
    for size, viewport in FITS.items():
        page.set_viewport_size(viewport)
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
            settle(page)
            found += [[size, scheme, *v] for v in page.evaluate(AXE_RUN)]
    page.set_viewport_size(own)
    page.emulate_media(color_scheme="null", reduced_motion="null")
    return found
