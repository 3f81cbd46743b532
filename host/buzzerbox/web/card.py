"""The result card of a finished game: an SVG the box draws from the state, for a phone
to save or share. Names go in as escaped text (they are typed at the table)."""

from __future__ import annotations

from xml.sax.saxutils import escape

from buzzerbox.box.boxjson import BoxStateJson
from buzzerbox.errors import Words, plural_words
from buzzerbox.i18n import DEFAULT, say
from buzzerbox.rules.statejson import PlayerJson

#: the seats' colours, as on the pages (box.css, light)
COLOURS = (
    "#d7322a",
    "#1f6fd1",
    "#2b8a3e",
    "#d99a00",
    "#8a3fb5",
    "#e8690b",
    "#00897b",
    "#d0307a",
    "#7a5540",
    "#3f51b5",
    "#6f9a1f",
    "#0893b0",
)
WIDTH = 600
ROW = 44
TOP = 150


def _score(state: BoxStateJson, player: PlayerJson) -> int:
    if state.get("game") == "twinit":
        return len(player.get("takes") or [])
    return int(player.get("total", 0))


def _signed(n: int) -> str:
    return f"−{-n}" if n < 0 else str(n)


def seat_colour(state: BoxStateJson, seat: int) -> int:
    """The colour of a seat's player: the box's (it follows the name), else the seat's."""
    colours = (state.get("box") or {}).get("colours") or []
    return int(colours[seat]) if seat < len(colours) else seat


def headline(winners: list[str], lang: str) -> str:
    """Who won, in `lang`: "Ann wins!", "Ann & Ben win!"."""
    if not winners:
        return ""
    if len(winners) == 1:
        return say(Words("{name} wins!", {"name": winners[0]}), lang)
    return say(Words("{names} win!", {"names": " & ".join(winners)}), lang)


def result_card(state: BoxStateJson, lang: str = DEFAULT) -> str:
    """The card: title, winners, every player with their score, best first; its words
    in `lang`."""
    players = list(enumerate(state.get("players") or []))
    fewest = state.get("game") == "kids"
    players.sort(key=lambda sp: (_score(state, sp[1]) * (1 if fewest else -1), sp[0]))
    winners = state.get("winners") or []
    rounds = len(state.get("history") or [])
    sub = escape(str(state.get("title", "")))
    if state.get("game") != "twinit":
        sub += " · " + escape(say(plural_words("{n} round", "{n} rounds", rounds), lang))
    said = headline(winners, lang)
    height = TOP + ROW * len(players) + 40
    rows = []
    for i, (seat, p) in enumerate(players):
        y = TOP + ROW * i
        colour = COLOURS[seat_colour(state, seat) % len(COLOURS)]
        won = " ★" if p.get("name") in winners else ""
        rows.append(
            f'<rect x="32" y="{y}" width="{WIDTH - 64}" height="{ROW - 8}" rx="10" '
            f'fill="{colour}" fill-opacity="0.12"/>'
            f'<rect x="32" y="{y}" width="8" height="{ROW - 8}" rx="4" fill="{colour}"/>'
            f'<text x="56" y="{y + 25}" font-size="20" font-weight="700">'
            f"{escape(str(p.get('name', '')))}{won}</text>"
            f'<text x="{WIDTH - 48}" y="{y + 26}" font-size="22" font-weight="800" '
            f'text-anchor="end">{_signed(_score(state, p))}</text>'
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="system-ui, sans-serif" fill="#1c1a17">'
        f'<rect width="{WIDTH}" height="{height}" rx="24" fill="#fffdf8"/>'
        f'<text x="32" y="56" font-size="18" fill="#6d675d">buzzerbox · {sub}</text>'
        f'<text x="32" y="104" font-size="38" font-weight="900">{escape(said)}</text>'
        + "".join(rows)
        + "</svg>"
    )
