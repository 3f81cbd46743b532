"""What a table of friends saw in a real browser (issue 14, point 5), fixed and kept so.

Names that break naive code (an emoji cut in half, `__proto__`), shared places, the
Kids start call and stall form, Twin It!'s lobby, the join page with no wifi, the tabs
on a 390 px phone, the pad test of a new game, the rounds table too wide for a phone.
Every page checked fits a phone and a 1080p TV with no sideways scroll.
"""

from __future__ import annotations

import itertools

from playwright.sync_api import Browser, Response, expect

from . import browser_support as support
from .browser_support import (
    Served,
    browsing,
    confirm,
    fits,
    new_game,
    start_round,
    table_page,
    wait_for_go,
)

#: a name of 11 graphemes and 17 UTF-16 units: cut naively, an emoji splits
PARTY = "Jörg 🎉🎉🎉🎉🎉🎉"

#: the chart's end labels: their text, whether it is well formed, their boxes
LABELS = """() => [...document.querySelectorAll(".totals-chart .end-label")].map((t) => {
  const b = t.getBBox();
  const text = [...t.childNodes].filter((n) => n.nodeName !== "title")
    .map((n) => n.textContent).join("");
  return {text, ok: text.isWellFormed(), right: b.x + b.width, top: b.y, bottom: b.y + b.height};
})"""


def test_names_places_and_the_kids_stall(served: Served, browser: Browser) -> None:
    with browsing(served, browser) as (watch, [context]):
        table = table_page(watch, context, served)
        names = [PARTY, "Maximilian", "__proto__", "Dora", "Eve"]
        new_game(table, "kids", names)
        viewer = watch.open(context, "/")
        # before any round everybody shares the first place
        for seat in range(5):
            expect(viewer.get_by_test_id(f"player-{seat}").locator(".place")).to_have_text("=1")
        pads = watch.open(context, "/pads")

        # the Kids rulebook's call is "Ligretto!"
        start_round(table, pads)
        expect(viewer.get_by_test_id("countdown")).to_contain_text("3 – 2 – 1 Ligretto!")
        wait_for_go(pads)
        confirm(table, "stall")
        form = table.get_by_test_id("left-form")
        expect(form).to_contain_text("Nobody called")
        expect(form).not_to_contain_text("only for the caller")
        # a player called __proto__ is scored like anyone
        for seat, n in enumerate([4, 7, 3, 7, 9]):
            table.get_by_test_id(f"left-{seat}").fill(str(n))
        table.get_by_test_id("left-submit").click()
        expect(viewer.get_by_test_id("total-2")).to_have_text("3")
        expect(viewer.get_by_test_id("player-2").locator(".place")).to_have_text("1")
        expect(viewer.get_by_test_id("player-1").locator(".place")).to_have_text("=3")
        expect(viewer.get_by_test_id("player-3").locator(".place")).to_have_text("=3")
        expect(viewer.get_by_test_id("cell-1-2")).to_contain_text("3")

        # the chart's labels: each line's total, inside the chart, apart from each other;
        # the names whole in the legend under it (issue 41: no name cut to fit)
        expect(viewer.get_by_test_id("chart-label-0")).to_be_attached()
        labels = viewer.evaluate(LABELS)
        assert all(label["ok"] for label in labels), labels
        assert all(label["right"] <= 360 for label in labels), labels
        assert sorted(label["text"] for label in labels) == ["3", "4", "7", "7", "9"], labels
        expect(viewer.get_by_test_id("chart-legend-0")).to_have_text(PARTY)
        tops = sorted((label["top"], label["bottom"]) for label in labels)
        assert all(a[1] <= b[0] + 0.5 for a, b in itertools.pairwise(tops)), tops

        # mid-game the scoreboard is this game's: players across games are on their tab
        expect(viewer.get_by_test_id("stats")).to_have_count(0)

        # five columns do not fit a phone: the table says who is out of sight
        hint = viewer.get_by_test_id("history-hint")
        expect(hint).to_be_visible()
        expect(hint).to_contain_text("Swipe the table sideways")
        fits(viewer, "fixes-kids-scoreboard")
        fits(table, "fixes-kids-table")
        # on a TV every column shows: no hint
        viewer.set_viewport_size(support.FITS["tv"])
        expect(hint).to_be_hidden()
        watch.check()


