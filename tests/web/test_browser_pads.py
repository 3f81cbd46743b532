"""A box with real pads in a real browser: `buzzerbox serve` with a pad map whose board
is `buzzerbox fake-board` on TCP (protocol v1, the same bytes a Pico sends). The
table enrols a pad for a seat by pressing it, the pad test shows each edge on the
phone, and the enrolled pad calls stop for its new seat.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from .browser_support import (
    Served,
    browsing,
    new_game,
    phone,
    serving,
    shoot,
    table_page,
    targets_big_enough,
    wait_for_go,
)

PAD_MAP = """
seats = 2

[[board]]
id = "fake-0"
url = "{url}"
channels = 4
sync = 3

[[pad]]
id = "north"
role = "stop"
seat = 0
board = "fake-0"
ch = 0

[[pad]]
id = "south"
role = "stop"
seat = 1
board = "fake-0"
ch = 1
"""


@pytest.fixture(scope="module")
def board() -> Iterator[subprocess.Popen[str]]:
    """`buzzerbox fake-board` on a free TCP port: its stdin taps its channels."""
    command = [sys.executable, "-m", "buzzerbox", "fake-board", "--id", "fake-0"]
    command += ["--channels", "4", "--tcp", "0"]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        yield process
    finally:
        process.terminate()
        process.wait(10)
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()


@pytest.fixture(scope="module")
def served(
    board: subprocess.Popen[str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    assert board.stdout is not None
    url = board.stdout.readline().strip()
    assert url.startswith("socket://"), url
    data: Path = tmp_path_factory.mktemp("pads")
    (data / "map.toml").write_text(PAD_MAP.format(url=url))
    yield from serving(data, 'countdown_s = 1.0\npads = "map.toml"\n')


def tap(board: subprocess.Popen[str], channel: int) -> None:
    assert board.stdin is not None
    board.stdin.write(f"{channel}\n")
    board.stdin.flush()


def test_a_seat_is_enrolled_by_pressing_its_pad(
    served: Served, browser: Browser, board: subprocess.Popen[str]
) -> None:
    with browsing(served, browser, "light", "dark") as (watch, (table_phone, viewer_phone)):
        table = table_page(watch, table_phone, served)
        new_game(table, "kids", ["Ann", "Ben"])
        expect(table.get_by_test_id("seat-pads-0")).to_have_text("stop · pad north")
        pads = watch.open(table_phone, "/pads")
        expect(pads.get_by_test_id("pad-tile-south")).to_contain_text("stop · Ben")
        # the board, and how its clock is mapped: no pulse on its sync wire (ch 3)
        expect(pads.get_by_test_id("pad-board-fake-0")).to_have_text(
            re.compile(r"fake-0 online · clock by SYNC round trips \(sync wire (waiting|silent)")
        )

        # the pad test: a press of the south pad shows on the phone as it comes
        tap(board, 1)
        edges = pads.get_by_test_id("pad-test-edges").locator("li")
        expect(edges).to_have_count(2)
        expect(edges.nth(1)).to_have_attribute("data-pad", "south")
        expect(edges.nth(1)).to_contain_text("stop · Ben")
        expect(edges.nth(1)).to_contain_text("µs")

        # Ann sits at the south pad: the table enrols it for her by pressing it
        table.get_by_test_id("enrol-0").click()
        expect(table.get_by_test_id("seat-pads-0")).to_have_text("Press Ann's pad now…")
        targets_big_enough(table)
        shoot(table, "pads-table-enrolling")
        tap(board, 1)
        # one pad per seat and role: south replaces north as Ann's stop pad
        expect(table.get_by_test_id("seat-pads-0")).to_contain_text("stop · pad south")
        expect(table.get_by_test_id("seat-pads-0")).not_to_contain_text("north")
        expect(table.get_by_test_id("enrol-0")).to_have_text("Reassign the pad")
        expect(table.get_by_test_id("seat-pads-0")).to_contain_text("enrolled")
        expect(table.get_by_test_id("enrol-reset")).to_be_visible()
        expect(pads.get_by_test_id("pad-tile-south")).to_contain_text("stop · Ann")
        expect(edges.first).to_contain_text("released after its enrolment")
        expect(edges.nth(1)).to_contain_text("enrolled for Ann (replaces pad north)")
        targets_big_enough(pads)
        shoot(pads, "pads-pad-test")
        # a German phone reads the same notes in German (the state says each: note_said)
        german_phone = phone(browser)
        try:
            german_phone.add_cookies([{"name": "lang", "value": "de", "url": served.url}])
            german = watch.open(german_phone, "/pads").get_by_test_id("pad-test-edges")
            expect(german.locator("li").nth(1)).to_contain_text(
                "angemeldet für Ann (ersetzt Taster north)"
            )
            expect(german.locator("li").first).to_contain_text("losgelassen nach der Anmeldung")
        finally:
            german_phone.close()

        # in play, the south pad calls stop for Ann
        viewer = watch.open(viewer_phone, "/")
        table.get_by_test_id("start-round").click()
        wait_for_go(pads)
        tap(board, 1)
        expect(viewer.get_by_test_id("headline")).to_have_text("Ann called stop")
        expect(table.get_by_test_id("left-0")).to_have_value("0")
        watch.check()
