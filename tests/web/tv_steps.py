"""Steps of the TV's browser tests: a scorekeeper's phone that makes games and enters
counts through the box's JSON API (what the table view posts), the pads page for the
presses, and what the TV must show (nothing cut, the moments over the whole screen)."""

from __future__ import annotations

import contextlib
import http.client
import json
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .browser_support import Served, Watch, wait_for_go

#: twelve players, long names among them (40 characters is the longest a name may be)
TWELVE = [
    "Maximilian-Alexander von Hohenzollern",
    "Jean-Luc Picard",
    "Anna-Lena Schmidt-Bäumer",
    "Dorothea Wilhelmina",
    "Konstantinos Papadopoulos",
    "Marie-Thérèse Dubois",
    "Guðmundur Sigurðsson",
    "Bartholomew Fitzgerald",
    "Oluwaseun Adebayo-Okafor",
    "高橋 さくら",
    "Friederike von Stein",
    "Jörg 🎉🎉🎉",
]

#: elements whose text is cut: wider inside than their box (the names on the TV)
CUT = """(sel) => [...document.querySelectorAll(sel)]
  .filter((el) => el.getClientRects().length && el.scrollWidth > el.clientWidth + 0.5)
  .map((el) => [el.textContent, el.scrollWidth, el.clientWidth])"""

#: the standings rows and the photo finish, each wholly on the screen
OFF_SCREEN = """() => [...document.querySelectorAll("#tv-standings > li, #photo, .tv-join")]
  .map((el) => [el.dataset.testid || el.id || el.className, el.getBoundingClientRect().toJSON()])
  .filter(([, r]) => r.top < -0.5 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5)"""

#: the share of the window a moment covers, and whether it is the topmost thing at
#: the window's centre (it "takes the screen")
COVER = """(sel) => {
  const el = document.querySelector(sel);
  const r = el.getBoundingClientRect();
  const top = document.elementFromPoint(innerWidth / 2, innerHeight / 2);
  return [(r.width * r.height) / (innerWidth * innerHeight), el.contains(top)];
}"""

#: the computed font size (px) of the first element matching `sel`
FONT_PX = "(sel) => parseFloat(getComputedStyle(document.querySelector(sel)).fontSize)"