def test_twin_it_lobby_join_page_and_pad_test(served: Served, browser: Browser) -> None:
    missing: list[str] = []

    def note(response: Response) -> None:
        if response.status >= 400:
            missing.append(f"{response.status} {response.url}")

    with browsing(served, browser) as (watch, [context]):
        table = table_page(watch, context, served)
        new_game(table, "ligretto", ["Ann", "Ben"])
        pads = watch.open(context, "/pads")
        pads.get_by_test_id("pad-stop-0").tap()  # a false start in the lobby: kept
        expect(pads.get_by_test_id("pad-test-edges").locator("li")).not_to_have_count(0)

        # the PIN as a QR code, for a second scorekeeper: the box draws it for the admin
        table.get_by_test_id("show-pin").click()
        expect(table.get_by_test_id("pin-qr")).to_be_visible()
        table.wait_for_function(
            "() => document.querySelector('[data-testid=pin-qr]').naturalWidth > 0"
        )
        table.get_by_test_id("show-pin").click()
        expect(table.get_by_test_id("pin-qr")).to_be_hidden()

        # a new game: the pad test starts afresh (no old press relabelled)
        new_game(table, "twinit", ["Cara", "Dan", "Eli"])
        expect(pads.get_by_test_id("pad-test-empty")).to_be_visible()
        expect(table.get_by_test_id("phase")).to_have_text("Ready to start")
        expect(pads.get_by_test_id("pads-phase")).not_to_contain_text("round 1")
        viewer = watch.open(context, "/")
        expect(viewer.get_by_test_id("subline")).not_to_contain_text("round 1")

        # the join page asks for no wifi code the box does not have
        join = watch.page(context)
        join.on("response", note)
        join.goto(f"{served.url}/join")
        expect(join.get_by_test_id("no-network")).to_be_visible()  # a loopback box: no code
        expect(join.get_by_test_id("qr-scoreboard")).to_be_hidden()
        expect(join.get_by_test_id("live")).to_have_attribute("data-status", "live")
        assert missing == []
        expect(join.locator("#wifi-card")).to_be_hidden()
        # every tab, Join the last, is whole on a 390 px phone
        for tab in ("scoreboard", "finish", "stats", "table", "pads", "join"):
            box = join.get_by_test_id(f"tab-{tab}").bounding_box()
            assert box is not None and box["x"] + box["width"] <= 390, (tab, box)
        fits(join, "fixes-join")
        fits(pads, "fixes-pads")
        watch.check()


#: the name's whole text is in its box, on a phone: not cut, not cropped by its row
NAME_SHOWN = """(seat) => {
  const row = document.querySelector(`[data-testid="player-${seat}"]`);
  const name = row.querySelector(".name"), badge = row.querySelector(".badge");
  const n = name.getBoundingClientRect(), r = row.getBoundingClientRect();
  return {
    whole: name.scrollWidth <= name.clientWidth + 1,
    inRow: n.left >= r.left && n.right <= r.right + 0.5,
    badge: badge ? badge.getBoundingClientRect().right <= r.right + 0.5 : null,
  };
}"""


def test_a_long_name_that_called_is_shown_whole_beside_its_badge(
    served: Served, browser: Browser
) -> None:
    long = "Maximilian-Alexander von"  # the longest name the form takes: 24
    with browsing(served, browser) as (watch, [context]):
        table = table_page(watch, context, served)
        new_game(table, "twist", [long, "Ben"])
        viewer = watch.open(context, "/")
        pads = watch.open(context, "/pads")
        start_round(table, pads)
        wait_for_go(pads)
        pads.get_by_test_id("pad-stop-0").tap()  # the long name calls
        expect(viewer.get_by_test_id("called")).to_be_visible()
        shown = viewer.evaluate(NAME_SHOWN, 0)
        assert shown == {"whole": True, "inRow": True, "badge": True}, shown
        expect(viewer.get_by_test_id("player-0").locator(".name")).to_have_text(long)
        fits(viewer, "fixes-long-caller")
        watch.check()
