"""The Stats tab in a real browser (Debian's Chromium, the pages' real CSP), against the
real `buzzerbox serve`, on a 390×844 phone and a 1920×1080 TV: players across the
finished games on a tab of their own (never above the standings mid-game), and the past
games, each to view, download and play again."""

from __future__ import annotations

import json
from contextlib import closing

from playwright.sync_api import Browser, Page, expect

from .axe_audit import audit
from .browser_support import (
    FITS,
    Served,
    browsing,
    confirm,
    enter,
    fits,
    new_game,
    play,
    table_and_pads,
    targets_big_enough,
    tv_screen,
)
from .web_fakes import Admin


def game_ids(page: Page) -> list[int]:
    """The ids of the games in the log, newest first (as the page's own fetch sees them)."""
    return [g["id"] for g in page.evaluate("() => fetch('/api/games').then((r) => r.json())")]


def kids_won_by_ann_then_a_rematch_begun(table: Page, pads: Page) -> None:
    """A Kids game Ann wins (she calls stop, Ben has 4 cards left), then its rematch
    with a round going on: a game without its end."""
    play(table, pads)
    pads.get_by_test_id("pad-stop-0").tap()
    enter(table, "left", {1: 4})
    confirm(table, "finish")
    expect(table.get_by_test_id("table-winners")).to_contain_text("Ann wins!")
    table.get_by_test_id("rematch").click()
    expect(table.get_by_test_id("phase")).to_have_attribute("data-phase", "lobby")
    play(table, pads)


def test_stats_have_their_own_tab_never_above_the_standings(
    served: Served, browser: Browser
) -> None:
    with browsing(served, browser, "light", "dark") as (watch, (context, viewer_context)):
        table, pads = table_and_pads(watch, context, served, "kids", ["Ann", "Ben"])
        kids_won_by_ann_then_a_rematch_begun(table, pads)
        viewer = watch.page(viewer_context)
        viewer.goto(served.url)
        for size, viewport in FITS.items():
            viewer.set_viewport_size(viewport)
            # mid-game the scoreboard is the game's: its standings, no stats of other games
            expect(viewer.get_by_test_id("headline")).to_have_text("Round 1 is on")
            expect(viewer.get_by_test_id("standings")).to_be_visible()
            assert viewer.get_by_test_id("stats").count() == 0, size
            assert "across games" not in viewer.inner_text("main"), size
            tab = viewer.get_by_test_id("tab-stats")
            expect(tab).to_be_in_viewport()  # the top bar's tab, in sight on a phone too
            box = tab.bounding_box()
            assert box is not None and box["x"] + box["width"] <= viewport["width"], size
        viewer.set_viewport_size(FITS["phone"])
        viewer.get_by_test_id("tab-stats").click()
        expect(viewer).to_have_url(f"{served.url}/stats")
        ann, ben = viewer.get_by_test_id("stats-0"), viewer.get_by_test_id("stats-1")
        # the finished game only: the rematch going on counts for nobody yet
        expect(ann.get_by_test_id("stats-wins")).to_have_text("1 of 1 game won")
        expect(ben.get_by_test_id("stats-wins")).to_have_text("0 of 1 game won")
        expect(ann.get_by_test_id("stats-game-kids")).to_contain_text(
            "Ligretto Kids 1 of 1 won · best round: 0 cards left (round 1"
        )
        expect(ben.get_by_test_id("stats-game-kids")).to_contain_text("best round: 4 cards left")
        expect(ann.get_by_test_id("stats-streak")).to_have_text("Longest winning streak: 1 game")
        expect(ann.get_by_test_id("stats-quickest")).to_contain_text(" s after the go")
        expect(ben.get_by_test_id("stats-quickest")).to_have_count(0)  # he called no stop
        expect(viewer.get_by_test_id("stats-note")).to_contain_text("Finished games only")
        text = viewer.inner_text("main")
        assert "reaction" not in text.lower() and "µs" not in text
        fits(viewer, "stats")
        targets_big_enough(viewer)
        # the rematch ends: now it counts, and the page says so without a reload
        confirm(table, "finish")
        expect(ann.get_by_test_id("stats-wins")).to_contain_text("of 2 games won")
        watch.check()


