"""Every screen at every size, in every language, with the longest names (issue 41, item 1).

A Ligretto of twelve and a Twin It! of six, with the longest names of each kind the box
takes (Wolfeschlegelsteinhausen, Jean-Luc Picard, a CJK name, an emoji), played through
the box's JSON API as the table view posts it, while every page is open in English,
German, French and Danish, each on a phone and the scoreboard, the photo finish and the
TV view on a TV. At each moment of the game (the lobby, the race called with false
starts, the round scored, the claim open, the game over) every page is checked at 360,
390 and 430 px and on a 1080p and a 720p TV (layout.py): no page scrolls sideways, no
two of its own boxes overlap, no text is cut, no word is broken across lines, no name
is shortened, and nothing on the TV is off the screen.

Each game is played once, with its pages open in all four languages at once (a guest's
buzzer is one phone in four languages: its seat is kept on the phone, myseat.js), and
every page is checked in every language at each moment.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from .browser_support import Served, Watch, served_with, wait_for_go
from .layout import LANGUAGES, LONG_NAMES, TWELVE, Screens, fonts_missing
from .tv_steps import Scorekeeper

served = served_with("layout", "countdown_s = 3.0\n")

SIX = [*LONG_NAMES, "Maximilian-Alexander von", "Chloé"]

PHONE_PATHS = ["/", "/finish", "/table", "/pads", "/buzzer", "/tv", "/stats", "/join"]
TV_PATHS = ["/tv", "/", "/finish"]
#: what changes with each moment of a game (every page is checked at the game's end)
LOBBY = ["/table", "/pads", "/buzzer", "/join", "/stats"]
RACE = ["/", "/finish", "/table", "/pads", "/buzzer", "/tv"]
SCORED = ["/", "/table", "/buzzer"]
OVER = ["/", "/table", "/buzzer", "/tv", "/stats"]
CLAIM_SETTLED = ["/", "/tv"]

#: two games checked on every page at five sizes in four languages take two minutes or so
#: on a busy machine
pytestmark = pytest.mark.timeout(600)


def seq(reply: dict[str, Any]) -> int:
    """The box's log position after a move (each page waits for it): a state's, or a
    press's answer's own."""
    return int(reply["box"]["seq"] if "box" in reply else reply["seq"])


def fine(faults: list[str]) -> None:
    assert faults == [], f"{len(faults)} faults:\n" + "\n".join(faults)


@pytest.fixture(scope="module")
def keeper(served: Served, browser: Browser) -> Iterator[Scorekeeper]:
    context = browser.new_context()
    yield Scorekeeper(context, served)
    context.close()


@pytest.fixture(scope="module")
def watch(served: Served) -> Watch:
    return Watch(served.url)


@pytest.fixture(scope="module")
def pages(served: Served, browser: Browser, watch: Watch) -> Iterator[Screens]:
    """Every page on a phone and TV_PATHS on a TV, in every language, open through both
    games: each follows the box from one game to the next, as a guest's phone does."""
    screens = Screens(browser, served, watch, PHONE_PATHS, TV_PATHS, LANGUAGES)
    yield screens
    screens.close()


@contextmanager
def said_on_failure(served: Served, watch: Watch) -> Iterator[None]:
    """The box's output with a failed check; no page's script failed, nothing was asked
    outside the box."""
    try:
        yield
    except AssertionError:
        print(served.output())
        raise
    watch.check()


def one_phone(buzzers: list[Page]) -> None:
    """The buzzers of the other languages become the first one's phone, its language
    switched: the token and the seat it keeps (myseat.js), then the page again."""
    kept = buzzers[0].evaluate("() => ({ ...localStorage })")
    for page in buzzers[1:]:
        page.evaluate(
            "(kept) => Object.entries(kept).forEach(([k, v]) => localStorage.setItem(k, v))", kept
        )
        page.reload()


def test_the_pages_are_laid_out_in_real_noto_fonts() -> None:
    """The fonts a phone has: without them a CJK name or an emoji is an empty box."""
    assert fonts_missing() == [], "bash tests/check installs fonts-noto-core, -cjk, -color-emoji"


def test_a_ligretto_of_twelve_on_every_screen(
    served: Served, keeper: Scorekeeper, watch: Watch, pages: Screens
) -> None:
    keeper.post("phones", {"on": True})
    at = seq(keeper.game("ligretto", TWELVE, rounds=2))
    with said_on_failure(served, watch):
        ligretto(keeper, pages, at)


def ligretto(keeper: Scorekeeper, pages: Screens, at: int) -> None:
    pads = pages.pages("/pads")[0]
    # the seat picker, then a guest's buzzer: seat 0, Wolfeschlegelsteinhausen's
    fine(pages.check(at, TWELVE, LOBBY))
    buzzers = pages.pages("/buzzer")
    buzzers[0].bring_to_front()
    buzzers[0].get_by_test_id("buzzer-seat-0").click()
    expect(buzzers[0].get_by_test_id("buzzer-title")).to_be_visible()
    one_phone(buzzers)
    for buzzer in buzzers:
        expect(buzzer.get_by_test_id("buzzer")).to_contain_text(TWELVE[0])
    fine(pages.check(at, TWELVE, ["/buzzer"]))

    # a race: two false starts in the count, ten presses after the go
    keeper.event(type="round")
    keeper.press(1, "stop")
    keeper.press(3, "stop")
    pads.bring_to_front()
    wait_for_go(pads)
    for s in (0, 4, 5, 2, 6, 7, 8, 9, 10, 11):
        at = seq(keeper.press(s, "stop"))
    fine(pages.check(at, TWELVE, RACE))

    # scored: "Round 1: best Wolfeschlegelsteinhausen +20", the chart, the rounds
    stacks = {n: 0 if i == 0 else 1 + i % 4 for i, n in enumerate(TWELVE)}
    keeper.event(type="stacks", counts=stacks)
    middle = {n: 20 if i == 0 else i * 3 % 11 for i, n in enumerate(TWELVE)}
    at = seq(keeper.event(type="middle", counts=middle))
    fine(pages.check(at, TWELVE, SCORED))

    # over: the winners, the past games
    at = seq(keeper.event(type="finish"))
    fine(pages.check(at, TWELVE, OVER))


def test_a_twin_it_of_six_on_every_screen(
    served: Served, keeper: Scorekeeper, watch: Watch, pages: Screens
) -> None:
    keeper.game("twinit", SIX, first=0)
    with said_on_failure(served, watch):
        twin_it(keeper, pages)


def twin_it(keeper: Scorekeeper, pages: Screens) -> None:
    pads = pages.pages("/pads")[0]
    keeper.event(type="round")
    pads.bring_to_front()
    wait_for_go(pads)
    # a claim: all six slap within its second (their moments given), the first a long name
    at = seq(keeper.presses((s, "slap") for s in range(6)))
    fine(pages.check(at, SIX, RACE))

    # a steal settled, then the game over
    keeper.event(type="claim", result="pair")
    keeper.presses([(1, "slap"), (0, "slap")])
    at = seq(keeper.event(type="claim", result="steal", victim=SIX[0]))
    fine(pages.check(at, SIX, CLAIM_SETTLED))
    at = seq(keeper.event(type="finish"))
    fine(pages.check(at, SIX, CLAIM_SETTLED))
