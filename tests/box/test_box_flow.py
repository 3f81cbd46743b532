"""The box: engine -> log -> listeners, the countdown, resuming, its timeline, its pads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from buzzerbox.box import Box, NoGameError, NotFinishedError, Pad, Played, Refused
from buzzerbox.box.checks import table_entry
from buzzerbox.box.enrol import lit_pads
from buzzerbox.fixtures import MakeBox
from buzzerbox.pads.fakes.edges import pad_edge
from buzzerbox.rules.errors import IllegalEventError, InvalidEventError
from buzzerbox.rules.eventjson import parse_edge
from buzzerbox.store.eventlog import StoreError
from buzzerbox.testing import ManualClock

PLAYERS = ["Ann", "Ben", "Cem"]


def started(box: Box, clock: ManualClock, game: str = "ligretto", **fields: Any) -> None:
    box.new_game({"game": game, "players": PLAYERS, **fields})
    box.submit(table_entry({"type": "round"}))
    clock.advance(box.countdown_us)
    assert box.state()["phase"] == "playing"


def without_pad_test(state: Mapping[str, Any]) -> dict[str, Any]:
    """The state but the pad test's edges (kept in memory: the last since the box started)."""
    return {**state, "box": {k: v for k, v in state["box"].items() if k != "pad_test"}}


def test_a_round_counts_down_then_the_box_gives_the_start_signal(
    box: Box, clock: ManualClock
) -> None:
    box.new_game({"game": "ligretto", "players": PLAYERS})
    state = box.submit(table_entry({"type": "round"}))
    assert state["phase"] == "countdown"
    assert state["box"]["countdown"] == "go"
    assert state["box"]["countdown_ends_us"] == clock.now + 3_000_000
    clock.advance(2_999_999)
    assert box.state()["phase"] == "countdown"
    clock.advance(1)
    state = box.state()
    assert state["phase"] == "playing"
    assert state["go_t_us"] == clock.now
    assert state["box"]["countdown_ends_us"] is None
    assert box.log.events(box.game_id or 0)[-1].body == {"type": "go", "t_us": clock.now}


def test_finishing_during_the_countdown_cancels_the_start_signal(
    box: Box, clock: ManualClock
) -> None:
    box.new_game({"game": "ligretto", "players": PLAYERS})
    box.submit(table_entry({"type": "round"}))
    box.submit(table_entry({"type": "finish"}))
    clock.advance(5_000_000)
    assert box.state()["phase"] == "finished"
    assert [e.body["type"] for e in box.log.events(box.game_id or 0)][-1] == "finish"


def test_every_accepted_event_is_logged_and_announced_in_order(box: Box) -> None:
    seen: list[int] = []
    box.when_changed.append(lambda state: seen.append(state["box"]["seq"]))
    box.new_game({"game": "kids", "players": PLAYERS})
    box.submit(table_entry({"type": "round"}))
    assert seen == [1, 2]
    assert box.log.last_seq() == 2


def test_a_refused_event_changes_nothing_and_logs_nothing(box: Box, clock: ManualClock) -> None:
    started(box, clock)
    before = box.state()
    with pytest.raises(IllegalEventError, match="no stacks now"):
        box.submit(table_entry({"type": "stacks", "counts": dict.fromkeys(PLAYERS, 1)}))
    with pytest.raises(InvalidEventError, match="cannot be posted"):
        box.submit(table_entry({"type": "go", "t_us": 5}))
    assert box.state() is before
    assert box.log.last_seq() == before["box"]["seq"]


def test_nothing_is_accepted_before_a_game(box: Box) -> None:
    with pytest.raises(NoGameError, match="start a new game"):
        box.submit(table_entry({"type": "round"}))
    assert box.state()["phase"] == "idle"


def test_a_restarted_box_resumes_the_game_where_it_stood(
    box: Box, clock: ManualClock, make_box: MakeBox
) -> None:
    started(box, clock)
    box.play(parse_edge(True, 1, "stop", clock.now + 10))
    box.submit(table_entry({"type": "stacks", "counts": {"Ann": 3, "Ben": 0, "Cem": 5}}))
    again = make_box(clock=ManualClock(now=clock.now))
    assert without_pad_test(again.state()) == without_pad_test(box.state())
    assert again.state()["undoable"] == "stacks"


def test_a_box_restarted_in_the_countdown_counts_down_again(
    box: Box, clock: ManualClock, make_box: MakeBox
) -> None:
    box.new_game({"game": "ligretto", "players": PLAYERS})
    box.submit(table_entry({"type": "round"}))
    later = ManualClock(now=clock.now + 10_000_000)
    again = make_box(clock=later)
    assert again.state()["box"]["countdown_ends_us"] == later.now + 3_000_000
    later.advance(3_000_000)
    assert again.state()["phase"] == "playing"


def test_after_a_reboot_the_box_timeline_never_runs_behind_the_log(
    box: Box, clock: ManualClock, make_box: MakeBox
) -> None:
    clock.now = 50_000_000_000
    started(box, clock)
    box.play(parse_edge(True, 0, "stop", clock.now))
    rebooted = ManualClock(now=2_000_000)  # the host clock starts again near 0
    again = make_box(clock=rebooted)
    assert again.now_us() > box.state()["race"][0]["t_us"]
    again.submit(table_entry({"type": "stacks", "counts": {"Ann": 0, "Ben": 2, "Cem": 2}}))
    again.submit(table_entry({"type": "middle", "counts": {"Ann": 9, "Ben": 9, "Cem": 9}}))
    again.submit(table_entry({"type": "round"}))
    rebooted.advance(3_000_000)
    state = again.play(parse_edge(True, 1, "stop", again.now_us()))
    assert state["caller"] == "Ben"  # a real call, not a press out of order