def test_past_games_to_view_download_and_play_again(served: Served, browser: Browser) -> None:
    with browsing(served, browser, "light", tv_screen) as (watch, (context, viewer_context)):
        table, pads = table_and_pads(watch, context, served, "kids", ["Ann", "Ben"])
        kids_won_by_ann_then_a_rematch_begun(table, pads)
        new_game(table, "twist", ["Cem", "Dan", "Eve"])  # and that rematch is left
        viewer = watch.open(viewer_context, "/stats")  # a TV-sized screen, not logged in
        newest, left, won = game_ids(viewer)[:3]
        expect(viewer.get_by_test_id(f"past-winner-{newest}")).to_have_text("being played now")
        expect(viewer.get_by_test_id(f"past-winner-{left}")).to_have_text(
            "not finished: it counts for nobody"
        )
        expect(viewer.get_by_test_id(f"past-winner-{won}")).to_have_text("Ann won")
        row = viewer.get_by_test_id(f"past-{won}")
        expect(row).to_contain_text("Ligretto Kids · Ann and Ben")
        # a game without its end has its log to download, no score sheet
        expect(viewer.get_by_test_id(f"past-log-{left}")).to_be_visible()
        expect(viewer.get_by_test_id(f"past-csv-{left}")).to_have_count(0)
        # view: its places and its rounds
        viewer.get_by_test_id(f"past-view-{won}").click()
        panel = viewer.get_by_test_id(f"past-panel-{won}")
        expect(panel.get_by_test_id("past-place-0")).to_contain_text("1Ann0")
        expect(panel.get_by_test_id("past-place-1")).to_contain_text("2Ben4")
        expect(panel.locator("table.history tbody tr")).to_have_count(1)
        # download: the score sheet and the log of that game, not of the current one
        with viewer.expect_download() as sheet:
            viewer.get_by_test_id(f"past-csv-{won}").click()
        assert sheet.value.suggested_filename == f"buzzerbox-game-{won}.csv"
        csv = sheet.value.path().read_text(encoding="utf-8")
        assert "Ann" in csv and "Cem" not in csv
        with viewer.expect_download() as log:
            viewer.get_by_test_id(f"past-log-{won}").click()
        first = json.loads(log.value.path().read_text(encoding="utf-8").splitlines()[0])
        assert first["game"] == "kids" and first["players"] == ["Ann", "Ben"]
        # no rematch for a viewer: the scorekeeper's, who is logged in
        expect(viewer.get_by_test_id(f"past-rematch-{won}")).to_have_count(0)
        fits(viewer, "past-games")
        # axe-core, light and dark, phone and TV, a past game open (the real CSP held)
        assert audit(viewer) == []
        stats = watch.page(context)
        stats.goto(f"{served.url}/stats")
        confirm(stats, f"past-rematch-{won}")
        expect(stats).to_have_url(f"{served.url}/table")
        expect(stats.get_by_test_id("phase")).to_have_attribute("data-phase", "lobby")
        state = stats.evaluate("() => fetch('/api/state').then((r) => r.json())")
        assert state["game"] == "kids" and [p["name"] for p in state["players"]] == ["Ann", "Ben"]
        # and the viewer's list has the new game on top, being played
        expect(viewer.get_by_test_id(f"past-winner-{state['box']['game_id']}")).to_have_text(
            "being played now"
        )
        watch.check()


def test_older_games_come_a_page_at_a_time(served: Served, browser: Browser) -> None:
    """A box's log keeps every game: the list shows the newest 20, and more on a tap."""
    with closing(Admin(int(served.url.rsplit(":", 1)[1]), served.pin)) as admin:
        for i in range(22):
            admin.post("/api/game", {"game": "kids", "players": ["Ann", f"Guest {i}"]})
    with browsing(served, browser) as (watch, (context,)):
        page = watch.open(context, "/stats")
        total = len(game_ids(page))
        assert total >= 22
        # games left before their first round are hidden until asked for (issue 41)
        page.get_by_test_id("past-unplayed").click()
        rows = page.locator("li.past-game")
        expect(rows).to_have_count(20)
        expect(rows.first).to_contain_text("Ann and Guest 21")
        more = page.get_by_test_id("past-more")
        expect(more).to_have_text(f"Show {min(total - 20, 20)} older games")
        more.click()
        expect(rows).to_have_count(min(total, 40))
        watch.check()
