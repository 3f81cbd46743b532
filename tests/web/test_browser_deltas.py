"""The live stream's deltas in a real browser: a scoreboard that followed a run of pad
presses as deltas (web/static/api.js applies each to its copy of the state) shows the
same as one opened afterwards, which starts from the full state."""

from __future__ import annotations

from contextlib import closing

from playwright.sync_api import Browser, Page, expect

from . import browser_support as support
from .browser_support import Served, browsing, served_with
from .web_fakes import Admin

#: what the scoreboard shows of the game (not the QR code, the addresses or the live dot)
SHOWN = ["hero", "standings", "photo-compact", "history"]


served = served_with("deltas", "countdown_s = 0.05\n")


def shown(page: Page) -> list[str]:
    return [page.get_by_test_id(t).text_content() or "" for t in SHOWN]


def test_a_scoreboard_fed_deltas_shows_what_a_fresh_one_shows(
    served: Served, browser: Browser
) -> None:
    host_port = served.url.removeprefix("http://")
    with (
        browsing(served, browser) as (watch, (context,)),
        closing(Admin(int(host_port.rsplit(":", 1)[1]), served.pin)) as admin,
    ):
        admin.post("/api/game", {"game": "twist", "players": ["Ann", "Ben", "Cem", "Dan"]})
        following = watch.open(context, "/")
        expect(following.get_by_test_id("player-3")).to_contain_text("Dan")
        admin.post("/api/event", {"type": "round"})
        expect(following.get_by_test_id("countdown")).to_be_hidden(timeout=support.GO_TIMEOUT_MS)
        for i in range(48):  # presses and releases on every seat's piles: a played round
            body = {"seat": i % 4, "pad": "pile", "pile": (i // 4) % 3}
            admin.post("/api/pads/press", body)
            admin.post("/api/pads/release", body)
        last = admin.state()
        assert last["phase"] == "playing"
        assert sum(p["laid"] for p in last["players"]) > 0
        for seat, player in enumerate(last["players"]):  # before any page is opened anew
            # mid-round a Twist seat's big number is its cards left
            expect(following.get_by_test_id(f"total-{seat}")).to_have_text(str(player["left"]))
        fresh = watch.open(context, "/")
        expect(fresh.get_by_test_id("player-3")).to_contain_text("Dan")
        for test_id in SHOWN:  # the follower catches up, then both show the same
            expect(following.get_by_test_id(test_id)).to_have_text(
                fresh.get_by_test_id(test_id).text_content() or ""
            )
        assert shown(following) == shown(fresh)
        watch.check()
