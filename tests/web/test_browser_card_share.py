"""The result card shared or saved (issue 14, point 6): a finished game's card, drawn by
the box (SVG) and turned into a PNG by the phone's browser, goes to the share sheet
where the browser can share files (navigator.canShare), else it is downloaded.

Chromium on Linux has no share sheet: the share path runs with navigator.share and
canShare defined before the page loads, recording what they were given; the download
path with them taken away, as on a browser that has neither.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, expect

from .browser_support import (
    Served,
    Watch,
    browsing,
    confirm,
    fits,
    log_in,
    new_game,
    table_page,
    targets_big_enough,
)

#: a share sheet that takes PNG files and notes what it was given
SHARE_SHEET = """window.__shared = [];
Object.defineProperty(Navigator.prototype, "canShare", {configurable: true, value(data) {
  return Boolean(data && data.files && data.files.every((f) => f.type === "image/png"));
}});
Object.defineProperty(Navigator.prototype, "share", {configurable: true, async value(data) {
  const f = data.files[0];
  const head = [...new Uint8Array(await f.slice(0, 24).arrayBuffer())];
  window.__shared.push({title: data.title, text: data.text, name: f.name, type: f.type,
                        size: f.size, head});
}});"""

#: a browser with no share sheet at all
NO_SHARING = """delete Navigator.prototype.share; delete Navigator.prototype.canShare;"""

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def png_size(head: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its first 24 bytes (the IHDR chunk)."""
    assert head[:8] == PNG_MAGIC, head[:8]
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def scoreboard(watch: Watch, context: BrowserContext, served: Served, script: str) -> Page:
    page = watch.page(context)
    page.add_init_script(script)
    page.goto(f"{served.url}/")
    expect(page.get_by_test_id("winners")).to_contain_text("win")
    return page


def test_the_result_card_is_shared_or_saved_as_a_png(served: Served, browser: Browser) -> None:
    with browsing(served, browser, "light", "light", "dark") as (watch, (host, sharing, plain)):
        table = watch.page(host)
        table.add_init_script(SHARE_SHEET)
        table.goto(f"{served.url}/table")
        log_in(table, served.pin)
        new_game(table, "kids", ["Ann", "Ben"])
        confirm(table, "finish")
        expect(table.get_by_test_id("table-winners")).to_contain_text("win")

        # a phone that shares files: the sheet gets the card as a PNG, twice its size
        guest = scoreboard(watch, sharing, served, SHARE_SHEET)
        expect(guest.get_by_test_id("share-card")).to_have_text("Share the result card")
        targets_big_enough(guest)
        guest.get_by_test_id("share-card").click()
        expect(guest.get_by_test_id("share-note")).to_have_text("Shared.")
        [shared] = guest.evaluate("window.__shared")
        assert shared["type"] == "image/png" and shared["size"] > 1000
        assert shared["name"].startswith("buzzerbox-game-") and shared["name"].endswith(".png")
        assert shared["title"] == "Ann & Ben won Ligretto Kids", shared
        card = guest.request.get(f"{served.url}/api/export/card.svg").text()
        width = int(card.split('width="', 1)[1].split('"', 1)[0])
        assert png_size(bytes(shared["head"]))[0] == 2 * width
        fits(guest, "card-share")

        # the scorekeeper's table view shares it the same way
        table.get_by_test_id("share-card").click()
        expect(table.get_by_test_id("share-note")).to_have_text("Shared.")
        assert len(table.evaluate("window.__shared")) == 1

        # a browser that cannot share: the PNG is downloaded, and the page says so
        other = scoreboard(watch, plain, served, NO_SHARING)
        expect(other.get_by_test_id("share-card")).to_have_text("Save the result card")
        with other.expect_download() as download:
            other.get_by_test_id("share-card").click()
        saved: Any = download.value
        assert saved.suggested_filename.endswith(".png")
        data = Path(saved.path()).read_bytes()
        assert png_size(data[:24])[0] == 2 * width
        expect(other.get_by_test_id("share-note")).to_contain_text("in your downloads")
        fits(other, "card-saved")
        watch.check()


def test_a_share_sheet_that_fails_saves_the_card_instead(served: Served, browser: Browser) -> None:
    """A share that fails (not a closed sheet) still leaves the player with the card;
    a closed sheet says nothing."""
    failing = """Object.defineProperty(Navigator.prototype, "canShare",
      {configurable: true, value: () => true});
    Object.defineProperty(Navigator.prototype, "share", {configurable: true, value: async () => {
      window.__tries = (window.__tries || 0) + 1;
      throw new DOMException(window.__tries > 1 ? "closed" : "no",
                             window.__tries > 1 ? "AbortError" : "NotAllowedError");
    }});"""
    with browsing(served, browser) as (watch, [context]):
        table = table_page(watch, context, served)
        new_game(table, "kids", ["Cem", "Dan"])
        confirm(table, "finish")
        page = scoreboard(watch, context, served, failing)
        with page.expect_download() as download:
            page.get_by_test_id("share-card").click()
        assert download.value.suggested_filename.endswith(".png")
        expect(page.get_by_test_id("share-note")).to_have_text(
            "The phone would not share the card: it is saved instead."
        )
        page.get_by_test_id("share-card").click()  # the player closes the sheet
        expect(page.get_by_test_id("share-note")).to_have_text("")
        assert page.evaluate("window.__tries") == 2
        watch.check()
