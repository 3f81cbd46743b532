"""The export formats: game log lines, the CSV score sheet, the BG Stats play and link."""

from __future__ import annotations

import csv
import io
import json
import urllib.parse
from typing import Any

from buzzerbox.rules.gamelog import Rejected, replay_state
from buzzerbox.rules.statejson import StateJson
from buzzerbox.store.export import bgstats_link, ranks, to_bgstats, to_csv, to_jsonl
from buzzerbox.store.restore import load_lines, replay_stored

KIDS: list[dict[str, Any]] = [
    {"type": "game", "game": "kids", "players": ["Ann", "Ben", "Cem"], "rounds": 1},
    {"type": "round"},
    {"type": "go", "t_us": 10},
    {"type": "press", "seat": 1, "pad": "stop", "t_us": 20},
    {"type": "left", "counts": {"Ann": 4, "Ben": 0, "Cem": 4}},
]


def finished_kids() -> StateJson:
    state = replay_state(to_jsonl(KIDS).splitlines())
    assert state["phase"] == "finished", state
    return state


def test_the_game_log_is_one_json_object_per_line() -> None:
    text = to_jsonl(KIDS)
    assert text.endswith("\n")
    assert [json.loads(line) for line in text.splitlines()] == KIDS


def test_an_exported_log_replays_to_the_same_state() -> None:
    engine, accepted, rejected = replay_stored(load_lines(to_jsonl(KIDS)))
    assert rejected == []
    assert accepted == KIDS[1:]
    assert engine.state()["winners"] == ["Ben"]


def test_a_line_that_is_not_json_is_rejected_with_its_number() -> None:
    lines = load_lines(to_jsonl(KIDS[:2]) + "\n{oops\n")
    _, accepted, rejected = replay_stored(lines)
    assert accepted == [{"type": "round"}]
    reason = "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
    assert rejected == [Rejected(4, f"this line is not JSON ({reason})")]


def test_an_import_reads_its_lines_as_buzzerbox_replay_does() -> None:
    text = to_jsonl(KIDS[:2]) + "null\n" + "[" * 100_000 + "\n\n" + to_jsonl(KIDS[2:])
    engine, accepted, rejected = replay_stored(load_lines(text))
    assert [r.line for r in rejected] == [3, 4]  # null is refused, not skipped
    assert "nests too deep" in rejected[1].reason
    assert accepted == KIDS[1:]
    state = replay_state(text.splitlines())
    shown = [r.to_json() for r in rejected]
    assert state == {**engine.state(), "rejected": shown, "rejected_count": 2}


def test_fewest_cards_rank_first_in_kids_and_ties_share() -> None:
    state = finished_kids()
    assert ranks(state) == [2, 1, 2]


def test_the_score_sheet_has_a_row_per_round_then_totals_and_ranks() -> None:
    rows = list(csv.reader(io.StringIO(to_csv(finished_kids()))))
    assert rows == [
        ["round", "caller", "Ann", "Ben", "Cem"],
        ["1", "Ben", "4", "0", "4"],
        ["total", "", "4", "0", "4"],
        ["rank", "", "2", "1", "2"],
    ]


def test_a_bg_stats_play_follows_the_push_link_format() -> None:
    play = to_bgstats(
        finished_kids(), play_id="buzzerbox-1", started=0.0, ended=1500.0, variants=["beginners"]
    )
    assert play["sourceName"] == "buzzerbox"
    assert play["sourcePlayId"] == "buzzerbox-1"
    assert play["durationMin"] == 25
    assert play["board"] == "beginners"
    assert play["game"] == {
        "name": "Ligretto Kids",
        "sourceGameId": "kids",
        "highestWins": False,
        "noPoints": False,
    }
    assert [(p["name"], p["score"], p["rank"], p["winner"]) for p in play["players"]] == [
        ("Ann", 4, 2, False),
        ("Ben", 0, 1, True),
        ("Cem", 4, 2, False),
    ]
    assert len(play["playDate"]) == len("2020-10-23 19:16:58")


def test_the_link_carries_the_play_url_encoded() -> None:
    play = {"game": {"name": "Twin It!"}, "players": [{"name": "Zoë & Ann"}]}
    link = bgstats_link(play)
    assert link.startswith("https://app.bgstatsapp.com/createPlay.html?data=")
    data = link.split("data=", 1)[1]
    assert "&" not in data and " " not in data
    assert json.loads(urllib.parse.unquote(data)) == play
