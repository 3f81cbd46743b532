"""What the browser tests share: Debian's Chromium driven by Playwright, phones and TV
screens (`browsing`, `two_phones`), screenshots, and the steps every game takes, against
the real `buzzerbox serve` (served_box.py: `Served`, `served_with`, named here too).

The fixtures (`served`, `playwright`, `browser`) are the web tests' own, bound once in
tests/web/conftest.py (as Home Assistant's tests/components share theirs): each test
module gets its own box; the web tests share one Chromium (a launch and a close cost a
second or more of two busy cores, forty-odd times a run), each module's contexts closed
when it ends, so no page of one module lives on into the next. Chromium is Debian's
(/usr/bin/chromium); `playwright install` is never needed. Playwright is in the dev
extras `bash tests/check` installs: without it these tests fail at import, they never
skip.

Set BUZZERBOX_SHOTS to a folder to keep screenshots: each page in light and dark, on a
390×844 phone and on a 1280×800 TV, once its animations have ended.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Error,
    Page,
    Playwright,
    Request,
    ViewportSize,
    expect,
    sync_playwright,
)

# the box (served_box.py), named here too: where every browser test finds its helpers
from .served_box import Served as Served
from .served_box import served_with as served_with
from .served_box import serving as serving

CHROMIUM = os.environ.get("BUZZERBOX_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE: ViewportSize = {"width": 390, "height": 844}
TV: ViewportSize = {"width": 1280, "height": 800}
#: the countdown is 3 s, then the start signal; this leaves room on a busy machine
GO_TIMEOUT_MS = 12_000
SHOTS = os.environ.get("BUZZERBOX_SHOTS")

expect.set_options(timeout=10_000)  # live updates on a busy 2-core machine


# -- the browser ---------------------------------------------------------------------------


def driving() -> Iterator[Playwright]:
    """Playwright's driver, until the generator is closed."""
    with sync_playwright() as p:
        yield p


def launching(playwright: Playwright) -> Iterator[Browser]:
    """Debian's Chromium, headless, until the generator is closed."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: bash tests/check installs it")
    browser = playwright.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
    )
    yield browser
    browser.close()


def closing_contexts(browser: Browser) -> Iterator[Browser]:
    """`browser` for one module: every context the module left open (a phone's pages,
    their live streams) is closed when it ends, as if the browser had been its own."""
    before = set(browser.contexts)
    yield browser
    for context in browser.contexts:
        if context not in before:
            context.close()


# a module's own driver and browser (another folder's browser tests bind these); the web
# tests share one of each, a module's contexts closed after it (tests/web/conftest.py)
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    yield from driving()


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    yield from launching(playwright)


@dataclass
class Watch:
    """What the pages did wrong: script errors, and requests that left the box."""

    base: str
    errors: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)

    def page(self, context: BrowserContext) -> Page:
        page = context.new_page()
        page.on("pageerror", lambda exc: self.errors.append(f"{page.url}: {exc}"))
        page.on("request", self._request)
        return page

    def open(self, context: BrowserContext, path: str) -> Page:
        """A new page of `context` at the box's `path` ("/pads")."""
        page = self.page(context)
        page.goto(f"{self.base}{path}")
        return page

    def _request(self, request: Request) -> None:
        if not request.url.startswith((self.base, "data:", "about:")):
            self.outside.append(request.url)

    def check(self) -> None:
        assert not self.errors, self.errors
        assert not self.outside, f"the pages asked outside the box: {self.outside}"


def phone(
    browser: Browser, scheme: Literal["light", "dark"] = "light", language: str | None = None
) -> BrowserContext:
    """A 390×844 touch phone's browser in `scheme`; `language` is the phone's own ("de-DE":
    its browser asks pages in it, Accept-Language "de-DE,de;q=0.9", and tells scripts),
    Playwright's en-US if None."""
    context = browser.new_context(
        viewport=PHONE,
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        color_scheme=scheme,
        locale=language,
    )
    context.set_default_timeout(10_000)
    return context


def german_phone(browser: Browser) -> BrowserContext:
    """A light phone set to German (a `browsing` device)."""
    return phone(browser, language="de-DE")


