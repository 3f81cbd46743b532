"""The table's words (issue 24, item 6), on 390×844 phones in Chromium with the pages'
real CSP: the undo names what it takes back as a person would, a press taken back in
round 1 is no press of round 2, and two scorekeepers entering counts at once: the
phone whose form the other saved first keeps its typed counts in view beside the saved
ones until it chooses, and the warning goes once it has.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from playwright.sync_api import Browser, Page, expect

from .browser_support import (
    Served,
    browsing,
    confirm,
    enter,
    fits,
    new_game,
    play,
    served_with,
    table_and_pads,
    table_page,
)

served = served_with("words", "countdown_s = 2.0\n")


def test_undo_says_whose_press_and_round_one_stays_in_round_one(
    served: Served, browser: Browser
) -> None:
    with browsing(served, browser) as (watch, (context,)):
        table, pads = table_and_pads(watch, context, served, "ligretto", ["Jean-Luc", "Ben"])
        play(table, pads)
        pads.get_by_test_id("pad-stop-0").tap()  # Jean-Luc bumps his stop pad
        confirm(table, "void-0")
        undo = table.get_by_test_id("undo")
        expect(undo).to_have_text("Undo: take back Jean-Luc's stop press")
        expect(table.get_by_test_id("voided-0")).to_contain_text("taken back")
        fits(table, "undo-words")

        # Ben calls for real; the round is scored; round 2 starts
        pads.get_by_test_id("pad-stop-1").tap()
        enter(table, "stacks", {0: 4})
        expect(undo).to_have_text("Undo: the stacks of round 1")
        enter(table, "middle", {0: 5, 1: 9})
        expect(undo).to_have_text("Undo: the middle of round 1 and its scores")
        play(table, pads)
        expect(table.get_by_test_id("presses-card")).to_be_hidden()
        pads.get_by_test_id("pad-stop-0").tap()
        expect(table.get_by_test_id("void-row-0")).to_contain_text("Jean-Luc")
        # the press taken back in round 1 is not one of this round's
        expect(table.get_by_test_id("presses-card")).not_to_contain_text("taken back")
        expect(table.get_by_test_id("voided-0")).to_have_count(0)
        state = table.request.get(f"{served.url}/api/state").json()
        assert [p["name"] for p in state["voided"]] == ["Jean-Luc"]  # the log keeps it
        expect(table.locator("body")).not_to_contain_text("µs")
        watch.check()


def counts_on(page: Page, prefix: str, counts: dict[int, int]) -> None:
    for seat, n in counts.items():
        page.get_by_test_id(f"{prefix}-{seat}").fill(str(n))


@dataclass
class Scorekeepers:
    """Two table views logged in (A light, B dark), the pads on A's phone, and round 1
    ended by Ann's stop press."""

    a: Page
    b: Page
    pads: Page


@contextmanager
def scorekeepers(served: Served, browser: Browser, game: str) -> Iterator[Scorekeepers]:
    with browsing(served, browser, "light", "dark") as (watch, (first_phone, second_phone)):
        a = table_page(watch, first_phone, served)
        new_game(a, game, ["Ann", "Ben", "Cara"])
        b = table_page(watch, second_phone, served)
        pads = watch.open(first_phone, "/pads")
        play(a, pads)
        pads.get_by_test_id("pad-stop-0").tap()  # Ann calls
        yield Scorekeepers(a, b, pads)
        watch.check()


