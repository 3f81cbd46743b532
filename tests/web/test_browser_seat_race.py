"""A seat stays taken (issue 38, item 4): guests' phones take seats hundreds of times
while every phone's live updates come late, each after its own random delay, so that
the answer to a phone's own take, and its asking the box, overtake updates that left the
box before them; the phone never forgets a seat it holds. And a phone whose seat the box
holds for it, but which does not know it (the take's answer lost on the way), takes it
back instead of seeing its own seat "taken".

Against the real `buzzerbox serve` on loopback, in Debian's Chromium. Before the fix,
buzzer.js believed any update: one older than the take showed the seat free, the phone
deleted the seat it had just taken, then saw every seat taken (its own too): this test
failed in its first rounds.
"""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Browser, BrowserContext, Route, expect
from playwright.sync_api import Error as PlaywrightError

from .browser_support import (
    Served,
    browsing,
    new_game,
    phone,
    phones_on,
    served_with,
    table_page,
)

served = served_with("seat-race", "")

#: phones at the table, and rounds of each taking a seat: PHONES x ROUNDS seat picks
PHONES = 6
ROUNDS = 34
#: an update waits up to this long (ms) before its page sees it; the stream's order kept
LATE_MS = 250

#: the live stream's updates held back on their way to the page, each for a random time
#: (a seeded draw), in the order they came, as a slow wifi does; the
#: state a page fetches comes late too (so it may come after newer updates). A stream
#: closed meanwhile loses what it held, as a real one would. `__held`: updates on their
#: way; `__forgot`: each time the page dropped its seat.
LATE = """(([seed, late]) => {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  window.__held = 0;
  window.__forgot = [];
  const remove = Storage.prototype.removeItem;
  Storage.prototype.removeItem = function (key) {
    const had = key === "buzzerbox.phone-seat" && this.getItem(key);
    if (had) { window.__forgot.push(had); }
    return remove.call(this, key);
  };
  const Real = window.EventSource;
  window.EventSource = class extends Real {
    addEventListener(type, fn, options) {
      if (type !== "state" && type !== "delta") return super.addEventListener(type, fn, options);
      return super.addEventListener(type, (e) => {
        const copy = new MessageEvent(type, { data: e.data, lastEventId: e.lastEventId });
        window.__held += 1;
        // due a random time after it came, but never before the one that came before it
        const due = performance.now() + rand() * late;
        this.__line = (this.__line || Promise.resolve()).then(() => new Promise((done) => {
          setTimeout(() => {
            window.__held -= 1;
            if (this.readyState !== Real.CLOSED) fn.call(this, copy);
            done();
          }, Math.max(0, due - performance.now()));
        }));
      }, options);
    }
  };
  const realFetch = window.fetch;
  window.fetch = (input, init) => {
    const answer = realFetch(input, init);
    if (!String(input).endsWith("/api/state")) return answer;
    return answer.then((r) => new Promise((done) => setTimeout(() => done(r), rand() * late)));
  };
})"""


def late_phone(browser: Browser, seed: int) -> BrowserContext:
    context = phone(browser)
    context.add_init_script(f"{LATE}([{seed}, {LATE_MS}]);")
    return context


#: the host frees every seat a phone holds, as "Free the seat" on the table view does
FREE_SEATS = """async () => {
  const { csrf } = await (await fetch("/api/session")).json();
  const headers = { "Content-Type": "application/json", "X-CSRF-Token": csrf };
  for (const seat of (await (await fetch("/api/state")).json()).box.phones.taken) {
    const body = JSON.stringify({ seat });
    const r = await fetch("/api/phones/free", { method: "POST", headers, body });
    if (!r.ok) throw new Error(`free ${seat}: ${r.status}`);
  }
}"""
#: every update sent has reached the page, and it shows the buzzer of the seat named
SHOWS = """(name) => window.__held === 0 &&
  document.querySelector("[data-testid=buzzer] .buzzer-who")?.textContent.includes(name)"""