Scheme = Literal["light", "dark"]


def tv_screen(browser: Browser, scheme: Scheme = "light") -> BrowserContext:
    """A 1920×1080 TV's browser (no touch), in `scheme`."""
    return browser.new_context(viewport=FITS["tv"], color_scheme=scheme)


def dark_tv(browser: Browser) -> BrowserContext:
    return tv_screen(browser, "dark")


#: what `browsing` opens: a phone in a scheme, or what a maker makes of the browser
Device = Scheme | Callable[[Browser], BrowserContext]


@contextmanager
def browsing(
    served: Served, browser: Browser, *devices: Device
) -> Iterator[tuple[Watch, list[BrowserContext]]]:
    """What a browser test starts with: a `Watch` on the box's pages and one browser
    context per device given (a phone in "light" or "dark", or a maker's: `tv_screen`;
    one light phone if none), closed after the test; a test that fails prints what the
    box said and the pages' errors.

        with browsing(served, browser, "light", "dark") as (watch, (host, viewer)):"""
    watch = Watch(served.url)
    contexts = [
        phone(browser, device) if isinstance(device, str) else device(browser)
        for device in devices or ("light",)
    ]
    try:
        yield watch, contexts
    except (AssertionError, Error):
        print(served.output())
        print("page errors:", watch.errors)
        raise
    finally:
        for context in contexts:
            context.close()


#: waits for every animation that ends (not the live dot's endless pulse)
SETTLED = """() => Promise.all(document.getAnimations()
  .filter((a) => Number.isFinite(a.effect?.getComputedTiming().endTime))
  .map((a) => a.finished.catch(() => null))).then(() => true)"""


def settle(page: Page) -> None:
    """Wait until the countdown is gone and every animation has ended."""
    expect(page.get_by_test_id("countdown")).to_be_hidden()
    page.evaluate(SETTLED)


#: boxes of the standings rows that overlap another row, after the animations
OVERLAPS = """() => {
  const rows = [...document.querySelectorAll("#standings > li")]
    .map((li) => li.getBoundingClientRect());
  return rows.flatMap((a, i) => rows.slice(i + 1)
    .filter((b) => a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
    .map((b) => [a.top, a.bottom, b.top, b.bottom]));
}"""


#: whether a standings row is gliding to its place
GLIDING = """() => [...document.querySelectorAll("#standings > li")]
  .some((li) => li.getAnimations().length > 0)"""


def standings_apart(page: Page, *, moving: bool = True) -> None:
    """The scoreboard's rows, once they have moved to their places, never overlap;
    `moving=False`: no row moves at all (prefers-reduced-motion), they are apart now."""
    if moving:
        settle(page)
    else:
        assert page.evaluate(GLIDING) is False
    assert page.evaluate(OVERLAPS) == []


#: what can be tapped and is smaller than 44×44 px (a check box or radio: its label)
SMALL_TARGETS = """() => [...document.querySelectorAll(
    "button, input, select, nav a, a.url, .exports a")]
  .filter((el) => el.getClientRects().length && getComputedStyle(el).visibility !== "hidden")
  .map((el) => {
    const target = el.matches("[type=checkbox], [type=radio]")
      ? el.closest("label") || document.querySelector(`label[for="${el.id}"]`) : el;
    const r = target.getBoundingClientRect();
    return [el.dataset.testid || el.className || el.textContent.trim(), r.width, r.height];
  })
  .filter(([, w, h]) => w < 44 || h < 44)"""


def targets_big_enough(page: Page) -> None:
    """Every button, field and tab on the page is at least 44×44 px to the finger."""
    small = page.evaluate(SMALL_TARGETS)
    assert small == [], f"smaller than 44×44 px: {small}"


