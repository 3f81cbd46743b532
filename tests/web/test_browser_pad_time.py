"""The virtual pads say the truth (issue 24, item 5), in Chromium with the pages' real
CSP on a 390×844 phone: /pads asks for the PIN before it shows a pad, and a press is
timed at its key (event.timeStamp, mapped to the box's clock over GET /api/clock as a
guest's buzzer phone is), so two keys pressed in one page task 3 ms apart land exactly
that far apart, not as far apart as their requests (the second leaves only once the
first is answered).
"""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Response, expect

from .browser_support import (
    Served,
    browsing,
    fits,
    log_in,
    new_game,
    served_with,
    start_round,
    table_page,
    wait_for_go,
)

#: two stop keys in one page task, 3 ms or more apart by the page's own clock, then let
#: go; the keys' timeStamps (ms)
TWO_KEYS = """() => {
  const fire = (type, key) => {
    const e = new KeyboardEvent(type, { key, bubbles: true });
    document.dispatchEvent(e);
    return e.timeStamp;
  };
  const first = fire("keydown", "1");
  while (performance.now() - first < 3) {}
  const second = fire("keydown", "2");
  fire("keyup", "1");
  fire("keyup", "2");
  return [first, second];
}"""


served = served_with("padtime", "countdown_s = 1.0\n")


def test_pads_ask_for_the_pin_first_and_time_each_key(served: Served, browser: Browser) -> None:
    with browsing(served, browser, "light", "light") as (watch, (host, guest)):
        table = table_page(watch, host, served)
        new_game(table, "ligretto", ["Ann", "Ben"])

        # a phone that is not the table's: the PIN first, no pad that looks ready
        pads = watch.page(guest)
        with pads.expect_response(lambda r: "/api/clock?n=8" in r.url):  # the clock matched
            pads.goto(f"{served.url}/pads")
        expect(pads.get_by_test_id("pin-input")).to_be_visible()
        expect(pads.get_by_test_id("pin-why")).to_contain_text("The virtual pads are the table's")
        expect(pads.get_by_test_id("pads-phase")).to_have_attribute("data-phase", "lobby")
        expect(pads.get_by_test_id("pads")).to_be_hidden()
        expect(pads.get_by_test_id("pad-stop-0")).to_have_count(0)
        pads.keyboard.press("1")  # a key does nothing either: no false start for Ann
        fits(pads, "pads-pin")
        log_in(pads, served.pin)
        expect(pads.get_by_test_id("pad-stop-0")).to_be_visible()
        expect(pads.get_by_test_id("pads-timing")).to_have_text(
            "Presses here are timed at the key or the tap, to the ms (a wired pad: the µs)."
        )
        assert table.request.get(f"{served.url}/api/state").json()["false_starts"] == []

        start_round(table, pads)
        wait_for_go(pads)
        answers: list[Response] = []
        pads.on("response", lambda r: answers.append(r) if "/api/pads/press" in r.url else None)
        with pads.expect_response(lambda r: r in answers and len(answers) == 2):
            first_key, second_key = pads.evaluate(TWO_KEYS)
        late = re.compile(r"late \+\d+\.\d{3} ms")
        expect(pads.get_by_test_id("seat-card-1")).to_contain_text(late)
        expect(pads.get_by_test_id("first-0")).to_be_visible()
        state = table.request.get(f"{served.url}/api/state").json()
        assert state["caller"] == "Ann", state
        lead_us = state["late"][0]["lead_us"]
        keys_us = round((second_key - first_key) * 1000)
        # the keys' own gap (both mapped with the same offset), not the requests' (Ben's
        # left once Ann's was answered): the table's pads are not clamped to their
        # round trips, so a request slowed on this busy machine moves nothing
        assert [(a.request.post_data_json or {}).get("seat") for a in answers] == [0, 1]
        timed = [a.json()["press_time"] for a in answers]
        assert [t["from"] for t in timed] == ["touch", "touch"] and "clamped_us" not in str(timed)
        assert keys_us >= 3_000 and abs(lead_us - keys_us) <= 2, (lead_us, keys_us, timed)
        timing = pads.get_by_test_id("pads-timing")
        expect(timing).to_have_attribute("data-from", "touch")
        expect(timing).to_contain_text("Timed at the key or the tap, to the ms")

        photo = watch.open(host, "/finish")
        expect(photo.get_by_test_id("lead-1")).to_have_text(f"+{lead_us / 1000:.3f} ms")
        expect(photo.get_by_test_id("phone-timing")).to_have_text(
            "Virtual pads are timed to the ms, at the key or the tap."
        )
        fits(photo, "photo-virtual-timing")
        watch.check()
