"""The phone pages in a real browser, against the real `buzzerbox serve`.

A whole Ligretto game on a 390×844 phone: the table's phone logs in with the PIN
the box prints, makes the game, starts rounds, presses the virtual pads and enters
the scores (one entry refused by the rules and shown at its field); a second phone
(its own browser context, dark, not logged in) follows the scoreboard live.

Chromium is Debian's (/usr/bin/chromium); `playwright install` is never needed.
The test is skipped when Playwright or Chromium is missing. Set BUZZERBOX_SHOTS to a
folder to keep screenshots of the pages in light and dark.
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pytest

pytest.importorskip("playwright.sync_api")

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
#: the countdown is 3 s, then the start signal; this leaves room on a busy machine
GO_TIMEOUT_MS = 12_000
SHOTS = os.environ.get("BUZZERBOX_SHOTS")

expect.set_options(timeout=10_000)  # live updates on a busy 2-core machine

PIN_LINE = re.compile(r"admin PIN (\S+)")
OPEN_LINE = re.compile(r"open (http://127\.0\.0\.1:\d+/)")


# -- the box -------------------------------------------------------------------------------


@dataclass
class Served:
    """A running `buzzerbox serve`: its address, its admin PIN and what it printed."""

    process: subprocess.Popen[str]
    url: str = ""
    pin: str = ""
    lines: collections.deque[str] = field(default_factory=lambda: collections.deque(maxlen=200))

    def output(self) -> str:
        return "\n".join(self.lines)


def _read(served: Served, ready: threading.Event) -> None:
    """Drain the server's output (so it never blocks), noting its address and PIN."""
    assert served.process.stdout is not None
    for line in served.process.stdout:
        served.lines.append(line.rstrip())
        if not served.pin and (m := PIN_LINE.search(line)):
            served.pin = m.group(1)
        if not served.url and (m := OPEN_LINE.search(line)):
            served.url = m.group(1).rstrip("/")
        if served.pin and served.url:
            ready.set()
    ready.set()  # the server ended: the fixture sees what is missing


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`buzzerbox serve` on a free loopback port with a fresh data folder."""
    data = tmp_path_factory.mktemp("box")
    command = [sys.executable, "-m", "buzzerbox", "serve", "--host", "127.0.0.1"]
    command += ["--port", "0", "--data", str(data)]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    served = Served(process)
    ready = threading.Event()
    reader = threading.Thread(target=_read, args=(served, ready), daemon=True)
    reader.start()
    try:
        if not ready.wait(30) or not (served.url and served.pin):
            pytest.fail(f"buzzerbox serve gave no address and PIN:\n{served.output()}")
        yield served
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        reader.join(5)
        if process.stdout is not None:
            process.stdout.close()


# -- the browser ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    browser = playwright.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
    )
    yield browser
    browser.close()


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

    def _request(self, request: Request) -> None:
        if not request.url.startswith((self.base, "data:", "about:")):
            self.outside.append(request.url)


def phone(browser: Browser, scheme: Literal["light", "dark"] = "light") -> BrowserContext:
    context = browser.new_context(
        viewport=PHONE,
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        color_scheme=scheme,
    )
    context.set_default_timeout(10_000)
    return context


def shoot(page: Page, name: str) -> None:
    """Screenshots of the page in light and dark, when BUZZERBOX_SHOTS names a folder."""
    if not SHOTS:
        return
    Path(SHOTS).mkdir(parents=True, exist_ok=True)
    expect(page.get_by_test_id("countdown")).to_be_hidden()
    page.evaluate("window.scrollTo(0, 0)")
    page.emulate_media(color_scheme="light")
    page.screenshot(path=str(Path(SHOTS) / f"{name}-light.png"), full_page=True)
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=str(Path(SHOTS) / f"{name}-dark.png"), full_page=True)
    page.emulate_media(color_scheme="null")  # back to the context's own


# -- steps of a game -------------------------------------------------------------------------


def log_in(table: Page, pin: str) -> None:
    table.get_by_test_id("pin-input").fill("0000" if pin != "0000" else "9999")
    table.get_by_test_id("pin-submit").click()
    expect(table.get_by_test_id("pin-error")).to_contain_text("wrong PIN")
    table.get_by_test_id("pin-input").fill(pin)
    table.get_by_test_id("pin-submit").click()
    expect(table.get_by_test_id("login")).to_be_hidden()


def new_ligretto(table: Page, names: list[str], target: int) -> None:
    expect(table.get_by_test_id("newgame-form")).to_be_visible()
    table.get_by_test_id("game-ligretto").click()
    while table.locator("[data-testid^='player-name-']").count() < len(names):
        table.get_by_test_id("add-player").click()
    for i, name in enumerate(names):
        table.get_by_test_id(f"player-name-{i}").fill(name)
    table.get_by_test_id(f"target-{target}").click()
    table.get_by_test_id("create-game").click()
    expect(table.get_by_test_id("phase")).to_have_attribute("data-phase", "lobby")


def start_round(table: Page, pads: Page) -> None:
    table.get_by_test_id("start-round").click()
    expect(pads.get_by_test_id("pads-phase")).to_have_attribute("data-phase", "countdown")


def wait_for_go(pads: Page) -> None:
    expect(pads.get_by_test_id("pads-phase")).to_have_attribute(
        "data-phase", "playing", timeout=GO_TIMEOUT_MS
    )


def enter(table: Page, step: str, counts: dict[int, int]) -> None:
    expect(table.get_by_test_id(f"{step}-form")).to_be_visible()
    prefix = "stack" if step == "stacks" else step
    for seat, n in counts.items():
        table.get_by_test_id(f"{prefix}-{seat}").fill(str(n))
    table.get_by_test_id(f"{step}-submit").click()


# -- the test ----------------------------------------------------------------------------------


def test_a_whole_ligretto_game_on_two_phones(served: Served, browser: Browser) -> None:
    watch = Watch(served.url)
    table_phone = phone(browser)
    viewer_phone = phone(browser, "dark")
    try:
        table = watch.page(table_phone)
        table.goto(f"{served.url}/table")
        log_in(table, served.pin)
        new_ligretto(table, ["Ann", "Ben", "Cara"], target=50)
        expect(table.get_by_test_id("seat-0")).to_contain_text("Ann")
        expect(table.get_by_test_id("seats")).to_contain_text("Cara stop")

        # the second phone: anyone at the table, not logged in, dark
        viewer = watch.page(viewer_phone)
        viewer.goto(f"{served.url}/")
        expect(viewer.get_by_test_id("standings").locator("li")).to_have_count(3)
        expect(viewer.get_by_test_id("course")).to_have_text("to 50 points")
        expect(viewer.get_by_test_id("qr-scoreboard")).to_have_attribute(
            "src", "/api/qr/scoreboard.svg"
        )

        # the virtual pads, on the table's phone (the admin's session)
        pads = watch.page(table_phone)
        pads.goto(f"{served.url}/pads")
        expect(pads.get_by_test_id("pad-stop-1")).to_contain_text("2")  # its key

        # round 1: a false start in the countdown, Ben calls by key, Ann is late
        start_round(table, pads)
        expect(viewer.get_by_test_id("countdown")).to_contain_text("3 – 2 – 1 Ligretto!")
        pads.get_by_test_id("pad-stop-2").click()
        wait_for_go(pads)
        pads.keyboard.press("2")
        expect(viewer.get_by_test_id("headline")).to_have_text("Ben called stop")
        pads.get_by_test_id("pad-stop-0").click()
        expect(pads.get_by_test_id("first-1")).to_be_visible()

        # stacks: the caller is pre-filled; two empty stacks are refused at Ann's field
        expect(table.get_by_test_id("stack-1")).to_have_value("0")
        enter(table, "stacks", {0: 0, 2: 4})
        refusal = table.get_by_test_id("stack-0-error")
        expect(refusal).to_contain_text("two empty Ligretto stacks")
        expect(table.get_by_test_id("stack-0")).to_have_attribute("aria-invalid", "true")
        expect(table.get_by_test_id("stack-2-error")).to_be_empty()
        shoot(table, "table-refusal")
        enter(table, "stacks", {0: 3})
        expect(table.get_by_test_id("middle-form")).to_be_visible()
        table.get_by_test_id("middle-0").fill("14")
        table.get_by_test_id("middle-1").fill("30")
        table.get_by_test_id("middle-2").fill("9")
        expect(table.get_by_test_id("middle-preview")).to_contain_text("Ann +8 · Ben +30 · Cara +1")
        table.get_by_test_id("middle-submit").click()

        # the second phone sees the totals live, with the chart and the history
        expect(viewer.get_by_test_id("total-0")).to_have_text("8")
        expect(viewer.get_by_test_id("total-1")).to_have_text("30")
        expect(viewer.get_by_test_id("total-2")).to_have_text("1")
        expect(viewer.get_by_test_id("player-1").locator(".place")).to_have_text("1")
        expect(viewer.get_by_test_id("chart-line-1")).to_be_attached()
        expect(viewer.get_by_test_id("cell-1-0")).to_contain_text("14 − 2×3")

        # the photo finish of round 1: Ben first, Ann's lead, Cara's false start
        photo = watch.page(viewer_phone)
        photo.goto(f"{served.url}/finish")
        expect(photo.get_by_test_id("photo-first")).to_contain_text("Ben")
        expect(photo.get_by_test_id("press-1")).to_contain_text("Ann")
        expect(photo.get_by_test_id("press-1")).to_have_attribute("data-kind", "late")
        expect(photo.get_by_test_id("lead-1")).to_have_text(
            re.compile(r"^\+\d+(\.\d+)? (µs|ms|s)$")
        )
        expect(photo.get_by_test_id("false-start-0")).to_contain_text("Cara")
        shoot(photo, "photo-finish")

        # round 2: Ben taps his pad; a stacks entry is undone and entered again
        start_round(table, pads)
        wait_for_go(pads)
        pads.get_by_test_id("pad-stop-1").tap()
        enter(table, "stacks", {0: 2, 2: 5})
        table.get_by_test_id("undo").click()
        enter(table, "stacks", {0: 2, 2: 6})
        expect(table.get_by_test_id("middle-form")).to_contain_text("stack 6")
        enter(table, "middle", {0: 20, 1: 25, 2: 12})

        # Ben has 55 ≥ 50 and leads alone: the game is won, on both phones
        expect(viewer.get_by_test_id("winners")).to_contain_text("Ben wins!")
        expect(viewer.get_by_test_id("total-1")).to_have_text("55")
        expect(viewer.get_by_test_id("player-1")).to_contain_class("winner")
        expect(table.get_by_test_id("table-winners")).to_contain_text("Ben wins!")
        shoot(viewer, "scoreboard")
        shoot(table, "table")

        assert not watch.errors, watch.errors
        assert not watch.outside, f"the pages asked outside the box: {watch.outside}"
    except (AssertionError, Error):
        print(served.output())
        raise
    finally:
        table_phone.close()
        viewer_phone.close()


PAGES = ["/", "/finish", "/table", "/pads", "/join"]


def test_every_page_comes_from_the_box_alone(served: Served, browser: Browser) -> None:
    watch = Watch(served.url)
    context = phone(browser)
    try:
        page = watch.page(context)
        for path in PAGES:
            response = page.goto(f"{served.url}{path}")
            assert response is not None and response.ok, path
            assert "script-src 'self'" in response.headers["content-security-policy"]
            expect(page.get_by_test_id("live")).to_have_attribute("data-status", "live")
            tab = page.locator("nav a[aria-current='page']")
            expect(tab).to_have_attribute("href", path)
        assert not watch.errors, watch.errors
        assert not watch.outside, watch.outside
    finally:
        context.close()


HELPERS = """async () => {
  const dom = await import("/assets/dom.js");
  const forms = await import("/assets/forms.js");
  const game = await import("/assets/game.js");
  const names = ["Ann", "Ben", "Anna"];
  const stacks = "two empty Ligretto stacks: 0 cards is only possible for the caller, Ben; " +
    "Ann has 1 to 10 cards left";
  const kids = {game: "kids", players: [{name: "A", total: 9}, {name: "B", total: 4},
    {name: "C", total: 4}]};
  return {
    leads: [dom.lead(740), dom.lead(12345), dom.lead(1234567)],
    stacks: forms.fieldOf({message: stacks, field: "Ben"}, names),
    leading: forms.fieldOf({message: "Anna: 12 cards in the stack is impossible"}, names),
    none: forms.fieldOf({message: "a name is too long", field: "players"}, names),
    kids: game.ranking(kids).map((o) => [o.player.name, o.place]),
    course: game.course({game: "ligretto", target: 99}),
  };
}"""


def test_the_pages_helpers(served: Served, browser: Browser) -> None:
    """Leads in µs/ms/s, the field a refusal concerns, places with ties, the course."""
    context = phone(browser)
    try:
        page = context.new_page()
        page.goto(f"{served.url}/join")
        got = page.evaluate(HELPERS)
    finally:
        context.close()
    assert got == {
        "leads": ["+740 µs", "+12.345 ms", "+1.235 s"],
        "stacks": "Ann",  # the player to correct, not the caller named first
        "leading": "Anna",
        "none": None,
        "kids": [["B", 1], ["C", 1], ["A", 3]],  # Ligretto Kids: fewest cards first
        "course": "to 99 points",
    }
