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
#: reads [[state, seat, before], ...] on stdin, prints statusOf of each, on a page in
#: the language argv[2] (its words English under node: no catalog; its numbers its own)
RUN = """globalThis.document = { documentElement: { lang: process.argv[2] } };
const { statusOf } = await import(process.argv[1]);
let text = "";
for await (const chunk of process.stdin) text += chunk;
const cases = JSON.parse(text);
console.log(JSON.stringify(cases.map(([st, seat, before]) => statusOf(st, seat, before))));"""


def said(*cases: tuple[Any, ...], lang: str = "en") -> list[dict[str, Any]]:
    """statusOf of each (state, seat) or (state, seat, state before)."""
    node = shutil.which("node")
    assert node, "node is not installed: tests/check installs it"
    done = subprocess.run(
        [node, "--input-type=module", "-e", RUN, STATUS_JS.as_uri(), lang],
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


def test_numbers_in_the_readers_language() -> None:
    """Issue 41, item 5: a gap is written as the page's language writes numbers."""
    names = ["Ann", "Ben", "Cem", "Dag"]
    race = game("ligretto", names, *START, stop(0, 5_000), stop(2, 17_300))
    early = game("ligretto", names, {"type": "round"}, stop(1, 1_000), countdown_ends_us=1_321_000)
    for lang, comma in (("en", "."), ("de", ","), ("fr", ","), ("da", ",")):
        third, jumped = said((race, 2), (early, 1), lang=lang)
        assert third["title"] == f"2nd — 12{comma}3 ms behind Ann", lang
        assert f"1{comma}32 s too early" in jumped["detail"], (lang, jumped)


def test_a_twin_it_error_costs_a_take_only_to_one_who_had_one() -> None:
    """Issue 41, item 6: Ben had no take, so his error costs him nothing, and his phone
    says so; Ann had one, and loses it."""
    names = ["Ann", "Ben"]
    slap = {"type": "press", "seat": 1, "pad": "slap", "t_us": 2_000}
    open_claim = game("twinit", names, *START, slap)
    wrong = game("twinit", names, *START, slap, {"type": "claim", "result": "error"})
    ann_slap = {**slap, "seat": 0, "t_us": 3_000}
    pair: dict[str, Any] = {"type": "claim", "result": "pair"}
    had_one: list[dict[str, Any]] = [*START, ann_slap, pair, {**ann_slap, "t_us": 4_000}]
    ann_open = game("twinit", names, *had_one)
    ann_wrong = game("twinit", names, *had_one, {"type": "claim", "result": "error"})
    ben, ann_sees, unknown, lost = said(
        (wrong, 1, open_claim), (wrong, 0, open_claim), (wrong, 1, None), (ann_wrong, 0, ann_open)
    )
    assert ben["title"] == "No pair: you had no take to lose"
    assert ann_sees["title"] == "Ben's error: no take to lose"
    assert unknown["title"] == "No pair: the table said so"  # the page opened after it
    assert lost["title"] == "Error: you lose a take"


def test_the_last_screen_says_the_total_its_unit_and_the_place() -> None:
    names = ["Ann", "Ben", "Cem"]
    over = game(
        "ligretto",
        names,
        *START,
        stop(0, 2_000),
        {"type": "stacks", "counts": {"Ann": 0, "Ben": 3, "Cem": 5}},
        {"type": "middle", "counts": {"Ann": 12, "Ben": 4, "Cem": 2}},
        {"type": "finish"},
    )
    ann, ben = said((over, 0), (over, 1))
    assert ann["detail"] == "Your total: 12 points, place 1 of 3"
    assert ben["detail"] == "Your total: −2 points, place 2 of 3"


def timed(seat: int, t_us: int, error_us: int, pad: str = "stop") -> dict[str, Any]:
    return {"type": "press", "seat": seat, "pad": pad, "t_us": t_us, "error_us": error_us}


def test_presses_closer_than_their_errors_are_too_close_to_call_a_clear_gap_is_not() -> None:
    """Issue 41, item 4: two phones 0.2 ms apart, each timed to ±0.9 ms."""
    names = ["Ann", "Chloé", "Cem"]
    near = game("ligretto", names, *START, timed(0, 5_000, 900), timed(1, 5_200, 900))
    clear = game("ligretto", names, *START, timed(0, 5_000, 900), timed(1, 27_300, 900))
    first, second, clear_first, clear_second = said((near, 0), (near, 1), (clear, 0), (clear, 1))
    assert first["title"] == "Too close to call with Chloé" and first["locked"]
    assert second["title"] == "Too close to call with Ann"
    assert first["detail"] == "The table names the caller."  # the rules' tie: no caller
    assert clear_first["title"] == "You were first!"
    assert clear_first["detail"].endswith(" Chloé was 22.3 ms behind.")
    assert clear_second["title"] == "2nd — 22.3 ms behind Ann"


def test_a_twin_it_claim_too_close_to_call_says_the_rules_split() -> None:
    names = ["Ann", "Chloé"]
    near = game("twinit", names, *START, timed(0, 5_000, 900, "slap"), timed(1, 5_100, 900, "slap"))
    (first,) = said((near, 0))
    assert first["title"] == "Too close to call with Chloé"
    assert "a split, the pair turned over on 3" in first["detail"]
