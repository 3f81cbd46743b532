"""Mistakes at the table, on two scorekeepers' phones (issue 14, point 1, client side).

Counts typed stay on the phone until the round moves on (a reload or an undo finds
them again); a phone whose form another phone saved first says so. A bumped stop pad
and a stray Twin It! slap are taken back (`void`) from "Presses this round".
"""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from .browser_support import (
    Served,
    browsing,
    confirm,
    enter,
    fits,
    new_game,
    play,
    table_and_pads,
    table_page,
)
from .tv_steps import Scorekeeper


def test_typed_counts_stay_and_a_second_phone_is_noticed(served: Served, browser: Browser) -> None:
    with browsing(served, browser, "light", "dark") as (watch, (first_phone, second_phone)):
        a = table_page(watch, first_phone, served)
        new_game(a, "ligretto", ["Ann", "Ben", "Cara"])
        b = table_page(watch, second_phone, served)
        pads = watch.open(first_phone, "/pads")
        play(a, pads)
        pads.get_by_test_id("pad-stop-0").tap()  # Ann calls

        # phone A types Ben's stack, then the phone reloads: the count is still there
        expect(a.get_by_test_id("stacks-form")).to_be_visible()
        a.get_by_test_id("stack-1").fill("5")
        a.reload()
        expect(a.get_by_test_id("stack-1")).to_have_value("5")
        expect(a.get_by_test_id("stack-0")).to_have_value("0")
        a.get_by_test_id("stack-2").fill("4")

        # phone B saves the stacks first: phone A is told, not silently replaced
        enter(b, "stacks", {1: 3, 2: 2})
        expect(b.get_by_test_id("middle-form")).to_be_visible()
        expect(a.get_by_test_id("middle-form")).to_be_visible()
        expect(a.get_by_test_id("table-error")).to_contain_text("Another phone saved first")
        expect(a.get_by_test_id("table-error")).to_contain_text("the stacks of round 1")
        expect(b.get_by_test_id("table-error")).to_have_text("")
        fits(a, "mistakes-notice")

        # phone B takes its stacks back: its form comes back as it was typed
        b.get_by_test_id("undo").click()
        expect(b.get_by_test_id("stacks-form")).to_be_visible()
        expect(b.get_by_test_id("stack-1")).to_have_value("3")
        expect(b.get_by_test_id("stack-2")).to_have_value("2")
        # and phone A finds its own counts again
        expect(a.get_by_test_id("stack-1")).to_have_value("5")
        expect(a.get_by_test_id("stack-2")).to_have_value("4")
        a.get_by_test_id("stacks-submit").click()
        expect(a.get_by_test_id("middle-form")).to_be_visible()
        expect(a.get_by_test_id("table-error")).to_have_text("")
        expect(b.get_by_test_id("table-error")).to_contain_text("Another phone saved first")
        watch.check()


