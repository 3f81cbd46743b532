"""Every screen at every size, in every language (issue 41): what the layout tests share.

`Screens` opens the pages in one browser, a phone's context and a TV's per language
(the `lang` cookie the language switch sets, the admin logged in on each), and
`Screens.check()` brings each page to each size in turn once it shows the box's latest
move: layout.js answers what a person would see go wrong (a page scrolling sideways, two
of the page's own boxes overlapping, a text cut, a word broken across lines, a name
shortened; on a TV, anything off the screen). One browser, many pages: each page stays
open through the game and is only resized, so a check of every page at five sizes in
four languages takes seconds, not a browser per screen.

The pages are checked side by side: every page is brought to a size and its check
started, then the answers are collected, so the pages' renderers draw and check at once
(on a busy machine a check asked and awaited page by page spent most of its time
waiting its turn between the test, Playwright's driver and the page). For the same
reason a page's check itself waits, in the page, until the page shows the box's latest
move, rather than the test asking each page in turn beforehand.

The sizes: the narrow phones people hold (360 px: many Androids; 390 px: an iPhone
12-15; 430 px: the large ones) and the two TVs (1080p, 720p). The fonts are Debian's
Noto (Latin, CJK, colour emoji), which `bash tests/check` installs: the faces phones
have, so a CJK name or an emoji is laid out in real glyphs, never in empty boxes.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize

from .browser_support import Served, Watch

LAYOUT = (Path(__file__).parent / "layout.js").read_text(encoding="utf-8")

PHONES: dict[str, ViewportSize] = {
    "360 px phone": {"width": 360, "height": 780},
    "390 px phone": {"width": 390, "height": 844},
    "430 px phone": {"width": 430, "height": 932},
}
TVS: dict[str, ViewportSize] = {
    "1080p TV": {"width": 1920, "height": 1080},
    "720p TV": {"width": 1280, "height": 720},
}
LANGUAGES = ("en", "de", "fr", "da")

#: the longest names of each kind the box's form takes (24 characters): one long word,
#: a hyphen and a space, CJK letters, emoji
LONG_NAMES = ["Wolfeschlegelsteinhausen", "Jean-Luc Picard", "高橋さくら", "Jörg 🎉🎉🎉"]

#: twelve players: the long names, and others long in their own ways
TWELVE = [
    *LONG_NAMES,
    "Maximilian-Alexander von",
    "Chloé",
    "Ólafur Ragnar",
    "Anna-Lena Schmidt-Bäumer",
    "Guðmundur Sigurðsson",
    "Marie-Thérèse Dubois",
    "東方不敗令狐冲",
    "Friederike von Stein",
]

#: notes that float over the page on purpose while the link or the memory card lags
FLOATING = ["#link-note", "#save-note"]

#: the Noto faces the pages are laid out in (fc-list's family names)
FONTS = ("Noto Sans", "Noto Sans CJK", "Noto Color Emoji")

#: a promise, kept until the page has loaded (its images too) and shows the box's log
#: up to `opts.seq` (rejected with what it shows after `opts.wait_ms`): it looks again
#: whenever the page's `data-seq` changes or it loads
SHOWN = """(opts) => new Promise((done, fail) => {
  const seq = () => document.body?.dataset.seq;
  const shows = () => document.readyState === "complete" && Number(seq()) >= opts.seq;
  if (shows()) return done();
  const watch = new MutationObserver(() => shows() && finish());
  const finish = () => { watch.disconnect(); clearTimeout(late); done(); };
  const late = setTimeout(() => {
    watch.disconnect();
    fail(`shows ${JSON.stringify([document.readyState, seq()])}, not the box's ${opts.seq}`);
  }, opts.wait_ms);
  watch.observe(document, { attributes: true, attributeFilter: ["data-seq"], subtree: true });
  addEventListener("load", () => shows() && finish());
})"""

#: layout.js started on a page once it shows the box's latest move, its answer kept for
#: `ANSWER` to collect (a page that never shows it: that, as its one fault)
START = f"""(opts) => {{
  window.__layoutFaults = ({SHOWN})(opts).then(() => ({LAYOUT.strip()})(opts), (why) => [why]);
}}"""
ANSWER = "() => window.__layoutFaults"

#: forty-odd live pages draw each of the box's moves on two busy cores: a page may
#: take its time to show the latest
SHOWS_TIMEOUT_MS = 60_000

#: pages open in one browser context (each holds a connection for its live stream)
PAGES_PER_CONTEXT = 4


def fonts_missing() -> list[str]:
    """The Noto families this machine lacks (`bash tests/check` installs them)."""
    if not shutil.which("fc-list"):
        return list(FONTS)
    families = subprocess.run(
        ["fc-list", ":", "family"], capture_output=True, text=True, check=True
    ).stdout
    return [font for font in FONTS if font not in families]


def faults(
    page: Page, size: ViewportSize, *, names: list[str], screen: bool, frames: bool = True
) -> list[str]:
    """What layout.js finds wrong with `page` as it stands at `size` (a TV: `screen`;
    `frames` False: the page's clock is held, it draws no animation frame)."""
    opts = {**size, "screen": screen, "names": names, "ignore": FLOATING, "frames": frames}
    found: list[str] = page.evaluate(LAYOUT, opts)
    return found


@dataclass
class Screen:
    """One page open in one language, on a phone (three sizes) or a TV (two)."""

    page: Page
    lang: str
    path: str
    sizes: dict[str, ViewportSize]
    is_tv: bool


def at_its_size_first(screen: Screen) -> list[tuple[str, ViewportSize]]:
    """`screen`'s sizes by name, the one its page is at first, the others in order."""
    sizes = list(screen.sizes.items())
    return sorted(sizes, key=lambda named: named[1] != screen.page.viewport_size)


class Screens:
    """The pages `phone_paths` on a phone and `tv_paths` on a TV, in every language."""

    def __init__(
        self,
        browser: Browser,
        served: Served,
        watch: Watch,
        phone_paths: list[str],
        tv_paths: list[str],
        languages: tuple[str, ...] = LANGUAGES,
    ) -> None:
        self.served = served
        self.contexts: list[BrowserContext] = []
        self.screens: list[Screen] = []
        for lang in languages:
            for paths, sizes, is_tv in ((phone_paths, PHONES, False), (tv_paths, TVS, True)):
                # Chromium opens at most 6 connections to one host per context, and each
                # page holds one for its live stream: a few pages per context
                for at in range(0, len(paths), PAGES_PER_CONTEXT):
                    context = self._context(browser, lang, next(iter(sizes.values())), is_tv)
                    for path in paths[at : at + PAGES_PER_CONTEXT]:
                        page = watch.page(context)
                        # every page asked for at once, each checked once it shows the box
                        page.goto(f"{served.url}{path}", wait_until="commit")
                        self.screens.append(Screen(page, lang, path, sizes, is_tv))

    def _context(
        self, browser: Browser, lang: str, size: ViewportSize, is_tv: bool
    ) -> BrowserContext:
        """A phone's (or a TV's) browser in `lang`, the admin logged in."""
        context = browser.new_context(viewport=size, is_mobile=not is_tv, has_touch=not is_tv)
        context.set_default_timeout(15_000)
        context.add_cookies([{"name": "lang", "value": lang, "url": self.served.url}])
        reply = context.request.post(f"{self.served.url}/api/login", data={"pin": self.served.pin})
        assert reply.ok, reply.text()
        self.contexts.append(context)
        return context

    def pages(self, path: str) -> list[Page]:
        """The pages open at `path`, one per language and device."""
        return [s.page for s in self.screens if s.path == path]

    def check(
        self,
        seq: int,
        names: list[str],
        paths: list[str] | None = None,
        tv_only: tuple[str, ...] = (),
    ) -> list[str]:
        """Every page (or those at `paths`; those at `tv_only` on the TV alone) at each
        of its sizes, once it shows the box's log up to `seq`: what is wrong, "<lang>
        <path> on a <size>: <fault>"."""
        chosen = [
            s
            for s in self.screens
            if (paths is None or s.path in paths) and (s.is_tv or s.path not in tv_only)
        ]
        # each page's sizes, the one it is at first (it is not resized to it again: one
        # round trip less per page on a busy machine; every size is checked all the same)
        orders = {id(s): at_its_size_first(s) for s in chosen}
        out: list[str] = []
        for k in range(max(len(s.sizes) for s in chosen)):
            started: list[tuple[Screen, str]] = []
            for s in chosen:
                if k < len(s.sizes):
                    name, size = orders[id(s)][k]
                    if s.page.viewport_size != size:
                        s.page.set_viewport_size(size)
                    screen = s.is_tv and s.path == "/tv"
                    opts = {**size, "screen": screen, "names": names, "ignore": FLOATING}
                    s.page.evaluate(START, {**opts, "seq": seq, "wait_ms": SHOWS_TIMEOUT_MS})
                    started.append((s, name))
            for s, name in started:
                found: list[str] = s.page.evaluate(ANSWER)
                out += [f"{s.lang} {s.path} on a {name}: {f}" for f in found]
        return out

    def close(self) -> None:
        for context in self.contexts:
            context.close()