class Scorekeeper:
    """The admin's phone, posting to the box's JSON API as the table view does."""

    def __init__(self, context: BrowserContext, served: Served) -> None:
        self.context = context
        self.request = context.request
        self.url = served.url
        reply = self.request.post(f"{served.url}/api/login", data={"pin": served.pin})
        assert reply.ok, reply.text()
        self.csrf = reply.json()["csrf"]

    def post(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        reply = self.request.post(
            f"{self.url}/api/{path}",
            data=json.dumps(body or {}),
            headers={"Content-Type": "application/json", "X-CSRF-Token": self.csrf},
        )
        assert reply.ok, f"{path} {body}: {reply.status} {reply.text()}"
        result: dict[str, Any] = reply.json()
        return result

    def event(self, **entry: Any) -> dict[str, Any]:
        return self.post("event", entry)

    def press(self, seat: int, pad: str) -> dict[str, Any]:
        """A virtual pad pressed and let go, as the pads page posts a tap (timed at its
        arrival: for presses whose order alone counts)."""
        self.post("pads/press", {"seat": seat, "pad": pad})
        return self.post("pads/release", {"seat": seat, "pad": pad})

    def presses(
        self,
        pads: Iterable[tuple[int, str]],
        apart_us: int = 1000,
        error_us: int = 0,
        after_us: int | None = None,
    ) -> dict[str, Any]:
        """Virtual pads pressed `apart_us` after one another on the box's clock, then let
        go: the times are the test's, not the requests' arrival, so presses that must
        land within a game's window (Twin It!'s second) do, however slow the machine.

        Each press says its moment (`touch_us`, give or take `error_us`: 0, exact, as a
        wired pad's; a phone's clock map: a ms or so) and its age as the request leaves
        (`ago_ms`), as the pads page does for a key. The first moment is the box's clock
        as first read here (with `after_us`, the go's time say: no earlier than that
        plus `error_us`), and the presses go once the box's clock has passed the last (read again
        until it has: a touch after its request is a clock map gone wrong), each with
        its age since that last read. The box takes a moment up to MAX_TRANSIT_US (1 s)
        before its request left (web/phonetime.py): the clock's answers and the presses
        go straight from this process to the box (http.client, this context's session),
        not through Playwright's driver, which a few dozen live pages keep busy (through
        it, a press once took 1.1 s to reach the box at load 25). The box's answer to
        each says it took the touch (press_time.from), or the test fails saying why.
        Returns the last release's answer."""
        where = urlsplit(self.url)
        line = http.client.HTTPConnection(where.hostname or "127.0.0.1", where.port, timeout=30)
        cookies = "; ".join(f"{c['name']}={c['value']}" for c in self.context.cookies(self.url))
        headers = {"Content-Type": "application/json", "X-CSRF-Token": self.csrf}
        headers["Cookie"] = cookies

        def ask(method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
            data = None if body is None else json.dumps(body)
            line.request(method, f"/api/{path}", body=data, headers=headers)
            reply = line.getresponse()
            text = reply.read().decode()
            assert reply.status == 200, f"{path} {body}: {reply.status} {text}"
            answer: dict[str, Any] = json.loads(text)
            return answer

        def clock() -> tuple[int, float]:
            """The box's clock, and when its answer came here."""
            return int(ask("GET", "clock")["now_us"]), time.monotonic()

        try:
            pressed = list(pads)
            now_us, then = clock()
            first = now_us if after_us is None else max(now_us, after_us + error_us)
            moments = [first + k * apart_us for k in range(len(pressed))]
            for _ in range(10_000):  # a few ms at most on an idle machine
                if now_us >= moments[-1] + error_us:
                    break
                now_us, then = clock()
            for (seat, pad), moment in zip(pressed, moments, strict=True):
                age_ms = (time.monotonic() - then) * 1000
                body = {"seat": seat, "pad": pad, "touch_us": moment}
                timed = {"error_us": error_us, "ago_ms": age_ms}
                answer = ask("POST", "pads/press", {**body, **timed})
                assert answer["press_time"]["from"] == "touch", (body, answer["press_time"])
            last: dict[str, Any] = {}
            for seat, pad in pressed:
                last = ask("POST", "pads/release", {"seat": seat, "pad": pad})
            return last
        finally:
            line.close()

    def game(self, game: str, players: list[str], **fields: Any) -> dict[str, Any]:
        return self.post("game", {"game": game, "players": players, **fields})


def pads_page(watch: Watch, context: BrowserContext, served: Served) -> Page:
    pads = watch.page(context)
    pads.goto(f"{served.url}/pads")
    return pads


def round_called(keeper: Scorekeeper, pads: Page, caller: int, runner: int) -> None:
    """A round: the table starts it (the table view's button), `caller` presses stop
    first after the go, `runner` right after (the virtual pads, as the pads page
    posts them: some ms apart)."""
    keeper.event(type="round")
    expect(pads.get_by_test_id("pads-phase")).to_have_attribute("data-phase", "countdown")
    wait_for_go(pads)
    keeper.press(caller, "stop")
    keeper.press(runner, "stop")


def scored_ligretto(keeper: Scorekeeper, names: list[str], caller: int, rnd: int) -> None:
    """Ligretto's two counts for a called round: stacks (the caller's is 0), middle."""
    stacks = {n: 0 if i == caller else 1 + (i + rnd) % 5 for i, n in enumerate(names)}
    keeper.event(type="stacks", counts=stacks)
    keeper.event(type="middle", counts={n: 3 + (i * 7 + rnd) % 11 for i, n in enumerate(names)})


def tv_page(watch: Watch, context: BrowserContext, served: Served) -> Page:
    """The TV view with its clock stopped: its timers (a moment's 5 s, the count's
    steps, the keepalive watch) run only as the test runs them (`page.clock.run_for`)."""
    tv = watch.page(context)
    tv.clock.install()
    tv.goto(f"{served.url}/tv")
    # Python takes Unix time in seconds; a second ahead, as the page's clock runs on
    tv.clock.pause_at(tv.evaluate("Date.now()") / 1000 + 1)
    return tv


def nothing_cut(tv: Page, sel: str) -> None:
    """No text in `sel` is cut, once the page has laid out its size (a screen just
    resized: its names are fitted again when the browser next renders, 2 s at most)."""
    with contextlib.suppress(PlaywrightTimeout):  # then say what is cut
        tv.wait_for_function(f"(sel) => ({CUT})(sel).length === 0", arg=sel, timeout=2000)
    cut = tv.evaluate(CUT, sel)
    assert cut == [], f"cut on a {tv.viewport_size}: {cut}"


def takes_the_screen(tv: Page, sel: str = "#tv-reveal") -> None:
    """The moment covers the whole window and is on top at its centre."""
    share, on_top = tv.evaluate(COVER, sel)
    assert share >= 0.99 and on_top, (sel, share, on_top)
