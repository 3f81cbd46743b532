"""The TV's winners screen opened on a phone (issue 41): a guest who opens /tv on their
phone at the end of a Ligretto of twelve with the longest names sees every player's
place, name and total, at 360, 390 and 430 px, in all four languages: nothing scrolls
sideways, overlaps, is cut or broken mid-word (layout.js, as test_browser_layout checks
every other screen)."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from .browser_support import Served, Watch, served_with
from .layout import LANGUAGES, PHONES, TWELVE, faults
from .tv_steps import Scorekeeper

served = served_with("winners-phone", "countdown_s = 1.0\n")


def test_the_winners_of_twelve_read_on_a_phone_in_every_language(
    served: Served, browser: Browser
) -> None:
    keeper_context = browser.new_context()
    keeper = Scorekeeper(keeper_context, served)
    keeper.game("ligretto", TWELVE, rounds=1)
    keeper.event(type="round")
    watch = Watch(served.url)
    found: list[str] = []
    try:
        state = keeper.request.get(f"{served.url}/api/state").json()
        while state["phase"] != "playing":  # the 1 s count: each answer takes its time
            state = keeper.request.get(f"{served.url}/api/state").json()
        keeper.press(0, "stop")
        keeper.event(
            type="stacks", counts={n: 0 if i == 0 else 1 + i % 4 for i, n in enumerate(TWELVE)}
        )
        keeper.event(
            type="middle", counts={n: 20 if i == 0 else i % 9 for i, n in enumerate(TWELVE)}
        )
        assert keeper.request.get(f"{served.url}/api/state").json()["phase"] == "finished"
        for lang in LANGUAGES:
            context = browser.new_context(
                viewport=PHONES["390 px phone"], is_mobile=True, has_touch=True
            )
            context.add_cookies([{"name": "lang", "value": lang, "url": served.url}])
            page = watch.open(context, "/tv")
            expect(page.get_by_test_id("tv-finale")).to_be_visible()
            for name, size in PHONES.items():
                page.set_viewport_size(size)
                found += [
                    f"{lang} /tv on a {name}: {f}"
                    for f in faults(page, size, names=TWELVE, screen=False)
                ]
            context.close()
    finally:
        keeper_context.close()
    assert found == [], f"{len(found)} faults:\n" + "\n".join(found)
    watch.check()
