"""Pairing the TV from the table view (issue 39, item 2), in Chromium against a real box
(max_phones 4: the viewers' places). Four addresses (127.0.13.x) hold every viewer's
place, one stream each: the TV's browser opening /tv is refused its live view (503)
like any new viewer. The admin taps "Pair a TV" in the table view's tools and the TV
opens the link it shows: the TV's page then gets its live view (200) and shows the
game, while a new viewer is still refused, so the TV's stream is a member's, not a
viewer's. The opened link passes axe. The German table view offers the same ("Einen
Fernseher koppeln")."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from faults.served import raw, read_status  # type: ignore[import-not-found]
from playwright.sync_api import Browser, Page, expect

from .axe_audit import audit
from .browser_support import Served, browsing, new_game, served_with, table_page, tv_screen

served = served_with("tvpair", "max_phones = 4\n")


def stream(port: int, source: str) -> socket.socket:
    sock: socket.socket = raw(port, source)
    sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: box\r\n\r\n")
    return sock


@pytest.fixture
def crowd(served: Served) -> Iterator[list[socket.socket]]:
    port = int(served.url.rsplit(":", 1)[1])
    socks: list[socket.socket] = []
    try:
        for i in range(4):  # every viewer's place, one address each: none gives way
            socks.append(stream(port, f"127.0.13.{1 + i}"))
            assert read_status(socks[-1]) == 200
        yield socks
    finally:
        for sock in socks:
            sock.close()


def events_status(page: Page, path: str) -> int:
    """Open `path` on `page`: the status of its first live stream's answer."""
    with page.expect_response(lambda r: r.url.endswith("/api/events")) as answer:
        page.goto(path)
    return answer.value.status


def test_the_admin_pairs_the_tv_whose_stream_is_then_a_members(
    served: Served, browser: Browser, crowd: list[socket.socket]
) -> None:
    port = int(served.url.rsplit(":", 1)[1])
    with browsing(served, browser, "light", tv_screen) as (watch, (phone, tv_context)):
        tv = watch.page(tv_context)
        assert events_status(tv, f"{served.url}/tv") == 503  # a viewer, and none is free
        table = table_page(watch, phone, served)
        new_game(table, "ligretto", ["Ann", "Ben"])
        table.get_by_test_id("tv-pair").click()
        link = table.get_by_test_id("tv-pair-link")
        expect(link).to_be_visible()
        expect(table.get_by_test_id("tv-pair")).to_have_attribute("aria-expanded", "true")
        href = link.get_attribute("href") or ""
        assert href.startswith(f"{served.url}/tv/pair/"), href
        # a box on loopback only: no code that leads nowhere (the address is written out)
        expect(table.get_by_test_id("tv-pair-qr")).to_be_hidden()
        assert audit(table) == []  # the link shown: axe, light and dark, phone and TV
        assert events_status(tv, href) == 200  # the link: its cookie, then /tv
        assert tv.url == f"{served.url}/tv"
        expect(tv.get_by_test_id("tv-standings")).to_contain_text("Ann")
        newcomer = stream(port, "127.0.13.99")
        try:
            assert read_status(newcomer) == 503  # the TV took no viewer's place
        finally:
            newcomer.close()
        table.get_by_test_id("tv-pair").click()
        expect(link).to_be_hidden()
        watch.check()


def test_the_german_table_view_offers_to_pair_a_tv(served: Served, browser: Browser) -> None:
    context = browser.new_context(locale="de-DE")
    try:
        with browsing(served, browser, lambda _: context) as (watch, _):
            table = watch.open(context, "/table")
            table.get_by_test_id("pin-input").fill(served.pin)
            table.get_by_test_id("pin-submit").click()
            expect(table.get_by_test_id("tv-pair")).to_have_text("Einen Fernseher koppeln")
            table.get_by_test_id("tv-pair").click()
            expect(table.get_by_test_id("tv-pair-how")).to_contain_text("Browser des Fernsehers")
            expect(table.get_by_test_id("tv-pair")).to_have_text(
                "Den Link des Fernsehers ausblenden"
            )
            watch.check()
    finally:
        context.close()
