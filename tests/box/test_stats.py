"""Players across games (box/stats.py on the box's archive): finished games only, wins
in all and per game, the best round, win streaks, the quickest stop a player called;
and the past games of the log, each to view and to play again."""

from __future__ import annotations

from typing import Any

from buzzerbox.box import Box
from buzzerbox.box.checks import table_entry
from buzzerbox.box.stats import player_stats
from buzzerbox.rules.eventjson import parse_edge
from buzzerbox.testing import ManualClock

ANN, BEN = 0, 1


def stats(box: Box) -> dict[str, Any]:
    return {r["name"]: r for r in player_stats(box.archive.played_games())}


def per_game(row: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {g["game"]: g for g in row["by_game"]}


def round_called(box: Box, clock: ManualClock, caller: int, after_us: int) -> None:
    """A round: the countdown, the go, and `caller`'s stop press `after_us` after it."""
    box.submit(table_entry({"type": "round"}))
    clock.advance(box.countdown_us)
    assert box.state()["phase"] == "playing"
    clock.advance(after_us)
    box.play(parse_edge(True, caller, "stop", box.now_us()))


def game(
    box: Box, clock: ManualClock, kind: str, caller: int, after_us: int, left: dict[str, int]
) -> int:
    """A finished game of Ann and Ben: one round `caller` called, the cards left, finish."""
    box.new_game({"game": kind, "players": ["Ann", "Ben"]})
    round_called(box, clock, caller, after_us)
    box.submit(table_entry({"type": "left", "counts": left}))
    box.submit(table_entry({"type": "finish"}))
    assert box.state()["phase"] == "finished"
    assert box.game_id is not None
    return box.game_id


def test_an_abandoned_rematch_counts_for_nobody(box: Box, clock: ManualClock) -> None:
    game(box, clock, "kids", ANN, 5_000_000, {"Ann": 0, "Ben": 4})
    box.rematch()  # started, a round begun, then left for another game: no end
    round_called(box, clock, BEN, 1_000_000)
    box.new_game({"game": "kids", "players": ["Ann", "Cem"]})  # and this one goes on
    rows = stats(box)
    assert set(rows) == {"Ann", "Ben"}  # Cem has finished no game
    assert (rows["Ann"]["games"], rows["Ann"]["wins"]) == (1, 1)
    assert (rows["Ben"]["games"], rows["Ben"]["wins"]) == (1, 0)
    assert rows["Ben"]["quickest_call"] is None  # the abandoned round's stop is not his
    # the list of past games shows all three, the two without an end as not finished
    listed = box.archive.games()
    assert [g["finished"] for g in listed] == [False, False, True]
    assert listed[2]["winners"] == ["Ann"] and listed[1]["winners"] == []


def test_a_finish_taken_back_is_no_finished_game(box: Box, clock: ManualClock) -> None:
    game(box, clock, "kids", ANN, 5_000_000, {"Ann": 0, "Ben": 4})
    assert stats(box)["Ann"]["wins"] == 1
    box.submit(table_entry({"type": "undo"}))  # the finish
    assert stats(box) == {}
    box.submit(table_entry({"type": "finish"}))
    assert stats(box)["Ann"]["wins"] == 1


def test_wins_per_game_best_round_and_streaks(box: Box, clock: ManualClock) -> None:
    first = game(box, clock, "kids", ANN, 5_000_000, {"Ann": 0, "Ben": 4})
    second = game(box, clock, "kids", ANN, 2_000_000, {"Ann": 0, "Ben": 2})
    twist = game(box, clock, "twist", BEN, 1_500_000, {"Ann": 6, "Ben": 0})
    # the fourth: a false start, then a stop press the table takes back, then the call
    box.new_game({"game": "kids", "players": ["Ann", "Ben"]})
    box.play(parse_edge(True, ANN, "stop", box.now_us()))  # before the round: a false start
    box.submit(table_entry({"type": "round"}))
    clock.advance(box.countdown_us)
    clock.advance(1_000_000)
    bumped = box.now_us()
    box.play(parse_edge(True, ANN, "stop", bumped))
    box.submit(table_entry({"type": "void", "seat": ANN, "t_us": bumped}))
    clock.advance(7_000_000)
    box.play(parse_edge(True, ANN, "stop", box.now_us()))
    box.submit(table_entry({"type": "left", "counts": {"Ann": 0, "Ben": 3}}))
    box.submit(table_entry({"type": "finish"}))
    rows = stats(box)
    ann, ben = rows["Ann"], rows["Ben"]
    assert [r["name"] for r in rows.values()] == ["Ann", "Ben"]  # most wins first
    assert (ann["games"], ann["wins"], ben["wins"]) == (4, 3, 1)
    assert {k: (v["games"], v["wins"]) for k, v in per_game(ann).items()} == {
        "kids": (3, 3),
        "twist": (1, 0),
    }
    assert [g["game"] for g in ann["by_game"]] == ["kids", "twist"]  # the most played first
    assert per_game(ben)["twist"]["wins"] == 1
    # Kids: the best round is the fewest cards left; Twist: the most points (−6 < 0)
    assert per_game(ben)["kids"]["best_round"] == {
        "points": 2,
        "round": 1,
        "game_id": second,
        "started": box.log.game(second).started,  # type: ignore[union-attr]
    }
    assert per_game(ann)["kids"]["best_round"]["game_id"] == first  # 0 cards, the first time
    assert per_game(ben)["twist"]["best_round"]["game_id"] == twist
    assert per_game(ann)["twist"]["best_round"]["points"] < 0
    # Ann won, won, lost (Twist), won; Ben lost, lost, won, lost
    assert ann["streak"] == {"longest": 2, "current": 1}
    assert ben["streak"] == {"longest": 1, "current": 0}
    # the quickest stop called: not the false start, not the voided press (1 s)
    assert ann["quickest_call"]["us"] == 2_000_000 and ann["quickest_call"]["game_id"] == second
    assert ben["quickest_call"] == {
        "us": 1_500_000,
        "game": "twist",
        "game_id": twist,
        "started": box.log.game(twist).started,  # type: ignore[union-attr]
        "round": 1,
    }
    assert "mean_us" not in ann and "best_us" not in ann


def test_a_caller_the_table_named_has_no_stop_time(box: Box, clock: ManualClock) -> None:
    box.new_game({"game": "kids", "players": ["Ann", "Ben"]})
    box.submit(table_entry({"type": "round"}))
    clock.advance(box.countdown_us + 4_000_000)
    box.submit(table_entry({"type": "caller", "seat": BEN}))
    box.submit(table_entry({"type": "left", "counts": {"Ann": 2, "Ben": 0}}))
    box.submit(table_entry({"type": "finish"}))
    ben = stats(box)["Ben"]
    assert ben["wins"] == 1 and ben["quickest_call"] is None


def test_a_past_game_is_viewed_as_it_ended(box: Box, clock: ManualClock) -> None:
    first = game(box, clock, "kids", ANN, 5_000_000, {"Ann": 0, "Ben": 4})
    box.new_game({"game": "twinit", "players": ["Ann", "Ben", "Cem"]})
    view = box.archive.view(first)
    assert view["id"] == first and view["title"] == "Ligretto Kids" and view["finished"]
    assert view["winners"] == ["Ann"] and view["players"] == ["Ann", "Ben"]
    assert view["standings"] == [{"name": "Ann", "total": 0}, {"name": "Ben", "total": 4}]
    assert view["history"] == [
        {
            "round": 1,
            "caller": "Ann",
            "points": {"Ann": 0, "Ben": 4},
            "totals": {"Ann": 0, "Ben": 4},
            "winners": ["Ann"],
        }
    ]
    now = box.archive.view(box.game_id)  # type: ignore[arg-type]
    assert not now["finished"] and now["history"] == [] and len(now["standings"]) == 3


def test_a_past_game_is_played_again_with_its_players_and_settings(
    box: Box, clock: ManualClock
) -> None:
    fields = {"rounds": 4, "variants": ["row-storage"]}
    box.new_game({"game": "ligretto", "players": ["Ann", "Ben", "Cem"], **fields})
    old = box.game_id
    assert old is not None
    box.new_game({"game": "kids", "players": ["Dan", "Eve"]})
    assert box.archive.rematch_fields(old) == {
        "game": "ligretto",
        "players": ["Ann", "Ben", "Cem"],
        "rounds": 4,
        "variants": ["row-storage"],
    }


def test_ligrettos_best_round_is_the_most_points(box: Box, clock: ManualClock) -> None:
    box.new_game({"game": "ligretto", "players": ["Ann", "Ben"]})
    round_called(box, clock, ANN, 30_000_000)
    box.submit(table_entry({"type": "stacks", "counts": {"Ann": 0, "Ben": 3}}))
    box.submit(table_entry({"type": "middle", "counts": {"Ann": 12, "Ben": 5}}))  # +12, −1
    round_called(box, clock, BEN, 20_000_000)
    box.submit(table_entry({"type": "stacks", "counts": {"Ann": 2, "Ben": 0}}))
    box.submit(table_entry({"type": "middle", "counts": {"Ann": 4, "Ben": 20}}))  # 0, +20
    box.submit(table_entry({"type": "finish"}))
    rows = stats(box)
    assert per_game(rows["Ann"])["ligretto"]["best_round"]["points"] == 12
    assert per_game(rows["Ann"])["ligretto"]["best_round"]["round"] == 1
    assert per_game(rows["Ben"])["ligretto"]["best_round"]["points"] == 20
    assert per_game(rows["Ben"])["ligretto"]["best_round"]["round"] == 2
    assert rows["Ben"]["wins"] == 1  # 19 to 12
    assert rows["Ann"]["quickest_call"]["us"] == 30_000_000  # a Ligretto round: 30 s