def shoot(page: Page, name: str) -> None:
    """Screenshots of the page in light and dark, on a phone and on a TV, when
    BUZZERBOX_SHOTS names a folder: <name>-<phone|tv>-<light|dark>.png."""
    if not SHOTS:
        return
    folder = Path(SHOTS)
    folder.mkdir(parents=True, exist_ok=True)
    schemes: tuple[Literal["light", "dark"], ...] = ("light", "dark")
    for size, viewport in (("phone", PHONE), ("tv", TV)):
        page.set_viewport_size(viewport)
        for scheme in schemes:
            page.emulate_media(color_scheme=scheme)
            settle(page)
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(folder / f"{name}-{size}-{scheme}.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.emulate_media(color_scheme="null")  # back to the context's own


#: the sizes a page must fit without a sideways scroll: a phone and a 1080p TV
FITS: dict[str, ViewportSize] = {"phone": PHONE, "tv": {"width": 1920, "height": 1080}}

#: what sticks out sideways: the page's width beyond the window, and the offenders
OVERFLOW = """() => {
  const w = innerWidth;
  const out = [...document.querySelectorAll("body *")]
    .filter((el) => el.getClientRects().length && !el.closest(".scroll-x, .tabs"))
    .filter((el) => el.getBoundingClientRect().right > w + 0.5)
    .slice(0, 5)
    .map((el) => el.dataset.testid || el.id || el.className || el.tagName);
  return [document.documentElement.scrollWidth - w, out];
}"""


def fits(page: Page, name: str) -> None:
    """The page fits a 390×844 phone and a 1920×1080 TV with no sideways scroll
    (screenshots of both, in light and dark, when BUZZERBOX_SHOTS names a folder).
    The page's own size and scheme come back afterwards."""
    own = page.viewport_size or PHONE
    for size, viewport in FITS.items():
        page.set_viewport_size(viewport)
        for scheme in ("light", "dark") if SHOTS else ("light",):
            page.emulate_media(color_scheme=scheme)
            settle(page)
            over, out = page.evaluate(OVERFLOW)
            assert over <= 0 and not out, f"{name} on a {size}: {over} px too wide: {out}"
            if SHOTS:
                folder = Path(SHOTS)
                folder.mkdir(parents=True, exist_ok=True)
                page.evaluate("window.scrollTo(0, 0)")
                page.screenshot(path=str(folder / f"{name}-{size}-{scheme}.png"), full_page=True)
    page.set_viewport_size(own)
    page.emulate_media(color_scheme="null")


# -- steps of every game -----------------------------------------------------------------------


def log_in(table: Page, pin: str) -> None:
    table.get_by_test_id("pin-input").fill("0000" if pin != "0000" else "9999")
    table.get_by_test_id("pin-submit").click()
    expect(table.get_by_test_id("pin-error")).to_contain_text("wrong PIN")
    table.get_by_test_id("pin-input").fill(pin)
    table.get_by_test_id("pin-submit").click()
    expect(table.get_by_test_id("login")).to_be_hidden()


def new_game(table: Page, game: str, names: list[str], rounds: int | None = None) -> None:
    """Make a game on the table view's form (a new one, also while another goes on)."""
    if table.get_by_test_id("new-game").is_visible():
        table.get_by_test_id("new-game").click()
        table.get_by_test_id("new-game").click()  # the second tap confirms
    expect(table.get_by_test_id("newgame-form")).to_be_visible()
    table.get_by_test_id(f"game-{game}").click()
    while table.locator("[data-testid^='player-name-']").count() < len(names):
        table.get_by_test_id("add-player").click()
    for i, name in enumerate(names):
        table.get_by_test_id(f"player-name-{i}").fill(name)
    if rounds is not None:
        table.get_by_test_id("rounds").fill(str(rounds))
    table.get_by_test_id("create-game").click()
    expect(table.get_by_test_id("phase")).to_have_attribute("data-phase", "lobby")


def table_page(watch: Watch, context: BrowserContext, served: Served) -> Page:
    """The table view in `context`, logged in as the admin (the set-up of most tests)."""
    table = watch.page(context)
    table.goto(f"{served.url}/table")
    log_in(table, served.pin)
    return table


def table_and_pads(
    watch: Watch, context: BrowserContext, served: Served, game: str, names: list[str]
) -> tuple[Page, Page]:
    """The table view logged in with a new game, and the pads page, in `context`."""
    table = table_page(watch, context, served)
    new_game(table, game, names)
    pads = watch.page(context)
    pads.goto(f"{served.url}/pads")
    return table, pads


@dataclass
class Table:
    """The phones of one game: the table view and the pads (the table's phone, the
    admin's session), and a viewer's phone (dark, not logged in)."""

    table: Page
    pads: Page
    viewer: Page
    watch: Watch


@contextmanager
def two_phones(served: Served, browser: Browser) -> Iterator[Table]:
    """The table's phone (logged in: the table view and the pads) and a viewer's phone
    (dark: the scoreboard); the pages' errors are checked at the end."""
    with browsing(served, browser, "light", "dark") as (watch, (table_phone, viewer_phone)):
        table = table_page(watch, table_phone, served)
        pads = watch.open(table_phone, "/pads")
        viewer = watch.open(viewer_phone, "/")
        yield Table(table, pads, viewer, watch)
        watch.check()


def phones_on(table: Page, *, maybe_on: bool = False) -> None:
    """The host switches phones as pads on, at the table view (`maybe_on`: unless the
    box's last game left them on), and frees the seats phones of the game before hold
    (a new game of the same players keeps them, issue 38; a test brings new phones)."""
    toggle = table.get_by_test_id("phones-toggle")
    if not (maybe_on and toggle.get_attribute("aria-pressed") == "true"):
        toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    held = "async () => (await (await fetch('/api/state')).json()).box.phones.taken"
    for seat in table.evaluate(held):
        table.get_by_test_id(f"phone-free-{seat}").click()  # "Free the seat"
        expect(table.get_by_test_id(f"phone-free-{seat}")).to_have_count(0)


def in_view(page: Page, testid: str) -> None:
    """`testid` is shown on the 390×844 screen as it stands: not below the fold."""
    expect(page.get_by_test_id(testid)).to_be_visible()
    box = page.get_by_test_id(testid).bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], box