#: the seats the page forgot, and the seat it keeps
KEPT = """() => [window.__forgot, localStorage.getItem("buzzerbox.phone-seat")]"""
#: the picker is shown: what was forgotten until now was let go (the host freed it)
PICKING = """() => {
  if (!document.querySelector("[data-testid=buzzer-seats]")) return false;
  window.__forgot = [];
  return true;
}"""


@pytest.mark.timeout(300)  # 204 seat picks: ~1 min on 2 idle cores, more under load
def test_a_seat_taken_is_never_forgotten_for_an_older_update(
    served: Served, browser: Browser
) -> None:
    makers = [lambda b: phone(b)] + [
        (lambda b, i=i: late_phone(b, 1000 + i)) for i in range(PHONES)
    ]
    with browsing(served, browser, *makers) as (watch, (host, *guests)):
        table = table_page(watch, host, served)
        names = ["Ann", "Ben", "Cem", "Dora", "Eli", "Fay"][:PHONES]
        new_game(table, "ligretto", names)
        phones_on(table, maybe_on=True)
        phones = [watch.open(g, "/buzzer") for g in guests]
        game = table.evaluate("async () => (await (await fetch('/api/state')).json()).box.game_id")
        order = random.Random(38)
        for round_ in range(ROUNDS):
            seats = list(range(PHONES))
            order.shuffle(seats)
            for page, seat in zip(phones, seats, strict=True):
                expect(page.get_by_test_id(f"buzzer-seat-{seat}")).to_be_enabled()
            for page, seat in zip(phones, seats, strict=True):  # all at once, near enough
                page.get_by_test_id(f"buzzer-seat-{seat}").click()
            for page, seat in zip(phones, seats, strict=True):
                # every late update has come, and the phone shows its seat's buzzer
                try:
                    page.wait_for_function(SHOWS, arg=names[seat])
                except PlaywrightError:
                    shown = page.get_by_test_id("buzzer-main").inner_text()
                    raise AssertionError(
                        f"round {round_}: the phone of seat {seat} lost it: {shown!r}, "
                        f"forgot and kept: {page.evaluate(KEPT)}"
                    ) from None
                # and never forgot it on the way: it holds the seat, as the box does
                forgot, kept = page.evaluate(KEPT)
                assert (forgot, kept) == ([], f"{game}:{seat}"), (round_, seat)
            table.evaluate(FREE_SEATS)
            for page in phones:  # freed: the box says so, the phone lets the seat go
                page.wait_for_function(PICKING)
        watch.check()


def test_a_seat_the_box_holds_for_this_phone_is_taken_back(
    served: Served, browser: Browser
) -> None:
    with browsing(served, browser, "light", "light") as (watch, (host, guest)):
        table = table_page(watch, host, served)
        new_game(table, "twinit", ["Ann", "Ben"])
        phones_on(table, maybe_on=True)
        ann = watch.open(guest, "/buzzer")

        # the take reaches the box, its answer is lost on the way back
        def lose_answer(route: Route) -> None:
            request = route.request
            taken = guest.request.post(
                request.url, data=request.post_data, headers={"Content-Type": "application/json"}
            )
            assert taken.ok, taken.text()
            route.abort("connectionreset")

        ann.route("**/api/phones/seat", lose_answer, times=1)
        ann.get_by_test_id("buzzer-seat-0").click()
        expect(ann.get_by_test_id("buzzer")).to_contain_text("Ann")  # asked, and taken back
        expect(table.get_by_test_id("phone-seats")).to_contain_text("Ann")

        # a phone that lost what it knew of its seat (an older buzzer.js did): it asks,
        # and finds its seat, never a picker with its own seat "taken"
        ann.evaluate("() => localStorage.removeItem('buzzerbox.phone-seat')")
        ann.reload()
        expect(ann.get_by_test_id("buzzer")).to_contain_text("Ann")
        expect(ann.get_by_test_id("buzzer-seats")).to_have_count(0)
        watch.check()
