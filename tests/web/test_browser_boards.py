"""A pad board unplugged mid-game is noticed at the table (issue 42, item 7): a real
`buzzerbox serve` whose pad map has two boards, each `buzzerbox fake-board` (protocol v1,
the bytes a Pico sends) on a pty behind a stable link, as /dev/serial/by-id is. The
table view and the TV (in German) say which board is gone and whose pads went with it,
as soon as the box knows, and that it is back when it is; the other board is not named.

pico-a is not plugged in when the box starts (it is known by its port until it says its
id), then plugged in, then pulled mid-round and plugged back.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from .browser_support import (
    Served,
    browsing,
    fits,
    new_game,
    serving,
    shoot,
    start_round,
    table_page,
    tv_screen,
    wait_for_go,
)

A_ID = "pico-e6614103e7000001"  # what pico-a says in HELLO; the map calls it pico-a
PAD_MAP = """
seats = 2
piles = 4

[[board]]
alias = "pico-a"
id = "{a_id}"
url = "{a}"
channels = 8

[[board]]
id = "pico-b"
url = "{b}"
channels = 8

[[pad]]
id = "p0-s0"
role = "pile"
seat = 0
pile = 0
board = "pico-a"
ch = 0

[[pad]]
id = "p0-s1"
role = "pile"
seat = 1
pile = 0
board = "pico-a"
ch = 1

[[pad]]
id = "p1-s0"
role = "pile"
seat = 0
pile = 1
board = "pico-a"
ch = 2

[[pad]]
id = "p1-s1"
role = "pile"
seat = 1
pile = 1
board = "pico-a"
ch = 3

[[pad]]
id = "stop-0"
role = "stop"
seat = 0
board = "pico-a"
ch = 4

[[pad]]
id = "p2-s0"
role = "pile"
seat = 0
pile = 2
board = "pico-b"
ch = 0

[[pad]]
id = "p2-s1"
role = "pile"
seat = 1
pile = 2
board = "pico-b"
ch = 1

[[pad]]
id = "stop-1"
role = "stop"
seat = 1
board = "pico-b"
ch = 4
"""
#: "back" stays up this long (web/static/boardnotice.js BACK_MS), and some room
BACK_GONE_MS = 8000 + 10_000
#: a board is back once its clock is mapped (SYNC round trips: pads/board/syncrounds.py)
ONLINE_MS = 20_000


class FakeBoard:
    """`buzzerbox fake-board` on a pty behind `link`: stdin unplugs and replugs it."""

    def __init__(self, board_id: str, link: Path) -> None:
        command = [sys.executable, "-m", "buzzerbox", "fake-board", "--id", board_id]
        command += ["--channels", "8", "--link", str(link)]
        pipe = subprocess.PIPE
        self.process = subprocess.Popen(
            command, stdin=pipe, stdout=pipe, stderr=subprocess.DEVNULL, text=True
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == str(link)  # plugged in

    def do(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{line}\n")
        self.process.stdin.flush()

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(10)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


@pytest.fixture(scope="module")
def links(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("by-id")
    return {"a": folder / "usb-pico-a-if00", "b": folder / "usb-pico-b-if00"}


@pytest.fixture(scope="module")
def pico_b(links: dict[str, Path]) -> Iterator[FakeBoard]:
    board = FakeBoard("pico-b", links["b"])
    yield board
    board.close()


@pytest.fixture(scope="module")
def served(
    pico_b: FakeBoard, links: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    data: Path = tmp_path_factory.mktemp("boards")
    (data / "map.toml").write_text(PAD_MAP.format(a_id=A_ID, a=links["a"], b=links["b"]))
    yield from serving(data, 'countdown_s = 0.5\npads = "map.toml"\n')


def german_tv(browser: Browser) -> BrowserContext:
    """A TV whose browser reads German (its own switch's cookie: the table's is English)."""
    context = tv_screen(browser)
    context.add_cookies([{"name": "lang", "value": "de", "url": "http://127.0.0.1"}])
    return context


def says_gone(table: Page, tv: Page) -> None:
    """Both screens name pico-a and Ann's and Ben's pads on it, and not pico-b."""
    for page in (table, tv):
        expect(page.get_by_test_id("board-note")).to_be_visible()
        expect(page.get_by_test_id("board-note").locator("li[data-status]")).to_have_count(1)
        expect(page.get_by_test_id(f"board-note-{A_ID}")).to_have_attribute("data-status", "gone")
        expect(page.get_by_test_id("board-note-pico-b")).to_have_count(0)
    note = table.get_by_test_id(f"board-note-{A_ID}")
    expect(note).to_contain_text("Pad board pico-a is not connected")
    expect(note).to_contain_text("Presses on these pads are lost until it is back:")
    expect(table.get_by_test_id("board-note-seat-0")).to_have_text("Ann: stop and piles 1–2")
    expect(table.get_by_test_id("board-note-seat-1")).to_have_text("Ben: piles 1–2")
    expect(tv.get_by_test_id(f"board-note-{A_ID}")).to_contain_text(
        "Tasterplatine pico-a ist nicht verbunden"
    )
    expect(tv.get_by_test_id("board-note-seat-0")).to_have_text("Ann: Stopp und Stapel 1–2")
    expect(tv.get_by_test_id("board-note-seat-1")).to_have_text("Ben: Stapel 1–2")


def says_back(table: Page, tv: Page) -> None:
    """Both screens say pico-a is back, then the notice goes."""
    back = table.get_by_test_id(f"board-note-{A_ID}")
    expect(back).to_have_attribute("data-status", "back", timeout=ONLINE_MS)
    expect(back).to_have_text("Pad board pico-a is back: its pads count again")
    expect(tv.get_by_test_id(f"board-note-{A_ID}")).to_have_text(
        "Tasterplatine pico-a ist wieder da: Ihre Taster zählen wieder", timeout=ONLINE_MS
    )
    for page in (table, tv):
        expect(page.get_by_test_id("board-note")).to_be_hidden(timeout=BACK_GONE_MS)


def test_a_board_unplugged_is_named_with_its_pads_at_the_table_and_on_the_tv(
    served: Served, browser: Browser, links: dict[str, Path]
) -> None:
    with browsing(served, browser, "light", german_tv) as (watch, (table_phone, tv_context)):
        table = table_page(watch, table_phone, served)
        new_game(table, "twist", ["Ann", "Ben"])
        tv = watch.open(tv_context, "/tv")
        pads = watch.open(table_phone, "/pads")
        # pico-a is not plugged in at the start: the box knows it only by its port
        says_gone(table, tv)
        fits(tv, "board-gone-tv")
        shoot(table, "board-gone-table")

        pico_a = FakeBoard(A_ID, links["a"])
        try:
            says_back(table, tv)
            start_round(table, pads)
            wait_for_go(pads)
            pico_a.do("unplug")  # its cable pulled mid-round
            says_gone(table, tv)
            expect(table.get_by_test_id("board-note")).to_have_attribute("role", "alert")
            pico_a.do("replug")
            says_back(table, tv)
        finally:
            pico_a.close()
        watch.check()
