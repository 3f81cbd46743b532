"""Ligretto Twist, Ligretto Kids and Twin It! in a real browser, against the real
`buzzerbox serve` (a 1 s countdown here, so a game stays short).

Each game on 390×844 phones: the table's phone logs in, makes the game, drives the
virtual pads on /pads (keys and taps) and enters what the table sees; a second phone
(dark, not logged in) follows the scoreboard or the photo finish live.
"""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from .browser_support import (
    Served,
    confirm,
    enter,
    game_over,
    new_game,
    play,
    served_with,
    settle_claim,
    shoot,
    standings_apart,
    targets_big_enough,
    two_phones,
)
from .tv_steps import Scorekeeper

LEAD = re.compile(r"^\+\d+(\.\d+)? (µs|ms|s)$")


served = served_with("games", "countdown_s = 1.0\n")


def test_a_ligretto_twist_game(served: Served, browser: Browser) -> None:
    with two_phones(served, browser) as at:
        table, pads, viewer = at.table, at.pads, at.viewer
        new_game(table, "twist", ["Ann", "Ben"], rounds=2)
        expect(viewer.get_by_test_id("course")).to_have_text("2 rounds · 2 to play")
        expect(pads.get_by_test_id("pad-pile-1-3")).to_be_visible()  # 4 piles with 2 players
        targets_big_enough(pads)
        targets_big_enough(table)
        play(table, pads)

        # Ann lays a card on pile 1 (key Q), then holds pile 2 (W) with her hand
        pads.keyboard.press("q")
        pads.keyboard.down("w")
        expect(pads.get_by_test_id("pad-pile-1-1")).to_contain_class("blocked")
        # Ben reaches pile 2 too: a blocked foul, his card does not count; pile 3 does
        pads.get_by_test_id("pad-pile-1-1").click()
        expect(pads.get_by_test_id("foul-1")).to_have_text("blocked")
        pads.get_by_test_id("pad-pile-1-2").click()
        pads.keyboard.up("w")
        expect(table.get_by_test_id("foul-news")).to_have_text(
            "Foul: Ben reached for pile 2, Ann holds it"
        )
        expect(table.get_by_test_id("live-left")).to_contain_text("Ann38")
        expect(table.get_by_test_id("live-left")).to_contain_text("Ben39 left · 1 foul")
        expect(viewer.get_by_test_id("player-1")).to_contain_text("1 foul")
        # mid-round the big number is the cards left, fewest first
        expect(viewer.get_by_test_id("total-0")).to_have_text("38")
        expect(viewer.get_by_test_id("total-1")).to_have_text("39")
        expect(viewer.get_by_test_id("player-0").locator(".place")).to_have_text("1")
        # the pad test lists every edge, the newest first: Ann's hand leaving pile 2
        edges = pads.get_by_test_id("pad-test-edges").locator("li")
        expect(edges).to_have_count(8)
        expect(edges.first).to_have_attribute("data-pad", "s0-pile1")
        expect(edges.first).to_have_attribute("data-edge", "release")
        targets_big_enough(table)
        shoot(pads, "twist-pads")
        shoot(table, "twist-table-playing")

        # Ben calls "Twist Stopp!": the cards left come from the pads, 0 for the caller
        pads.keyboard.press("2")
        expect(table.get_by_test_id("left-0")).to_have_value("38")
        expect(table.get_by_test_id("left-1")).to_have_value("0")
        enter(table, "left", {0: 41})
        expect(table.get_by_test_id("left-0-error")).to_contain_text(
            "Ann: 41 cards left is impossible: a player has 0 to 40"
        )
        expect(table.get_by_test_id("left-0")).to_have_attribute("aria-invalid", "true")
        shoot(table, "twist-table-refusal")
        enter(table, "left", {0: 38})
        expect(viewer.get_by_test_id("total-0")).to_have_text("−38")
        expect(viewer.get_by_test_id("player-1").locator(".place")).to_have_text("1")

        # round 2, the last: Ann calls; Ben laid nothing, so all 40 are left
        play(table, pads)
        pads.keyboard.press("1")
        expect(table.get_by_test_id("left-1")).to_have_value("40")
        table.get_by_test_id("left-submit").click()
        expect(viewer.get_by_test_id("winners")).to_contain_text("with −38 points")
        game_over(table, viewer, "Ann wins!", "twist")
        photo = at.watch.open(viewer.context, "/finish")
        expect(photo.get_by_test_id("photo-first")).to_contain_text("Ann")
        shoot(photo, "twist-photo")


