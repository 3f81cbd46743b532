"""What a guest's buzzer says (web/static/buzzerstatus.js, issue 24 item 1), under node,
for states the real rules engine makes: places and ties, a stall, a round's points in
each game's words, Twin It!'s steals and splits. (The browser tests play it:
test_browser_buzzer_game.py.) Node is installed by tests/check."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from buzzerbox.rules.engine import Engine

STATUS_JS = Path(__file__).parents[2] / "host" / "buzzerbox" / "web" / "static" / "buzzerstatus.js"
#: reads [[state, seat], ...] on stdin, prints statusOf of each
RUN = """globalThis.document = { documentElement: { lang: "en" } };
const { statusOf } = await import(process.argv[1]);
let text = "";
for await (const chunk of process.stdin) text += chunk;
console.log(JSON.stringify(JSON.parse(text).map(([st, seat]) => statusOf(st, seat))));"""


def said(*cases: tuple[dict[str, Any], int]) -> list[dict[str, Any]]:
    node = shutil.which("node")
    assert node, "node is not installed: tests/check installs it"
    done = subprocess.run(
        [node, "--input-type=module", "-e", RUN, STATUS_JS.as_uri()],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: list[dict[str, Any]] = json.loads(done.stdout)
    return result


def game(kind: str, players: list[str], *events: dict[str, Any], **box: Any) -> dict[str, Any]:
    engine = Engine.from_dict(
        {"type": "game", "game": kind, "players": players, "first": 0}
        if kind == "twinit"
        else {"type": "game", "game": kind, "players": players}
    )
    for event in events:
        engine.apply_dict(event)
    return {**engine.state(), "box": {"countdown": None, "countdown_ends_us": None, **box}}


def stop(seat: int, t_us: int) -> dict[str, Any]:
    return {"type": "press", "seat": seat, "pad": "stop", "t_us": t_us}


START = ({"type": "round"}, {"type": "go", "t_us": 1_000})


def test_places_ties_and_a_stall() -> None:
    names = ["Ann", "Ben", "Cem", "Dag"]
    tie = game("ligretto", names, *START, stop(0, 5_000), stop(1, 5_000), stop(2, 17_300))
    stall = game("ligretto", names, *START, {"type": "stall"})
    first, tied, third, none, stalled = said((tie, 0), (tie, 1), (tie, 2), (tie, 3), (stall, 0))
    assert first["title"] == "A tie with Ben!" and first["locked"]
    assert tied["title"] == "A tie with Ann!"
    assert third["title"] == "3rd — 12.3 ms behind Ann" and third["locked"]
    assert none["kind"] != "first" and not none["locked"]  # Dag may still press: a place
    assert stalled["title"] == "Stall: the round is over"


def test_a_round_in_each_games_words() -> None:
    twist = game(
        "twist",
        ["Ann", "Ben"],
        *START,
        stop(1, 2_000),
        {"type": "left", "counts": {"Ann": 7, "Ben": 0}},
    )
    kids = game(
        "kids",
        ["Ann", "Ben"],
        *START,
        stop(1, 2_000),
        {"type": "left", "counts": {"Ann": 7, "Ben": 0}},
    )
    late = game("kids", ["Ann", "Ben"], *START, stop(1, 2_000), stop(0, 1_502_000))
    a, b, c, d = said((twist, 0), (twist, 1), (kids, 0), (late, 0))
    assert a["title"] == "Ben won round 1"
    assert a["detail"].startswith("−7 points this round, −7 in all.")
    assert b["title"] == "You won round 1!" and b["cheer"]
    assert c["detail"].startswith("7 cards left this round, 7 in all.")
    assert d["title"] == "2nd — 1.50 s behind Ben"


def test_twin_it_steals_and_splits() -> None:
    names = ["Ann", "Ben", "Cem"]
    slap = {"type": "press", "seat": 1, "pad": "slap", "t_us": 2_000}
    took = game("twinit", names, *START, slap, {"type": "claim", "result": "pair"})
    steal = {**slap, "seat": 0, "t_us": 3_000}
    stole = game(
        "twinit",
        names,
        *START,
        slap,
        {"type": "claim", "result": "pair"},
        steal,
        {"type": "claim", "result": "steal", "victim": "Ben"},
    )
    split = game("twinit", names, *START, countdown="split")
    ben, ann, victim, other, turning = said(
        (took, 1), (stole, 0), (stole, 1), (stole, 2), (split, 2)
    )
    assert ben["title"] == "You take the pair!" and ben["detail"] == "You have 1 take of 5."
    assert ann["title"] == "You steal Ben's take!" and ann["cheer"]
    assert victim["title"] == "Ann steals your take"
    assert other["title"] == "Ann steals Ben's take"
    assert turning["title"] == "Split: 3 – 2 – 1, turn the pair over!"
