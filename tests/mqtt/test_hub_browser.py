"""The hub's page in a real browser (Debian's Chromium, Playwright) against a real
`buzzerbox hub` and mosquitto: two boxes (processes of their own), a game played to
its finish on one, the other killed (kill -9: its last will) -> "offline", and the
broker stopped -> the page says why; the admin removes the offline table."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from web import browser_support as support  # type: ignore[import-not-found]

from .mqtt_fakes import Mosquitto, free_port
from .test_board import state
from .test_crash import BoxProcess
from .test_untrusted import Hub, publish

# the browser fixtures of the web tests (Debian's Chromium, headless)
playwright, browser = support.playwright, support.browser


@pytest.fixture
def boxes(broker: Mosquitto, tmp_path: Path) -> Iterator[tuple[BoxProcess, BoxProcess]]:
    """Boxes t1 and t2, each in a process of its own, on the broker."""
    made = []
    for name in ("t1", "t2"):
        (tmp_path / name).mkdir()
        made.append(BoxProcess(tmp_path / name, broker.url, name))
    yield made[0], made[1]
    for box in made:
        if box.process.poll() is None:
            box.kill()


@pytest.fixture
def tv(browser: Browser, hub: Hub) -> Iterator[tuple[Page, support.Watch]]:
    """The hub's page on a TV-sized screen, and the watch on its console and requests."""
    context = browser.new_context(viewport=support.TV)
    watch = support.Watch(f"http://127.0.0.1:{hub.port}")
    page = watch.page(context)
    page.goto(f"http://127.0.0.1:{hub.port}/")
    yield page, watch
    context.close()


def test_two_boxes_a_finish_and_one_box_killed(
    broker: Mosquitto, boxes: tuple[BoxProcess, BoxProcess], tv: tuple[Page, support.Watch]
) -> None:
    (t1, t2), (page, watch) = boxes, tv
    expect(page.locator("#live")).to_have_attribute("data-status", "live")
    t1.send(op="game", players=["Ann", "Ben"])
    t2.send(op="game", players=["Cem", "Dan"])
    t1.send(op="wait")
    t2.send(op="wait")
    cards = page.locator("article.card")
    expect(cards).to_have_count(2)
    expect(page.get_by_test_id("summary")).to_have_text("2 of 2 tables online · 0 playing")

    for winner in (0, 1, 0):  # Ligretto Kids: Ann wins
        t1.send(op="round", winner=winner)
    t1.send(op="wait")
    card = page.locator('article[data-box="t1"]')
    expect(card.locator(".phase")).to_have_text("finished")
    expect(card.locator(".winner .name")).to_have_text("Ann")
    rows = page.get_by_test_id("tournament").locator("tbody tr")
    expect(rows.first.locator("td.name")).to_have_text("Ann")
    expect(page.get_by_test_id("finishes").locator("li")).to_have_count(3)

    t2.kill()  # no clean stop: the broker sends its last will
    other = page.locator('article[data-box="t2"]')
    expect(other.get_by_test_id("offline")).to_have_text("offline")
    expect(other).to_have_class("card phase-lobby offline")
    expect(page.get_by_test_id("summary")).to_have_text("1 of 2 tables online · 0 playing")
    expect(page.get_by_test_id("broker")).to_have_text("")

    assert t1.end() == 0
    broker.stop()  # the hub says why it has no broker, at once
    expect(page.get_by_test_id("broker")).to_contain_text(
        "broker unreachable: nothing listens on 127.0.0.1:"
    )
    expect(page.locator("#live")).to_have_attribute("data-status", "down")
    watch.check()


def test_the_table_view_says_why_there_is_no_broker(browser: Browser, tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    served = support.serving(tmp_path, f'mqtt = "mqtt://127.0.0.1:{port}"\nbox_name = "t9"\n')
    box = next(served)
    context = support.phone(browser)
    try:
        table = context.new_page()
        table.goto(f"{box.url}/table")
        support.log_in(table, box.pin)
        expect(table.get_by_test_id("broker")).to_contain_text(
            f"MQTT: broker unreachable: nothing listens on 127.0.0.1:{port}"
        )
    finally:
        context.close()
        served.close()


def test_the_admin_removes_an_offline_table_from_the_page(
    hub: Hub, boxes: tuple[BoxProcess, BoxProcess], tv: tuple[Page, support.Watch], browser: Browser
) -> None:
    (t1, t2), (page, watch) = boxes, tv
    for box in (t1, t2):
        box.send(op="game", players=["Ann", "Ben"])
        box.send(op="wait")
    expect(page.locator("article.card")).to_have_count(2)
    t2.kill()
    expect(page.locator('article[data-box="t2"]').get_by_test_id("offline")).to_be_visible()
    expect(page.get_by_test_id("remove")).to_have_count(0)  # a guest has no such button
    expect(page.get_by_test_id("screen-pair")).to_be_hidden()  # nor the screens' link

    page.get_by_test_id("admin").click()
    page.get_by_label("Admin PIN").fill("00000000" if hub.pin != "00000000" else "1")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_test_id("notice")).to_have_text(
        "wrong PIN: the PIN is shown on the hub's console at start"
    )
    page.get_by_label("Admin PIN").fill(hub.pin)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_test_id("admin")).to_have_text("Log out")
    expect(page.get_by_test_id("remove")).to_have_count(2)  # any table, online too
    # the admin pairs a venue's screen (hub/screens.py): the screen opens the link shown
    page.get_by_test_id("screen-pair-button").click()
    link = page.get_by_test_id("screen-pair-link")
    expect(link).to_be_visible()
    screen_context = browser.new_context(viewport=support.TV)
    screen = watch.page(screen_context)
    screen.goto(link.get_attribute("href") or "")
    expect(screen).to_have_url(f"http://127.0.0.1:{hub.port}/")
    expect(screen.locator("article.card")).to_have_count(2)
    assert [c["name"] for c in screen_context.cookies()] == ["buzzerbox_hub_screen"]
    screen_context.close()
    page.get_by_role("button", name="Remove table t2").click()
    expect(page.get_by_test_id("notice")).to_have_text("table t2 removed")
    expect(page.locator("article.card")).to_have_count(1)
    expect(page.get_by_test_id("summary")).to_have_text("1 of 1 tables online · 0 playing")
    assert [t["box"] for t in hub.board()["tables"]] == ["t1"]

    page.reload()  # the session is the hub's: still the admin, t2 still gone
    expect(page.get_by_test_id("admin")).to_have_text("Log out")
    expect(page.locator("article.card")).to_have_count(1)
    page.get_by_test_id("admin").click()
    expect(page.get_by_test_id("admin")).to_have_text("Admin")
    expect(page.get_by_test_id("screen-pair")).to_be_hidden()
    watch.check()


def test_a_phase_named_like_an_object_property_shows_as_sent(
    broker: Mosquitto, hub: Hub, tv: tuple[Page, support.Watch]
) -> None:
    """The page looks up its words with Object.hasOwn: "constructor" is not a phase it
    knows, so it shows as sent (it showed "function Object() { [native code] }")."""
    page, watch = tv
    publish(broker.url, [("buzzerbox/t1/state", state(3, phase="constructor"), True)])
    card = page.locator('article[data-box="t1"]')
    expect(card.locator(".phase")).to_have_text("constructor")
    watch.check()