def settle_claim(table: Page, result: str, claimant: str) -> None:
    """Twin It!: the table settles `claimant`'s claim as `result` ("pair", "error"...)."""
    expect(table.get_by_test_id("claim")).to_contain_text(f"{claimant} claims a pair")
    table.get_by_test_id(f"claim-{result}").click()
    expect(table.get_by_test_id("claim")).to_be_hidden()


def start_round(table: Page, pads: Page) -> None:
    table.get_by_test_id("start-round").click()
    expect(pads.get_by_test_id("pads-phase")).to_have_attribute("data-phase", "countdown")


def wait_for_go(page: Page, phase: str = "pads-phase") -> None:
    """Wait for the start signal on the pads (or on a buzzer: `phase` "buzzer-phase")."""
    expect(page.get_by_test_id(phase)).to_have_attribute(
        "data-phase", "playing", timeout=GO_TIMEOUT_MS
    )


def play(table: Page, pads: Page) -> None:
    """Start a round at the table and wait, on the pads, for the start signal."""
    start_round(table, pads)
    wait_for_go(pads)


def enter(table: Page, step: str, counts: dict[int, int]) -> None:
    expect(table.get_by_test_id(f"{step}-form")).to_be_visible()
    prefix = "stack" if step == "stacks" else step
    for seat, n in counts.items():
        table.get_by_test_id(f"{prefix}-{seat}").fill(str(n))
    table.get_by_test_id(f"{step}-submit").click()


def confirm(page: Page, testid: str) -> None:
    """A button that asks for a second tap (finish, stall, a new game)."""
    page.get_by_test_id(testid).click()
    expect(page.get_by_test_id(testid)).to_contain_class("armed")
    page.get_by_test_id(testid).click()


def game_over(table: Page, viewer: Page, winners: str, shots: str) -> None:
    """The game is won: `winners` ("Ann wins!") on the scoreboard and at the table, the
    standings apart; screenshots `<shots>-scoreboard` and `<shots>-table`."""
    expect(viewer.get_by_test_id("winners")).to_contain_text(winners)
    expect(table.get_by_test_id("table-winners")).to_contain_text(winners)
    standings_apart(viewer)
    shoot(viewer, f"{shots}-scoreboard")
    shoot(table, f"{shots}-table")