def test_a_ligretto_kids_game(served: Served, browser: Browser) -> None:
    with two_phones(served, browser) as at:
        table, pads, viewer = at.table, at.pads, at.viewer
        new_game(table, "kids", ["Ann", "Ben", "Cara"])
        expect(viewer.get_by_test_id("course")).to_have_text("3 rounds · 3 to play")

        # round 1: Cara taps her stop pad; the table counts the others' cards
        play(table, pads)
        pads.get_by_test_id("pad-stop-2").tap()
        expect(viewer.get_by_test_id("headline")).to_have_text("Cara called stop")
        expect(table.get_by_test_id("left-2")).to_have_value("0")
        enter(table, "left", {0: 5, 1: 6})
        expect(viewer.get_by_test_id("total-0")).to_have_text("5")
        expect(viewer.get_by_test_id("player-2").locator(".place")).to_have_text("1")

        # round 2 stalls: nobody called, so 0 cards is refused for anyone
        viewer.emulate_media(reduced_motion="reduce")  # the rows move without gliding
        play(table, pads)
        confirm(table, "stall")
        expect(viewer.get_by_test_id("headline")).to_have_text("Round 2 stalled")
        enter(table, "left", {0: 2, 1: 1, 2: 0})
        expect(table.get_by_test_id("left-2-error")).to_contain_text("nobody called in round 2")
        enter(table, "left", {2: 9})
        expect(viewer.get_by_test_id("player-2").locator(".place")).to_have_text("3")
        standings_apart(viewer, moving=False)
        expect(viewer.get_by_test_id("subline")).to_have_text("Round 3 is next")
        expect(viewer.get_by_test_id("headline")).to_have_text("Round 2: Ben won it")

        # the table finishes after two rounds: Ann and Ben share the fewest cards
        confirm(table, "finish")
        expect(viewer.get_by_test_id("winners")).to_contain_text("with 7 cards each")
        expect(viewer.get_by_test_id("player-0")).to_contain_class("winner")
        expect(viewer.get_by_test_id("player-1")).to_contain_class("winner")
        targets_big_enough(viewer)
        game_over(table, viewer, "Ann & Ben win!", "kids")
        photo = at.watch.open(viewer.context, "/finish")
        expect(photo.get_by_test_id("photo")).to_contain_text("No race yet")
        shoot(photo, "kids-photo")


def slap_race(pads: Page, *seats: int) -> None:
    """A lone slap by key on the pads page."""
    for seat in seats:
        pads.keyboard.press(str(seat + 1))


def slaps_together(keeper: Scorekeeper, *seats: int) -> None:
    """Slaps 1 ms apart on the box's clock, their moments given (as the pads page gives
    a key's), the first the lower hand: all within the claim's second however late the
    machine's load lets them arrive."""
    keeper.presses([(seat, "slap") for seat in seats])


def test_a_twin_it_game(served: Served, browser: Browser) -> None:
    with two_phones(served, browser) as at:
        table, pads, viewer = at.table, at.pads, at.viewer
        new_game(table, "twinit", ["Ann", "Ben", "Cara"])
        photo = at.watch.open(viewer.context, "/finish")
        keeper = Scorekeeper(browser.new_context(), served)
        play(table, pads)

        # Ben and Ann slap the same pair: Ben's hand is underneath, Ann's lead is shown
        slaps_together(keeper, 1, 0)
        expect(table.get_by_test_id("claim")).to_contain_text("Ben claims a pair")
        expect(photo.get_by_test_id("photo-first")).to_contain_text("Ben")
        expect(photo.get_by_test_id("press-1")).to_contain_text("Ann")
        expect(photo.get_by_test_id("lead-1")).to_have_text(LEAD)
        shoot(photo, "twinit-photo")
        targets_big_enough(table)
        shoot(table, "twinit-table-claim")
        settle_claim(table, "pair", "Ben")
        expect(viewer.get_by_test_id("total-1")).to_have_text("1")
        slap_race(pads, 1)
        settle_claim(table, "pair", "Ben")

        # Ann sees the pattern a third time: she steals one of Ben's pairs, a take of 3
        slap_race(pads, 0)
        expect(table.get_by_test_id("claim")).to_contain_text("Ann claims a pair")
        table.get_by_test_id("claim-steal").click()
        table.get_by_test_id("victim-1").click()
        expect(table.get_by_test_id("claim-news")).to_have_text("Ann stole Ben's pair")
        expect(viewer.get_by_test_id("player-0").locator(".take-3")).to_have_count(1)
        expect(viewer.get_by_test_id("total-1")).to_have_text("1")

        # Ben slaps on no pair: he loses his last take
        slap_race(pads, 1)
        settle_claim(table, "error", "Ben")
        expect(viewer.get_by_test_id("headline")).to_have_text("Ben was wrong: no pair")
        expect(viewer.get_by_test_id("total-1")).to_have_text("0")

        # a split: the box counts 3 – 2 – 1 on every phone, nobody scores
        slaps_together(keeper, 2, 0)
        settle_claim(table, "split", "Cara")
        expect(viewer.get_by_test_id("countdown")).to_contain_text("3 – 2 – 1 Turn over!")
        expect(viewer.get_by_test_id("countdown")).to_be_hidden()
        expect(viewer.get_by_test_id("total-2")).to_have_text("0")

        # Ann takes four more pairs: five takes win
        for _ in range(4):
            slap_race(pads, 0)
            settle_claim(table, "pair", "Ann")
        expect(viewer.get_by_test_id("winners")).to_contain_text("with 5 takes")
        expect(viewer.get_by_test_id("total-0")).to_have_text("5")
        game_over(table, viewer, "Ann wins!", "twinit")
