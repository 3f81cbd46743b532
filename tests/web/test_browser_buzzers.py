"""Phones as buzzers (issue 14, point 3), on a host's phone and two guests' phones.

The host switches phones as pads on at the table view; each guest picks a seat once
(the phone keeps it over a reload; a taken seat cannot be picked), and the phone is
that seat's big stop button. The host frees a seat; a phone with no seat is refused.
"""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from .browser_support import (
    Served,
    browsing,
    fits,
    new_game,
    phones_on,
    table_page,
    targets_big_enough,
    wait_for_go,
)


def test_guests_phones_are_their_seats_buzzers(served: Served, browser: Browser) -> None:
    with browsing(served, browser, "light", "light", "dark") as (
        watch,
        (host_phone, ann_phone, ben_phone),
    ):
        table = table_page(watch, host_phone, served)
        new_game(table, "ligretto", ["Ann", "Ben"])

        # phones are no pads until the host says so
        ben = watch.open(ben_phone, "/buzzer")
        expect(ben.get_by_test_id("buzzer-main")).to_contain_text("Phones are no pads now")
        ben.goto(f"{served.url}/")  # nor does the scoreboard offer to play
        expect(ben.get_by_test_id("standings")).to_be_visible()
        expect(ben.get_by_test_id("play-card")).to_be_hidden()
        phones_on(table)

        # Ben finds his buzzer from the scoreboard (where a code leads) and picks his seat
        ben.goto(f"{served.url}/")
        ben.get_by_test_id("play-on-phone").click()
        ben.get_by_test_id("buzzer-seat-1").click()
        expect(ben.get_by_test_id("buzzer")).to_contain_text("Ben")
        ben.reload()  # the phone keeps its seat
        expect(ben.get_by_test_id("buzzer-stop")).to_be_visible()
        targets_big_enough(ben)
        fits(ben, "buzzer-ben")

        # Ann cannot take Ben's seat: hers is free
        ann = watch.open(ann_phone, "/buzzer")
        expect(ann.get_by_test_id("buzzer-seat-1")).to_be_disabled()
        ann.get_by_test_id("buzzer-seat-0").click()
        expect(ann.get_by_test_id("buzzer")).to_contain_text("Ann")
        expect(table.get_by_test_id("phone-seats")).to_contain_text("Ann")

        # a round: Ben's phone calls stop
        table.get_by_test_id("start-round").click()
        wait_for_go(ben, "buzzer-phase")
        ben.get_by_test_id("buzzer-stop").tap()
        expect(table.get_by_test_id("phase")).to_contain_text("Ben called")
        photo = watch.open(ann_phone, "/finish")
        expect(photo.get_by_test_id("photo-first")).to_contain_text("Ben")
        expect(photo.get_by_test_id("phone-timing")).to_contain_text("timed to the ms")

        # the host frees Ben's seat: his phone asks for a seat again
        table.get_by_test_id("phone-free-1").click()
        expect(ben.get_by_test_id("buzzer-seat-1")).to_be_enabled()

        # a phone with no seat, or no token, is refused in words
        answer = ben.request.post(
            f"{served.url}/api/phones/press", data={"token": "t" * 20, "pad": "stop"}
        )
        assert answer.status == 409
        assert "this phone has no seat" in answer.json()["error"]
        answer = ben.request.post(f"{served.url}/api/phones/press", data={"pad": "stop"})
        assert answer.status == 400
        assert "token" in answer.json()["error"]
        watch.check()