def test_a_bumped_pad_is_taken_back_and_a_round_corrected(served: Served, browser: Browser) -> None:
    with browsing(served, browser) as (watch, [context]):
        table, pads = table_and_pads(watch, context, served, "ligretto", ["Ann", "Ben"])
        play(table, pads)

        # Ben bumps his stop pad: the round ends; the table takes the press back
        pads.get_by_test_id("pad-stop-1").tap()
        expect(table.get_by_test_id("stacks-form")).to_be_visible()
        expect(table.get_by_test_id("void-row-0")).to_contain_text("Ben")
        fits(table, "mistakes-void")
        confirm(table, "void-0")
        expect(table.get_by_test_id("phase")).to_have_attribute("data-phase", "playing")
        expect(table.get_by_test_id("voided-0")).to_contain_text("taken back")
        expect(table.get_by_test_id("undo")).to_have_text("Undo: take back Ben's stop press")

        # Ann calls for real; the undo beside the form names the stacks once entered
        pads.get_by_test_id("pad-stop-0").tap()
        enter(table, "stacks", {1: 4})
        expect(table.get_by_test_id("undo")).to_have_text("Undo: the stacks of round 1")
        enter(table, "middle", {0: 10, 1: 5})
        expect(table.get_by_test_id("mini-totals")).to_contain_text("Ben−3")

        # round 1 is corrected from the rounds card: a refusal at its field, then done
        expect(table.get_by_test_id("round-1")).to_contain_text("Ann called")
        table.get_by_test_id("amend-1").click()
        expect(table.get_by_test_id("amend-middle-1")).to_have_value("5")
        table.get_by_test_id("amend-stacks-1").fill("11")
        table.get_by_test_id("amend-submit").click()
        expect(table.get_by_test_id("amend-stacks-1-error")).not_to_have_text("")
        table.get_by_test_id("amend-stacks-1").fill("4")
        table.get_by_test_id("amend-middle-1").fill("9")
        table.get_by_test_id("amend-submit").click()
        expect(table.get_by_test_id("mini-totals")).to_contain_text("Ben1")
        expect(table.get_by_test_id("undo")).to_have_text("Undo: the correction of round 1")
        fits(table, "mistakes-amended")

        # the game ends; a rematch in one tap: the same players in the same seats
        confirm(table, "finish")
        expect(table.get_by_test_id("table-winners")).to_contain_text("Ann wins!")
        fits(table, "mistakes-finished")
        # the result card, drawn by the box, to save or share
        expect(table.get_by_test_id("export-card")).to_be_visible()
        card = table.request.get(f"{served.url}/api/export/card.svg")
        assert card.ok and "Ann wins!" in card.text()
        table.get_by_test_id("rematch").click()
        expect(table.get_by_test_id("phase")).to_have_attribute("data-phase", "lobby")
        expect(table.get_by_test_id("mini-totals")).to_have_text("Ann0Ben0")
        watch.check()


def test_a_stray_slap_in_twin_it_is_taken_back(served: Served, browser: Browser) -> None:
    """Ben's hand hits his pad on no pair just before Ann slaps the real one: the table
    takes Ben's slap back from "Presses this round", and Ann's claim is what stands."""
    with browsing(served, browser) as (watch, [context]):
        table, pads = table_and_pads(watch, context, served, "twinit", ["Ann", "Ben", "Cara"])
        keeper = Scorekeeper(browser.new_context(), served)
        photo = watch.open(context, "/finish")
        play(table, pads)

        # Ben's stray slap, Ann's on the pair 1 ms after it: their moments given, as
        # the pads page gives a key's, so both fall in the claim's second however
        # late the machine's load lets the requests arrive
        keeper.presses([(1, "slap"), (0, "slap")])
        expect(table.get_by_test_id("claim")).to_contain_text("Ben claims a pair")
        expect(table.get_by_test_id("void-row-0")).to_contain_text("Ben")
        expect(table.get_by_test_id("void-row-1")).to_contain_text("Ann")
        fits(table, "twinit-void")
        confirm(table, "void-0")
        expect(table.get_by_test_id("claim")).to_contain_text("Ann claims a pair")
        expect(table.get_by_test_id("voided-0")).to_contain_text("Ben")
        expect(table.get_by_test_id("voided-0")).to_contain_text("taken back")
        expect(table.get_by_test_id("undo")).to_have_text("Undo: take back Ben's slap")
        expect(photo.get_by_test_id("photo-first")).to_contain_text("Ann")
        state = table.request.get(f"{served.url}/api/state").json()
        assert [s["name"] for s in state["claim"]["slaps"]] == ["Ann"], state["claim"]
        assert [p["name"] for p in state["voided"]] == ["Ben"], state["voided"]
        table.get_by_test_id("claim-pair").click()
        expect(table.get_by_test_id("mini-totals")).to_contain_text("Ann1Ben0")

        # a lone stray slap: taken back, its claim is gone and the game plays on
        pads.keyboard.press("3")
        expect(table.get_by_test_id("claim")).to_contain_text("Cara claims a pair")
        confirm(table, "void-0")
        expect(table.get_by_test_id("claim")).to_be_hidden()
        expect(table.get_by_test_id("phase")).to_have_attribute("data-phase", "playing")
        state = table.request.get(f"{served.url}/api/state").json()
        assert state["claim"] is None and state["takes_to_win"] == 5
        assert [p["name"] for p in state["voided"]][-1] == "Cara", state["voided"]
        expect(table.get_by_test_id("mini-totals")).to_contain_text("Ann1Ben0Cara0")
        watch.check()
