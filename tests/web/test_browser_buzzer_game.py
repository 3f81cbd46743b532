"""A guest's buzzer phone shows its player the game (issue 24, item 1), in all four
games, on 390×844 phones against the real `buzzerbox serve` (a 3 s countdown: time for
a false start): a false start said at once with how early, "You were first!", "2nd —
… ms behind <name>", locked until the table settles, the round's and the game's
result, with a vibration (navigator.vibrate, recorded here) where the phone has one.
And a rematch keeps every guest's seat (item 2): no phone picks again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from .browser_support import (
    Served,
    Watch,
    browsing,
    confirm,
    enter,
    fits,
    in_view,
    new_game,
    phones_on,
    served_with,
    settle_claim,
    table_page,
    wait_for_go,
)

#: navigator.vibrate, recorded: the patterns the page asked for; and every title the
#: buzzer showed, however briefly (a false start said before the go came)
VIBRATE = """window.__vibes = [];
navigator.vibrate = (pattern) => { window.__vibes.push(pattern); return true; };
window.__titles = [];
new MutationObserver(() => {
  const text = document.querySelector("[data-testid=buzzer-title]")?.textContent;
  if (text && window.__titles.at(-1) !== text) window.__titles.push(text);
}).observe(document, { childList: true, subtree: true });"""
BEHIND = re.compile(r"^2nd — \d+\.\d+ (ms|s) behind Ann$")
EARLY = re.compile(r"False start: \d+(\.\d+)? (ms|s) too early\. It does not count\.")


served = served_with("buzzer-game", "countdown_s = 3.0\n")


@dataclass
class Party:
    """The host's table view and two guests' buzzer phones: Ann at seat 0, Ben at 1."""

    table: Page
    ann: Page
    ben: Page
    watch: Watch


def guest(watch: Watch, context: BrowserContext, served: Served, seat: int) -> Page:
    page = watch.page(context)
    page.add_init_script(VIBRATE)
    page.goto(f"{served.url}/buzzer")
    page.get_by_test_id(f"buzzer-seat-{seat}").click()
    expect(page.get_by_test_id("buzzer-title")).to_be_visible()
    # sound and vibration are one choice, off until the guest turns it on
    page.get_by_test_id("buzzer-sound").click()
    expect(page.get_by_test_id("buzzer-sound")).to_have_attribute("aria-pressed", "true")
    return page


@contextmanager
def party(
    served: Served, browser: Browser, game: str, names: list[str], **kw: int
) -> Iterator[Party]:
    with browsing(served, browser, "light", "light", "dark") as (watch, (host, one, two)):
        table = table_page(watch, host, served)
        new_game(table, game, names, **kw)
        phones_on(table, maybe_on=True)
        ann = guest(watch, one, served, 0)
        ben = guest(watch, two, served, 1)
        yield Party(table, ann, ben, watch)
        watch.check()


def title(page: Page) -> str:
    return page.get_by_test_id("buzzer-title").inner_text()


Text = str | re.Pattern[str]


def says(page: Page, text: Text, detail: Text | None = None) -> None:
    """The buzzer's status says `text` (and `detail`), in view on the phone: above the
    fold of a 390×844 screen, never below it."""
    expect(page.get_by_test_id("buzzer-title")).to_have_text(text)
    if detail is not None:
        expect(page.get_by_test_id("buzzer-detail")).to_contain_text(detail)
    in_view(page, "buzzer-status")


def start(table: Page, *guests: Page) -> None:
    table.get_by_test_id("start-round").click()
    for page in guests:
        expect(page.get_by_test_id("buzzer-phase")).to_have_attribute("data-phase", "countdown")


def go(*guests: Page) -> None:
    for page in guests:
        wait_for_go(page, "buzzer-phase")


def vibrations(page: Page) -> list[object]:
    result: list[object] = page.evaluate("window.__vibes")
    return result


def test_a_ligretto_round_on_the_guests_phones(served: Served, browser: Browser) -> None:
    with party(served, browser, "ligretto", ["Ann", "Ben", "Cem"]) as at:
        says(at.ann, "Waiting for the first round")
        start(at.table, at.ann, at.ben)
        # Ben jumps the gun: his phone says so at once, with how early; then the box's
        at.ben.get_by_test_id("buzzer-stop").tap()
        says(at.ben, re.compile(r"^(False start!|Go!)$"), EARLY)
        assert "False start!" in at.ben.evaluate("window.__titles")
        assert 400 in vibrations(at.ben)  # a long buzz
        go(at.ann, at.ben)
        assert "Get ready…" in at.ann.evaluate("window.__titles")
        says(at.ben, "Go!", EARLY)  # still said after the go: it did not count
        says(at.ann, "Go!", "Press Stop! the moment your Ligretto stack is empty.")

        # Ann calls stop first; Ben presses after her
        at.ann.get_by_test_id("buzzer-stop").tap()
        says(at.ann, "You were first!", "You called — the table counts the cards.")
        assert [60, 40, 60, 40, 200] in vibrations(at.ann)  # the winner's lamp
        expect(at.ann.get_by_test_id("buzzer-stop")).to_contain_class("locked")
        says(at.ben, "Ann called — count your cards")
        at.ben.get_by_test_id("buzzer-stop").tap()
        says(at.ben, BEHIND, "Ann called — count your cards")
        expect(at.ben.get_by_test_id("buzzer-stop")).to_contain_class("locked")
        says(at.ann, "You were first!", re.compile(r"Ben was \d+\.\d+ (ms|s) behind\."))
        fits(at.ben, "buzzer-second")

        # the table counts: the round's result, then the game's
        enter(at.table, "stacks", {1: 3, 2: 5})
        enter(at.table, "middle", {0: 12, 1: 4, 2: 2})
        says(at.ann, "You won round 1!", "12 points this round, 12 in all.")
        says(at.ben, "Ann won round 1", "−2 points this round, −2 in all.")
        confirm(at.table, "finish")
        # the last screen: the total with its unit, and the place
        says(at.ann, "You win!", "Your total: 12 points, place 1 of 3")
        says(at.ben, "Ann wins!", "Your total: −2 points, place 2 of 3")
        assert [60, 40, 60, 40, 200] in vibrations(at.ann)
        fits(at.ann, "buzzer-win")


@pytest.mark.parametrize("game", ["twist", "kids"])
def test_a_twist_or_kids_round_on_the_guests_phones(
    served: Served, browser: Browser, game: str
) -> None:
    with party(served, browser, game, ["Ann", "Ben"], rounds=2) as at:
        start(at.table, at.ann, at.ben)
        go(at.ann, at.ben)
        says(at.ann, "Go!", "Press Stop! the moment your last card is laid.")
        at.ann.get_by_test_id("buzzer-stop").tap()
        says(at.ann, "You were first!")
        says(at.ben, "Ann called — count your cards")
        at.ben.get_by_test_id("buzzer-stop").tap()
        says(at.ben, BEHIND)
        enter(at.table, "left", {1: 6})
        says(at.ann, "You won round 1!", "Waiting for the next round.")
        says(at.ben, "Ann won round 1", "Waiting for the next round.")
        confirm(at.table, "finish")
        says(at.ann, "You win!")
        says(at.ben, "Ann wins!")


def test_a_twin_it_game_on_the_guests_phones(served: Served, browser: Browser) -> None:
    with party(served, browser, "twinit", ["Ann", "Ben", "Cem"]) as at:
        start(at.table, at.ann, at.ben)
        at.ann.get_by_test_id("buzzer-slap").tap()  # before the go
        says(at.ann, re.compile(r"^(False start!|Go! Slap on a pair\.)$"), EARLY)
        assert "False start!" in at.ann.evaluate("window.__titles")
        go(at.ann, at.ben)
        says(at.ben, "Go! Slap on a pair.", "You have 0 takes of 5.")

        # Ann slaps first, Ben just after her (within the claim's second): both locked
        # until the table settles Ann's claim
        at.ann.get_by_test_id("buzzer-slap").tap()
        at.ben.get_by_test_id("buzzer-slap").tap()
        says(at.ann, "You were first!", "Locked until the table settles your claim.")
        expect(at.ann.get_by_test_id("buzzer-slap")).to_contain_class("locked")
        says(at.ben, BEHIND, "Locked until the table settles Ann's claim.")
        expect(at.ben.get_by_test_id("buzzer-slap")).to_contain_class("locked")
        settle_claim(at.table, "pair", "Ann")
        says(at.ann, "You take the pair!", "You have 1 take of 5.")
        says(at.ben, "Ann takes the pair", "You have 0 takes of 5.")
        expect(at.ben.get_by_test_id("buzzer-slap")).not_to_contain_class("locked")

        # Ben slaps on no pair
        at.ben.get_by_test_id("buzzer-slap").tap()
        says(at.ben, "You were first!")
        says(at.ann, "Ben slapped first", "The table settles the claim.")
        settle_claim(at.table, "error", "Ben")
        # Ben had no take: his error costs him nothing, and his phone says so
        says(at.ben, "No pair: you had no take to lose")
        says(at.ann, "Ben's error: no take to lose")

        # Ann takes four more: five takes win (today's "SLAP!" only, before issue 24)
        for _ in range(4):
            at.ann.get_by_test_id("buzzer-slap").tap()
            says(at.ann, "You were first!")
            settle_claim(at.table, "pair", "Ann")
        says(at.ann, "You win!", "Your total: 5 takes, place 1 of 3")
        says(at.ben, "Ann wins!", "Your total: 0 takes, place =2 of 3")
        fits(at.ann, "buzzer-twinit-win")


def test_a_rematch_keeps_the_guests_seats(served: Served, browser: Browser) -> None:
    with party(served, browser, "kids", ["Ann", "Ben"], rounds=1) as at:
        confirm(at.table, "finish")
        says(at.ann, re.compile(r"win|over", re.I))
        at.table.get_by_test_id("rematch").click()
        expect(at.table.get_by_test_id("phase")).to_have_attribute("data-phase", "lobby")
        expect(at.table.get_by_test_id("phone-seats")).to_contain_text("Ann")
        expect(at.table.get_by_test_id("phone-seats")).to_contain_text("Ben")
        # each guest's phone is still their buzzer: no seat to pick again
        for page, name in ((at.ann, "Ann"), (at.ben, "Ben")):
            says(page, "Waiting for the first round")
            expect(page.get_by_test_id("buzzer")).to_contain_text(name)
            expect(page.get_by_test_id("buzzer-seats")).to_have_count(0)
        at.ann.reload()  # and over a reload
        says(at.ann, "Waiting for the first round")
        start(at.table, at.ann, at.ben)
        go(at.ann, at.ben)
        at.ben.get_by_test_id("buzzer-stop").tap()
        says(at.ben, "You were first!")
        expect(at.table.get_by_test_id("phase")).to_contain_text("Ben called")
