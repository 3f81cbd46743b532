"""The phone pages: scoreboard, photo finish, table view, pads and pad test, QR codes.

A template gives only the frame of its page; the page's JS module (static/) fetches
/api/state, follows /api/events and draws everything from the state object. So
this blueprint reads no game and holds no state: the JSON API is the one source.

Everything is served by the box itself (it runs offline): plain JS modules and one
CSS file, no build step, no CDN. The pages send a strict Content-Security-Policy:
scripts, styles, images and connections come from the box only.

static/, one module per concern (a page imports what it needs):
    api.js        fetch + CSRF, the admin session, the live state (EventSource)
    keepalive.js  the live stream's watch: "reconnecting" after two missed keepalives
                  (the hub's page loads it too, from the hub: hub/app.py)
    common.js     every page: the live dot (and its words), the 3 – 2 – 1 countdown,
                  the addresses
    dom.js        h()/s() element builders (text only, never HTML), formats, the
                  players' colours (state.box.colours: they follow the names)
    fit.js        every name whole: never cut nor broken mid-word, made smaller when
                  a word is wider than its box (every page, through common.js)
    game.js       what a game says: course, ranking, takes, claim news
    chart.js      the SVG chart of totals per round
    photo.js      the photo finish: presses, leads, false starts
    tvmoments.js  the TV's big moments: FIRST!, the call, Twin It!'s claims, the winners
    forms.js      count fields, refusals placed at their field
    login.js      the PIN form
    newgame.js    the new-game form
    scoring.js    the table's entries: caller, stall, stacks, middle, left, claims
    padtest.js    the pad test: every pad edge as it comes, tiles of the real pads
    scoreboard.js, finish.js, stats.js, table.js, pads.js, join.js, tv.js, buzzer.js:
                  one per page (stats.js: players across games, and the past games)
    pastgame.js   one past game drawn: its standings and rounds
    seats.js      the table's seats and pads, phones as pads
    myseat.js     a guest's phone's own seat: taken, kept, asked of the box
    drafts.js     typed counts kept on the phone
    mistakes.js   void, amend, the undo that names what it takes back
    tv.css        the TV view's own layout (on top of box.css)
    sound.js      opt-in sound (Web Audio: the countdown's beeps, the first) and vibration
    phoneclock.js a phone's clock mapped onto the box's (GET /api/clock), for its presses
    share.js      the result card shared (a PNG to the share sheet) or saved
"""

from __future__ import annotations

from typing import NamedTuple

from flask import Blueprint, render_template

from buzzerbox.server.security import security_headers

bp = Blueprint(
    "pages",
    __name__,
    template_folder="templates",
    static_folder="static",
    # not /static: the app may keep its own static route; ours stays apart
    static_url_path="/assets",
)


def _(text: str) -> str:
    """A text of the pages' catalog (`pybabel extract` finds it here: i18n/pages.cfg);
    the templates say it in the reader's language, `{{ _(page.title) }}`."""
    return text


class Page(NamedTuple):
    """One page: its address, the tab label in the top bar and its template."""

    endpoint: str
    path: str
    label: str
    title: str


#: the pages, in the order of the tabs in the top bar
PAGES = (
    Page("scoreboard", "/", _("Score"), _("Scoreboard")),
    Page("finish", "/finish", _("Photo"), _("Photo finish")),
    Page("stats", "/stats", _("Stats"), _("Stats and past games")),
    Page("table", "/table", _("Table"), _("Table view")),
    Page("pads", "/pads", _("Pads"), _("Pads and pad test")),
    Page("join", "/join", _("Join"), _("Join the scoreboard")),
)


#: pages that are no tab: the TV view is opened on the TV itself (a link on the
#: scoreboard), a guest's buzzer from the join page
TV = Page("tv", "/tv", _("TV"), _("TV view"))
BUZZER = Page("buzzer", "/buzzer", _("Buzzer"), _("Your buzzer"))


def _render(endpoint: str) -> str:
    page = next(p for p in (*PAGES, TV, BUZZER) if p.endpoint == endpoint)
    return render_template(f"{endpoint}.html", page=page, pages=PAGES)


@bp.get("/")
def scoreboard() -> str:
    """Totals, round, caller, target or rounds left, winners, chart, history."""
    return _render("scoreboard")


@bp.get("/finish")
def finish() -> str:
    """The photo finish of the last race: every press with its lead, false starts."""
    return _render("finish")


@bp.get("/stats")
def stats() -> str:
    """Players across the finished games, and the past games: to view, export, rematch."""
    return _render("stats")


@bp.get("/table")
def table() -> str:
    """The table view behind the admin PIN: new game, seats, rounds, scoring."""
    return _render("table")


@bp.get("/pads")
def pads() -> str:
    """Virtual pads for the simulated box: big buttons and keyboard keys."""
    return _render("pads")


@bp.get("/tv")
def tv() -> str:
    """The TV view: standings for up to 12 players, the first of every race, the photo."""
    return _render("tv")


@bp.get("/buzzer")
def buzzer() -> str:
    """A guest's phone as a seat's buzzer, while the host lets phones be pads."""
    return _render("buzzer")


@bp.get("/join")
def join() -> str:
    """The QR codes: the scoreboard's address and, when the box has one, its wifi."""
    return _render("join")


bp.after_request(security_headers("'self'"))
