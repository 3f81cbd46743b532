"""The phone pages in a real browser, against the real `buzzerbox serve`.

A whole Ligretto game on a 390×844 phone: the table's phone logs in with the PIN
the box prints, makes the game, starts rounds, presses the virtual pads and enters
the scores (one entry refused by the rules and shown at its field); a second phone
(its own browser context, dark, not logged in) follows the scoreboard live.
The other three games: test_browser_games.py; what they share: browser_support.py.

The tests are skipped when Playwright or Chromium is missing. Set BUZZERBOX_SHOTS to
a folder to keep screenshots of the pages (light and dark, phone and TV).
"""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from .browser_support import (
    Served,
    browsing,
    enter,
    game_over,
    play,
    shoot,
    start_round,
    table_page,
    targets_big_enough,
    wait_for_go,
)

# the shared fixtures, for this module (each module has its own box)

# -- steps of a game -------------------------------------------------------------------------


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


# -- the test ----------------------------------------------------------------------------------


def test_a_whole_ligretto_game_on_two_phones(served: Served, browser: Browser) -> None:
    with browsing(served, browser, "light", "dark") as (watch, (table_phone, viewer_phone)):
        table = table_page(watch, table_phone, served)
        expect(table.get_by_test_id("newgame-form")).to_be_visible()
        targets_big_enough(table)
        new_ligretto(table, ["Ann", "Ben", "Cara"], target=50)
        expect(table.get_by_test_id("seat-0")).to_contain_text("Ann")
        expect(table.get_by_test_id("seat-pads-2")).to_have_text("stop pad")  # Cara's

        # the second phone: anyone at the table, not logged in, dark
        viewer = watch.open(viewer_phone, "/")
        expect(viewer.get_by_test_id("standings").locator("li")).to_have_count(3)
        expect(viewer.get_by_test_id("course")).to_have_text("to 50 points")
        # a box on loopback: no phone can reach it, so no code that leads nowhere
        # (tests/net: the code on a real network)
        expect(viewer.get_by_test_id("qr-scoreboard")).to_be_hidden()
        expect(viewer.get_by_test_id("no-network")).to_have_text(
            "No network: phones cannot reach this box"
        )

        # the virtual pads, on the table's phone (the admin's session)
        pads = watch.open(table_phone, "/pads")
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
        shoot(table, "ligretto-table-refusal")
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
        photo = watch.open(viewer_phone, "/finish")
        expect(photo.get_by_test_id("photo-first")).to_contain_text("Ben")
        expect(photo.get_by_test_id("press-1")).to_contain_text("Ann")
        expect(photo.get_by_test_id("press-1")).to_have_attribute("data-kind", "late")
        expect(photo.get_by_test_id("lead-1")).to_have_text(
            re.compile(r"^\+\d+(\.\d+)? (µs|ms|s)$")
        )
        expect(photo.get_by_test_id("false-start-0")).to_contain_text("Cara")
        shoot(photo, "ligretto-photo")

        # round 2: Ben taps his pad; a stacks entry is undone and entered again
        play(table, pads)
        pads.get_by_test_id("pad-stop-1").tap()
        enter(table, "stacks", {0: 2, 2: 5})
        table.get_by_test_id("undo").click()
        enter(table, "stacks", {0: 2, 2: 6})
        expect(table.get_by_test_id("middle-form")).to_contain_text("stack 6")
        enter(table, "middle", {0: 20, 1: 25, 2: 12})

        # Ben has 55 ≥ 50 and leads alone: the game is won, on both phones
        expect(viewer.get_by_test_id("total-1")).to_have_text("55")
        expect(viewer.get_by_test_id("player-1")).to_contain_class("winner")
        game_over(table, viewer, "Ben wins!", "ligretto")
        watch.check()


PAGES = ["/", "/finish", "/table", "/pads", "/join"]


def test_every_page_comes_from_the_box_alone(served: Served, browser: Browser) -> None:
    with browsing(served, browser) as (watch, [context]):
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
    with browsing(served, browser) as (_, [context]):
        page = context.new_page()
        page.goto(f"{served.url}/join")
        got = page.evaluate(HELPERS)
    assert got == {
        "leads": ["+740 µs", "+12.345 ms", "+1.235 s"],
        "stacks": "Ann",  # the player to correct, not the caller named first
        "leading": "Anna",
        "none": None,
        "kids": [["B", 1], ["C", 1], ["A", 3]],  # Ligretto Kids: fewest cards first
        "course": "to 99 points",
    }