def test_virtual_presses_stay_in_time_order(box: Box, clock: ManualClock) -> None:
    started(box, clock)
    box.play(parse_edge(True, 0, "stop", clock.now + 100))
    state = box.play(parse_edge(True, 1, "stop", clock.now + 50))  # took the lock second
    # just after the first, not at its µs: equal times would be a tie (game log v1.1)
    assert [r["t_us"] for r in state["late"]] == [clock.now + 101]
    assert state["caller"] == "Ann" and not state["tie"]


def test_a_log_that_cannot_be_written_leaves_the_game_as_the_log_has_it(
    box: Box, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    started(box, clock)
    before = box.state()

    def broken(*args: object) -> int:
        raise StoreError("the log box.db cannot be written: disk I/O error")

    monkeypatch.setattr(box.log, "append", broken)
    with pytest.raises(StoreError):
        box.play(parse_edge(True, 0, "stop", clock.now))
    assert box.state()["phase"] == before["phase"] == "playing"


def test_an_import_becomes_the_current_game_with_its_refusals(box: Box) -> None:
    text = (
        '{"type":"game","game":"kids","players":["Ann","Ben"]}\n\n'
        '{"type":"round"}\n{"type":"stacks","counts":{}}\nnot json\n{"type":"go","t_us":7}\n'
    )
    state = box.import_log(text)
    assert state["phase"] == "playing"
    assert [r["line"] for r in state["rejected"]] == [4, 5]
    assert box.archive.export_log().splitlines()[1:] == [
        '{"type":"round"}',
        '{"type":"go","t_us":7}',
    ]
    with pytest.raises(InvalidEventError, match="line 1"):
        box.import_log('{"type":"round"}\n')


def test_exports_of_scores_need_a_finished_game(box: Box, clock: ManualClock) -> None:
    started(box, clock, game="kids", rounds=1)
    with pytest.raises(NotFinishedError, match="not finished"):
        box.archive.export_csv()
    box.play(parse_edge(True, 2, "stop", clock.now))
    box.submit(table_entry({"type": "left", "counts": {"Ann": 3, "Ben": 5, "Cem": 0}}))
    assert box.archive.export_csv().splitlines()[-1] == "rank,,2,3,1"
    bgstats = box.archive.export_bgstats()
    assert bgstats["play"]["players"][2]["winner"] is True
    assert bgstats["link"].startswith("https://app.bgstatsapp.com/createPlay.html?data=")


def test_a_simulated_box_has_a_virtual_pad_per_seat_role_and_pile(box: Box) -> None:
    box.new_game({"game": "twist", "players": ["Ann", "Ben"]})
    pads = box.pads()
    assert len(pads) == 2 * (1 + 4)
    assert pads[1] == Pad("s0-pile0", "pile", 0, pile=0, label="Ann pile 1")


def test_the_first_pressers_pad_and_blocked_piles_light(box: Box, clock: ManualClock) -> None:
    lit: list[list[str]] = []
    box.when_lit.append(lit.append)
    started(box, clock, game="twist", players=["Ann", "Ben"])
    box.play(parse_edge(True, 1, "pile", clock.now + 1, 2))
    assert lit[-1] == ["s0-pile2"]  # Ben's hand blocks pile 2 for Ann
    box.play(parse_edge(True, 0, "stop", clock.now + 2))
    assert lit[-1] == ["s0-stop"]
    assert box.state()["box"]["lit"] == ["s0-stop"]


def test_lights_of_a_twin_it_claim() -> None:
    pads = [Pad("a", "slap", 0), Pad("b", "slap", 1)]
    assert lit_pads({"race": [{"seat": 1, "pad": "slap"}]}, pads) == ["b"]


def test_a_pad_edge_the_rules_refuse_is_counted_not_raised(box: Box, clock: ManualClock) -> None:
    started(box, clock)
    refused = box.pad_edge(pad_edge("nowhere", True, clock.now))
    assert refused == Refused("pad nowhere is not in the pad map")
    refused = box.pad_edge(pad_edge("s0-slap", True, clock.now))
    assert isinstance(refused, Refused) and "slap" in refused.reason
    assert box.pad_refusals == 2
    played = box.pad_edge(pad_edge("s2-stop", True, clock.now))
    assert played == Played(2, "stop", None, pressed=True)
    assert box.state()["caller"] == "Cem"
    assert box.log.events(box.game_id or 0)[-1].body["pad_id"] == "s2-stop"


def test_a_twin_it_split_counts_down_without_a_start_signal(box: Box, clock: ManualClock) -> None:
    started(box, clock, game="twinit")
    box.play(parse_edge(True, 0, "slap", clock.now))
    state = box.submit(table_entry({"type": "claim", "result": "split"}))
    assert state["box"]["countdown"] == "split"
    seq = state["box"]["seq"]
    clock.advance(3_000_000)
    assert box.state()["box"]["countdown"] is None
    assert box.state()["box"]["seq"] == seq
