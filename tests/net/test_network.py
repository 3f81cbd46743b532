"""First contact on a real network (issue 38): the box (`buzzerbox box`, as the appliance
runs it) in one network namespace, the phones and the TV (Debian's Chromium) in another,
joined by a veth pair (netns.py). Every earlier test of the box ran on loopback, where the
box's wrong address could not show.

A guest meets it so: the console prints the box's network address (not 127.0.0.1, though
/etc/hosts maps the host name to 127.0.1.1 as on Raspberry Pi OS); the TV shows a QR code
that zbar reads from the TV's screenshot; a phone opens what the code holds, finds "Play
on this phone", picks its seat and plays Twin It! with another guest; its link goes down
and up (the veth) and it comes back to its seat, as it does in a new game of the same
players; `buzzerbox.local` resolves from the phones' side by mDNS. And a box with no
address but loopback says so, and shows no code.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import segno
from playwright.sync_api import Browser, Page, expect
from web.browser_support import (  # type: ignore[import-not-found]
    Served,
    Watch,
    new_game,
    phone,
    phones_on,
    settle_claim,
    table_page,
    wait_for_go,
)

from . import netns
from .conftest import CHROMIUM, CHROMIUM_ARGS, PORT, Console, start_box, stop
from .netns import BOX_IP, Net

BOX_URL = f"http://{BOX_IP}:{PORT}/"
#: The QR code on a 1080p TV: a phone's camera reads a code whose modules are ~1/60 of
#: its view; the box's address (version 2-3, 29-33 modules with the quiet zone) at
#: 250 px on a 55" TV is 16 cm wide, read from about 2 m, a living room's coffee table.
QR_PX = 250
#: the stream is taken for lost after two missed keepalives (2 s each) and a bit
LOST_MS = 15_000


def served(box: Console) -> Served:
    pin = box.wait_for(r"admin PIN (\S+)").group(1)
    return Served(box.process, BOX_URL.rstrip("/"), pin)


def zbar(png: bytes, folder: Path) -> list[str]:
    """What zbarimg (Debian's zbar-tools) reads in a screenshot: each code's text."""
    shot = folder / "shot.png"
    shot.write_bytes(png)
    done = subprocess.run(
        ["zbarimg", "--quiet", "--raw", str(shot)], capture_output=True, text=True, timeout=60
    )
    return done.stdout.split()


def test_the_console_prints_the_address_phones_open_not_loopback(net: Net, box: Console) -> None:
    # the trap: in the box's namespace the host name is 127.0.1.1, as on Raspberry Pi OS
    own_name = "import socket; print(socket.gethostbyname(socket.gethostname()))"
    looked = subprocess.run(
        netns.in_ns(net.box, sys.executable, "-c", own_name),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert looked.stdout.strip() == "127.0.1.1", looked
    opened = [m.group(1) for line in box.lines if (m := re.match(r"buzzerbox: open (\S+)", line))]
    assert opened[0] == BOX_URL  # the default route's address first
    assert f"http://buzzerbox.local:{PORT}/" in opened  # where the box advertises its name
    assert not [u for u in opened if "127." in u], box.text()
    # the appliance's banner: its name advertised, and a code for it
    box.wait_for(rf"buzzerbox scoreboard: http://buzzerbox\.local:{PORT}/")
    box.wait_for(r"advertised by mDNS as buzzerbox\.local")


def test_the_mdns_name_resolves_from_the_phones_side(net: Net, box: Console) -> None:
    resolve = (
        "from zeroconf import IPVersion, Zeroconf\n"
        "from zeroconf._services.info import AddressResolverIPv4\n"
        "zc = Zeroconf(ip_version=IPVersion.V4Only)\n"
        "r = AddressResolverIPv4('buzzerbox.local.')\n"
        "print(r.request(zc, 5000), *r.parsed_addresses())\n"
        "zc.close()\n"
    )
    done = subprocess.run(
        netns.in_ns(net.phones, sys.executable, "-c", resolve),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.split() == ["True", BOX_IP], done


def test_the_box_s_own_screen_shows_the_code_of_its_network_address(net: Net, box: Console) -> None:
    """A page opened on the box itself (127.0.0.1: a TV on the Pi's HDMI) gets the code
    of the box's address on the network, never of loopback."""
    fetch = (
        "import sys, urllib.request\n"
        f"with urllib.request.urlopen('http://127.0.0.1:{PORT}/api/qr/scoreboard.svg') as r:\n"
        "    sys.stdout.buffer.write(r.read())\n"
    )
    got = subprocess.run(
        netns.in_ns(net.box, sys.executable, "-c", fetch), capture_output=True, timeout=30
    )
    expected = io.BytesIO()
    segno.make(BOX_URL, error="m").save(expected, kind="svg", scale=8, border=2, xmldecl=False)
    assert got.stdout == expected.getvalue(), got.stderr


def test_a_guest_scans_the_tv_plays_twin_it_and_keeps_the_seat_over_a_lost_link(
    net: Net, box: Console, phones_browser: Browser, tmp_path: Path
) -> None:
    at = served(box)
    watch = Watch(at.url)
    tv_screen = phones_browser.new_context(viewport={"width": 1920, "height": 1080})
    host, ann_phone, ben_phone = (phone(phones_browser) for _ in range(3))
    try:
        table = table_page(watch, host, at)
        new_game(table, "twinit", ["Ann", "Ben"])
        phones_on(table)

        # the TV shows the scoreboard's code, big enough across the room; zbar reads it
        tv = watch.open(tv_screen, "/tv")
        code = tv.get_by_test_id("qr-tv")
        expect(code).to_be_visible()
        tv.wait_for_function("() => document.querySelector('[data-testid=qr-tv]').naturalWidth > 0")
        side = code.bounding_box()
        assert side is not None and min(side["width"], side["height"]) >= QR_PX, side
        assert zbar(tv.screenshot(), tmp_path) == [BOX_URL]
        expect(tv.get_by_test_id("no-network")).to_be_hidden()

        # each guest opens what the code holds: the scoreboard, and one big way to play
        ann = scan_and_sit(watch, ann_phone.new_page(), 0, "Ann")
        ben = scan_and_sit(watch, ben_phone.new_page(), 1, "Ben")
        expect(table.get_by_test_id("phone-seats")).to_contain_text("Ann")

        # Twin It!: the count, the go, Ann slaps first; the table gives her the pair
        table.get_by_test_id("start-round").click()
        for guest in (ann, ben):
            wait_for_go(guest, "buzzer-phase")
        ann.get_by_test_id("buzzer-slap").tap()
        expect(ann.get_by_test_id("buzzer-title")).to_have_text("You were first!")
        settle_claim(table, "pair", "Ann")
        expect(ann.get_by_test_id("buzzer-title")).to_have_text("You take the pair!")
        expect(ben.get_by_test_id("buzzer-title")).to_have_text("Ann takes the pair")

        # the phones' link goes down: the buzzer says it is reconnecting; then up again
        net.phones_link_up(False)
        note = ann.get_by_test_id("buzzer-link")
        expect(note).to_be_visible(timeout=LOST_MS)
        expect(note).to_contain_text(re.compile("reconnecting", re.I))
        net.phones_link_up(True)
        expect(note).to_be_hidden(timeout=LOST_MS)
        expect(ann.get_by_test_id("buzzer")).to_contain_text("Ann")  # its seat, no pick
        expect(ann.get_by_test_id("buzzer-seats")).to_have_count(0)

        # and it plays on: Ben slaps first now
        ben.get_by_test_id("buzzer-slap").tap()
        expect(ben.get_by_test_id("buzzer-title")).to_have_text("You were first!")
        settle_claim(table, "pair", "Ben")
        expect(ann.get_by_test_id("buzzer-title")).to_have_text("Ben takes the pair")
        ann.get_by_test_id("buzzer-slap").tap()
        expect(ann.get_by_test_id("buzzer-title")).to_have_text("You were first!")
        settle_claim(table, "pair", "Ann")
        expect(ann.get_by_test_id("buzzer-detail")).to_contain_text("You have 2 takes of 5.")

        # a new game of the same players (in another order): each phone finds its seat
        new_game(table, "twinit", ["Ben", "Ann"])
        for guest, name in ((ann, "Ann"), (ben, "Ben")):
            expect(guest.get_by_test_id("buzzer-title")).to_have_text("Waiting for the first round")
            expect(guest.get_by_test_id("buzzer")).to_contain_text(name)
            expect(guest.get_by_test_id("buzzer-seats")).to_have_count(0)
        watch.check()
    except BaseException:
        print(box.text())
        print("page errors:", watch.errors)
        raise
    finally:
        for context in (tv_screen, host, ann_phone, ben_phone):
            context.close()


def scan_and_sit(watch: Watch, page: Page, seat: int, name: str) -> Page:
    """A guest's phone opens the code's address, taps "Play on this phone", takes `seat`."""
    page.on("pageerror", lambda exc: watch.errors.append(f"{page.url}: {exc}"))
    page.goto(BOX_URL)
    expect(page.get_by_test_id("qr-scoreboard")).to_be_visible()  # its own code, to share
    play = page.get_by_test_id("play-on-phone")
    expect(play).to_be_visible()
    play.click()
    page.get_by_test_id(f"buzzer-seat-{seat}").click()
    expect(page.get_by_test_id("buzzer")).to_contain_text(name)
    return page


def test_a_box_with_no_network_says_so_and_shows_no_code_until_its_wifi_comes_up(
    net: Net, phones_browser: Browser, tmp_path: Path
) -> None:
    """Loopback only (a Pi whose wifi is not up yet): the console and /table say that no
    phone can reach it, and no page draws a code that leads nowhere; once its wifi comes
    up, the console prints the address and the open pages show its code."""
    lone = start_box(net.lone, ["serve", "--port", str(PORT)], tmp_path, "")
    try:
        lone.wait_for(r"admin PIN (\S+)")
        lone.wait_for(r"buzzerbox: no network: phones cannot reach this box")
        assert not [line for line in lone.lines if re.search(r"open http://(?!127\.)", line)]
        pin = lone.wait_for(r"admin PIN (\S+)").group(1)
        launcher = netns.chromium_in(net.lone, CHROMIUM, tmp_path)
        browser = phones_browser.browser_type.launch(
            executable_path=launcher, headless=True, args=CHROMIUM_ARGS
        )
        try:
            at = Served(lone.process, f"http://127.0.0.1:{PORT}", pin)
            watch = Watch(at.url)
            context = phone(browser)
            table = table_page(watch, context, at)
            expect(table.get_by_test_id("no-network")).to_have_text(
                "No network: phones cannot reach this box"
            )
            expect(table.get_by_test_id("qr-table")).to_be_hidden()
            join = watch.open(context, "/join")
            expect(join.get_by_test_id("no-network")).to_be_visible()
            expect(join.get_by_test_id("qr-scoreboard")).to_be_hidden()

            # its wifi comes up: the console says where to open it, the pages show its code
            address = netns.wire_lone(net)
            lone.wait_for(rf"buzzerbox: open http://{re.escape(address)}:{PORT}/", timeout=30)
            expect(join.get_by_test_id("qr-scoreboard")).to_be_visible(timeout=30_000)
            expect(join.get_by_test_id("no-network")).to_be_hidden()
            join.wait_for_function(
                "() => document.querySelector('[data-testid=qr-scoreboard]').naturalWidth > 0"
            )
            assert zbar(join.screenshot(), tmp_path) == [f"http://{address}:{PORT}/"]
            watch.check()
        finally:
            browser.close()
    finally:
        stop(lone)
