"""0 cards left is a count (issue 24, item 4): in Ligretto Twist two players empty
their hands moments apart; the pile pads count 0 for the one who did not call, the
form is pre-filled with 0, says why that is fine, and the box takes it. Ligretto
Kids takes a 0 typed for a player who did not call, with the same notice.
"""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from .browser_support import (
    Served,
    browsing,
    enter,
    fits,
    play,
    served_with,
    table_and_pads,
)

served = served_with("zero", "countdown_s = 1.0\n")


def test_twist_takes_the_pads_zero_for_the_second_empty_hand(
    served: Served, browser: Browser
) -> None:
    with browsing(served, browser, "light", "dark") as (watch, (context, viewer_phone)):
        viewer = watch.page(viewer_phone)
        table, pads = table_and_pads(watch, context, served, "twist", ["Ann", "Ben", "Cara"])
        viewer.goto(f"{served.url}/")
        play(table, pads)
        # Ben lays all his 40 cards on pile 1 (key Q for the chosen seat), one by one
        pads.get_by_test_id("seat-card-1").locator("button.seat-name").click()
        for _ in range(40):
            pads.keyboard.press("q")
        # 40 presses and releases, each its own request, one after the other (pads.js
        # queues them): on a busy machine that is more than the default wait
        expect(table.get_by_test_id("live-left")).to_contain_text("Ben0 left", timeout=30_000)
        # Ann calls first, Ben a moment later: Ben's press is late, his 0 stands
        pads.keyboard.press("1")
        pads.keyboard.press("2")
        expect(table.get_by_test_id("left-form")).to_be_visible()
        expect(table.get_by_test_id("left-1")).to_have_value("0")
        expect(table.get_by_test_id("left-0")).to_have_value("0")
        expect(table.get_by_test_id("left-2")).to_have_value("40")
        notice = table.get_by_test_id("left-zero-1")
        expect(notice).to_have_text(
            "Ben has 0 cards left too: no minus points. Ann pressed stop first and wins the round."
        )
        expect(table.get_by_test_id("left-zero-0")).to_have_count(0)  # the caller's 0 is no news
        fits(table, "twist-zero-left")
        # a count changed away from 0 takes the notice away, and back brings it again
        table.get_by_test_id("left-1").fill("2")
        expect(notice).to_have_count(0)
        table.get_by_test_id("left-1").fill("0")
        expect(notice).to_be_visible()
        table.get_by_test_id("left-submit").click()
        expect(table.get_by_test_id("left-form")).to_be_hidden()
        expect(table.get_by_test_id("left-1-error")).to_have_count(0)
        state = table.request.get(f"{served.url}/api/state").json()
        assert state["history"][0]["left"] == {"Ann": 0, "Ben": 0, "Cara": 40}, state["history"]
        assert state["history"][0]["winners"] == ["Ann"]
        expect(viewer.get_by_test_id("total-1")).to_have_text("0")
        expect(viewer.get_by_test_id("total-2")).to_have_text("−40")
        watch.check()


def test_kids_takes_a_typed_zero_for_a_player_who_did_not_call(
    served: Served, browser: Browser
) -> None:
    with browsing(served, browser) as (watch, (context,)):
        table, pads = table_and_pads(watch, context, served, "kids", ["Lea", "Tim"])
        play(table, pads)
        pads.get_by_test_id("pad-stop-1").tap()  # Tim calls
        expect(table.get_by_test_id("left-form")).to_contain_text("Tim called, so Tim has 0")
        table.get_by_test_id("left-0").fill("0")
        expect(table.get_by_test_id("left-zero-0")).to_have_text(
            "Lea has 0 cards left too: 0 is written down. "
            "Tim pressed stop first and wins the round."
        )
        enter(table, "left", {})
        expect(table.get_by_test_id("left-form")).to_be_hidden()
        state = table.request.get(f"{served.url}/api/state").json()
        assert state["history"][0]["left"] == {"Lea": 0, "Tim": 0}, state
        assert state["history"][0]["winners"] == ["Tim"]
        # the correction of round 1 says the same of its 0, and takes it
        table.get_by_test_id("amend-1").click()
        expect(table.get_by_test_id("amend-left-0")).to_have_value("0")
        expect(table.get_by_test_id("amend-form").get_by_test_id("left-zero-0")).to_contain_text(
            "Lea has 0 cards left too"
        )
        table.get_by_test_id("amend-left-1").fill("0")
        table.get_by_test_id("amend-submit").click()
        expect(table.get_by_test_id("amend-form")).to_have_count(0)
        expect(table.get_by_test_id("undo")).to_have_text("Undo: the correction of round 1")
        watch.check()