def test_two_scorekeepers_at_once_keep_what_they_typed_until_they_choose(
    served: Served, browser: Browser
) -> None:
    with scorekeepers(served, browser, "kids") as at:
        a, b, pads = at.a, at.b, at.pads

        # both phones type; B saves first: A's counts stay in view beside B's
        expect(a.get_by_test_id("left-form")).to_be_visible()
        counts_on(a, "left", {1: 5, 2: 4})
        enter(b, "left", {1: 3, 2: 2})
        expect(a.get_by_test_id("left-form")).to_be_hidden()
        conflict = a.get_by_test_id("conflict")
        expect(conflict).to_contain_text("Saved on another phone: the cards left of round 1")
        expect(a.get_by_test_id("conflict-saved-1")).to_have_text("3")
        expect(a.get_by_test_id("conflict-mine-1")).to_have_text("5")
        expect(a.get_by_test_id("conflict-row-1")).to_contain_class("differs")
        expect(a.get_by_test_id("conflict-row-0")).not_to_contain_class("differs")
        expect(a.get_by_test_id("table-error")).to_contain_text("Another phone saved first")
        expect(b.get_by_test_id("conflict")).to_have_count(0)
        expect(b.get_by_test_id("table-error")).to_have_text("")
        fits(a, "conflict")
        # A chooses its own: the round is corrected, the warning and the choice go
        a.get_by_test_id("conflict-mine").click()
        expect(conflict).to_have_count(0)
        expect(a.get_by_test_id("table-error")).to_have_text("")
        state = a.request.get(f"{served.url}/api/state").json()
        assert state["history"][0]["left"] == {"Ann": 0, "Ben": 5, "Cara": 4}, state["history"]
        expect(b.get_by_test_id("undo")).to_have_text("Undo: the correction of round 1")

        # round 2: both save at the same moment; whichever came second keeps its counts
        play(a, pads)
        pads.get_by_test_id("pad-stop-1").tap()  # Ben calls
        counts_on(a, "left", {0: 7, 2: 1})
        counts_on(b, "left", {0: 6, 2: 1})
        # (b's save may reach a first and take a's form away: then a is the second, its
        # typed counts kept in view as well)
        b.evaluate("document.querySelector('[data-testid=left-submit]').click()")
        a.evaluate("document.querySelector('[data-testid=left-submit]')?.click()")
        expect(a.get_by_test_id("left-form")).to_be_hidden()
        expect(b.get_by_test_id("left-form")).to_be_hidden()
        state = a.request.get(f"{served.url}/api/state").json()
        saved = state["history"][1]["left"]["Ann"]
        second = b if saved == 7 else a
        first = a if second is b else b
        expect(second.get_by_test_id("conflict-mine-0")).to_have_text("6" if saved == 7 else "7")
        expect(second.get_by_test_id("conflict-saved-0")).to_have_text(str(saved))
        expect(first.get_by_test_id("conflict")).to_have_count(0)
        # it keeps the saved counts: the choice and the warning go, and stay gone
        second.get_by_test_id("conflict-keep").click()
        expect(second.get_by_test_id("conflict")).to_have_count(0)
        expect(second.get_by_test_id("table-error")).to_have_text("")
        second.reload()
        expect(second.get_by_test_id("phase")).to_have_attribute("data-phase", "scored")
        expect(second.get_by_test_id("conflict")).to_have_count(0)
        after = a.request.get(f"{served.url}/api/state").json()["history"][1]["left"]["Ann"]
        assert after == saved


def test_the_second_phone_puts_its_own_stacks_in(served: Served, browser: Browser) -> None:
    """Ligretto stacks, the middle not yet entered: "Use mine" takes the saved stacks
    back and saves this phone's; the phone that saved first is told in its turn."""
    with scorekeepers(served, browser, "ligretto") as at:
        a, b = at.a, at.b
        expect(a.get_by_test_id("stacks-form")).to_be_visible()
        counts_on(a, "stack", {1: 5, 2: 4})
        enter(b, "stacks", {1: 3, 2: 2})
        expect(a.get_by_test_id("middle-form")).to_be_visible()
        expect(a.get_by_test_id("conflict-saved-2")).to_have_text("2")
        a.get_by_test_id("conflict-mine").click()
        expect(a.get_by_test_id("conflict")).to_have_count(0)
        expect(a.get_by_test_id("table-error")).to_have_text("")
        expect(a.get_by_test_id("middle-form")).to_be_visible()
        state = a.request.get(f"{served.url}/api/state").json()
        assert [p["stack"] for p in state["players"]] == [0, 5, 4], state["players"]
        # B typed 3 and 2 and saved them: they were replaced, so B now chooses
        expect(b.get_by_test_id("conflict-mine-1")).to_have_text("3")
        expect(b.get_by_test_id("conflict-saved-1")).to_have_text("5")
        expect(b.get_by_test_id("table-error")).to_contain_text("Another phone saved first")
        b.get_by_test_id("conflict-keep").click()
        expect(b.get_by_test_id("table-error")).to_have_text("")
        expect(b.get_by_test_id("middle-form")).to_be_visible()
