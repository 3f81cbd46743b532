"""A guest's phone that drops off the wifi (issue 24, item 8), on 390×844 phones
against the real `buzzerbox serve` (a seat's phone is offline after 4 s unheard here:
the buzzer page says it is there every 3 s).

A press while the phone is offline is refused on the phone at once, in words above the
button (never a red line below the fold); the buzzer says it is reconnecting; the
host's table view shows whose phone is offline, and all of it goes once the phone is
back. Twice: the phone's own network off (Chromium's offline mode: navigator.onLine
false, every request fails), and the box not answering the phone's requests.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, Route, expect

from .browser_support import (
    Served,
    Watch,
    browsing,
    fits,
    in_view,
    new_game,
    phones_on,
    served_with,
    table_page,
    wait_for_go,
)

#: the box's presence watch sweeps every second: offline is shown within this
OFFLINE_MS = 8_000


served = served_with("buzzer-offline", "countdown_s = 1.0\nphone_offline_s = 4.0\n")


def state(served: Served) -> dict[str, Any]:
    with urllib.request.urlopen(f"{served.url}/api/state", timeout=10) as answer:
        result: dict[str, Any] = json.load(answer)
    return result


def ready(
    served: Served, watch: Watch, host: BrowserContext, guest: BrowserContext
) -> tuple[Page, Page]:
    """The table view on the host's phone with a new game of two, phones as pads, Ann's
    phone (`guest`) at seat 0, a round at its go: the table view and Ann's buzzer."""
    table = table_page(watch, host, served)
    new_game(table, "ligretto", ["Ann", "Ben"])
    phones_on(table, maybe_on=True)
    ann = watch.page(guest)
    ann.goto(f"{served.url}/buzzer")
    ann.get_by_test_id("buzzer-seat-0").click()
    expect(ann.get_by_test_id("buzzer-title")).to_have_text("Waiting for the first round")
    table.get_by_test_id("start-round").click()
    wait_for_go(ann, "buzzer-phase")
    expect(ann.get_by_test_id("buzzer-link")).to_be_hidden()
    return table, ann


def back(table: Page, ann: Page) -> None:
    """The phone is back: no note, no refusal, the table shows its seat online, and a
    press counts."""
    expect(ann.get_by_test_id("buzzer-link")).to_be_hidden(timeout=OFFLINE_MS)
    expect(ann.get_by_test_id("buzzer-refused")).to_be_hidden(timeout=OFFLINE_MS)
    expect(table.get_by_test_id("phone-offline-0")).to_have_count(0, timeout=OFFLINE_MS)
    ann.get_by_test_id("buzzer-stop").tap()
    expect(ann.get_by_test_id("buzzer-title")).to_have_text("You were first!")
    expect(table.get_by_test_id("phase")).to_contain_text("Ann called")


def test_a_phone_off_the_wifi_is_told_at_once_and_the_host_sees_it(
    served: Served, browser: Browser
) -> None:
    with browsing(served, browser, "light", "dark") as (watch, (host, guest)):
        table, ann = ready(served, watch, host, guest)

        guest.set_offline(True)  # Ann's phone drops off the wifi
        in_view(ann, "buzzer-link")
        expect(ann.get_by_test_id("buzzer-link")).to_have_text(
            "This phone is off the wifi: reconnecting… Presses are not sent until it is back."
        )
        expect(ann.get_by_test_id("buzzer")).to_contain_class("offline")
        ann.get_by_test_id("buzzer-stop").tap()
        in_view(ann, "buzzer-refused")  # at once: no request to wait for
        expect(ann.get_by_test_id("buzzer-refused")).to_have_text(
            "Not sent: this phone is not connected to the box. "
            "Wait until it is back, then press again."
        )
        assert state(served)["race"] == []  # nothing reached the box
        fits(ann, "buzzer-offline")

        # the host's table view shows Ann's seat's phone offline (the box stopped hearing it)
        expect(table.get_by_test_id("phone-offline-0")).to_have_text(
            "its phone is offline", timeout=OFFLINE_MS
        )
        assert state(served)["box"]["phones"]["offline"] == [0]

        guest.set_offline(False)  # back on the wifi
        back(table, ann)
        watch.check()


def test_a_press_the_box_does_not_answer_is_said_not_to_count(
    served: Served, browser: Browser
) -> None:
    with browsing(served, browser, "light", "light") as (watch, (host, guest)):
        table, ann = ready(served, watch, host, guest)

        # the phone's wifi is up, but nothing it sends reaches the box any more
        lost: list[str] = []

        def drop(route: Route) -> None:
            lost.append(route.request.url)
            route.abort("connectionrefused")

        ann.route("**/api/phones/press", drop)
        ann.get_by_test_id("buzzer-stop").tap()
        in_view(ann, "buzzer-refused")
        expect(ann.get_by_test_id("buzzer-refused")).to_have_text(
            "Not counted: the press did not reach the box. Wait until it is back, then press again."
        )
        assert [url for url in lost if url.endswith("/api/phones/press")]
        # nothing at all reaches the box now: the host sees the seat offline, and once the
        # phone's "here" has failed, a press is not even sent
        with ann.expect_event(
            "requestfailed", lambda r: r.url.endswith("/api/phones/here"), timeout=OFFLINE_MS
        ):
            ann.route("**/api/phones/**", drop)
        expect(table.get_by_test_id("phone-offline-0")).to_be_visible(timeout=OFFLINE_MS)
        in_view(ann, "buzzer-link")
        expect(ann.get_by_test_id("buzzer-link")).to_have_text(
            "Reconnecting to the box… Presses are not sent until it answers."
        )
        sent = len(lost)
        ann.get_by_test_id("buzzer-stop").tap()
        expect(ann.get_by_test_id("buzzer-refused")).to_have_text(
            "Not sent: this phone is not connected to the box. "
            "Wait until it is back, then press again."
        )
        assert not [url for url in lost[sent:] if url.endswith("/api/phones/press")]
        assert state(served)["race"] == []

        ann.unroute("**/api/phones/press")
        ann.unroute("**/api/phones/**")  # the box answers again
        back(table, ann)
        watch.check()
