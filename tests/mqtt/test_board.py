"""The hub's board and live stream: a fold that a redelivery cannot change (no broker)."""

from __future__ import annotations

import json
from typing import Any

from buzzerbox.hub.leaderboard import Leaderboard
from buzzerbox.live.updates import UpdatesView


def msg(**fields: Any) -> bytes:
    return json.dumps({"v": 1, "at": 0.0, **fields}).encode()


def state(seq: int, phase: str = "playing", players: int = 2, **more: Any) -> bytes:
    names = ["Ann", "Ben", "Cem"][:players]
    body = {
        "game": "ligretto",
        "title": "Ligretto",
        "round": 1,
        "phase": phase,
        "players": [{"name": n, "total": 0} for n in names],
        "winners": [],
        "race": [],
    }
    return msg(seq=seq, game_id=1, phase=phase, leader="", state={**body, **more})


def event(seq: int, prev: int | None) -> bytes:
    return msg(seq=seq, prev=prev, game_id=1, id=f"t1/1/{seq}", event={"type": "round"})


def result(box: str, game_id: int, seq: int, winners: list[str], finished: bool = True) -> bytes:
    return msg(
        id=f"{box}/{game_id}/{seq}",
        box=box,
        game_id=game_id,
        seq=seq,
        finished=finished,
        title="Ligretto",
        high_wins=True,
        players=[{"name": "Ann", "total": 30}, {"name": "Ben", "total": 12}],
        winners=winners,
        stats={},
    )


def test_events_once_each_with_gaps_seen() -> None:
    board = Leaderboard()
    seen: list[int] = []
    board.when_event.append(lambda box, data: seen.append(data.seq))
    for seq, prev in [(1, None), (2, 1), (2, 1), (1, None), (3, 2), (5, 4), (6, 5)]:
        assert board.apply("buzzerbox/t1/event", event(seq, prev)) == []
    table = board.table("t1")
    assert table is not None
    assert seen == [1, 2, 3, 5, 6]
    assert (table["events"], table["duplicates"], table["gaps"]) == (5, 2, 1)


def test_state_replaced_unless_older_and_status() -> None:
    board = Leaderboard()
    (update,) = board.apply("buzzerbox/t1/state", state(5))
    assert update[0] == "table" and update[1]["seq"] == 5 and update[1]["online"] is True
    assert board.apply("buzzerbox/t1/state", state(4, "scoring")) == []
    assert board.apply("buzzerbox/t1/state", state(5)) == []
    (update,) = board.apply("buzzerbox/t1/status", b"offline")
    assert update[1]["online"] is False and update[1]["phase"] == "playing"
    assert board.apply("buzzerbox/t1/status", b"offline") == []


def test_bad_messages_are_dropped_and_counted() -> None:
    board = Leaderboard()
    assert board.apply("buzzerbox/t1/state", b"not json") == []
    assert board.apply("buzzerbox/t1/state", b"[1, 2]") == []
    assert board.apply("buzzerbox/t1/state", msg(seq=3, state={"players": "Ann"})) == []
    assert board.apply("buzzerbox/t1/games/x", msg(seq=3, game_id="x")) == []
    bad_result = msg(seq=4, game_id=4, finished=True, players="Ann", winners=[], stats={})
    assert board.apply("buzzerbox/t1/games/4", bad_result) == []
    assert board.apply("elsewhere/t1/state", state(1)) == []
    assert board.snapshot()["dropped"] == 5
    assert board.snapshot()["tournament"] == []


def test_tournament_from_results_and_races() -> None:
    board = Leaderboard()
    board.apply("buzzerbox/t1/games/1", result("t1", 1, 40, ["Ann"]))
    board.apply("buzzerbox/t2/games/9", result("t2", 9, 80, ["Ben"]))
    updates = board.apply("buzzerbox/t2/games/9", result("t2", 9, 80, ["Ben"]))
    assert updates == []  # the same result again changes nothing
    race = msg(seq=5, game_id=3, key="3/1/100/2", first="Cem", reaction_us=812_000, lead_us=35)
    kinds = [k for k, _ in board.apply("buzzerbox/t3/race", race)]
    assert kinds == ["race", "tournament"]
    rows = {r["name"]: r for r in board.snapshot()["tournament"]}
    assert [r["name"] for r in board.snapshot()["tournament"]] == ["Ann", "Ben", "Cem"]
    assert (rows["Ann"]["games"], rows["Ann"]["wins"], rows["Ann"]["points"]) == (2, 1, 60)
    assert rows["Ann"]["tables"] == ["t1", "t2"]
    assert (rows["Cem"]["fastest_us"], rows["Cem"]["closest_us"]) == (812_000, 35)
    withdrawn = result("t1", 1, 41, [], finished=False)
    (update,) = board.apply("buzzerbox/t1/games/1", withdrawn)
    ann = next(r for r in update[1] if r["name"] == "Ann")
    assert (ann["games"], ann["wins"]) == (1, 0)


def test_photo_finishes_keyed_and_bounded() -> None:
    board = Leaderboard(finishes=3)
    for n in range(5):
        board.apply("buzzerbox/t1/race", msg(seq=n + 1, key=f"1/{n}/0/0", first="Ann", at=n))
    better = msg(seq=9, key="1/4/0/0", first="Ann", lead_us=12, at=4)
    board.apply("buzzerbox/t1/race", better)
    assert board.apply("buzzerbox/t1/race", better) == []
    finishes = board.snapshot()["finishes"]
    assert [f["key"] for f in finishes] == ["t1/1/4/0/0", "t1/1/3/0/0", "t1/1/2/0/0"]
    assert finishes[0]["lead_us"] == 12


def test_a_race_of_a_box_not_updated_names_the_lead_margin_us() -> None:
    board = Leaderboard()
    old = msg(seq=5, key="1/1/0/0", first="Ann", reaction_us=900, margin_us=40)
    board.apply("buzzerbox/t1/race", old)
    [finish] = board.snapshot()["finishes"]
    assert finish["lead_us"] == 40 and "margin_us" not in finish


def frames(chunk: bytes) -> list[tuple[str, Any]]:
    out = []
    for block in chunk.decode().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            out.append((fields["event"], json.loads(fields["data"])))
    return out


def test_live_stream_board_then_updates_then_board_when_behind() -> None:
    board = Leaderboard()
    live = UpdatesView(board.snapshot, ring=4)
    board.apply("buzzerbox/t1/state", state(1))
    stream = live.messages(keepalive_s=0.01, max_stream_s=30)
    ((tick, every), (kind, first)) = frames(next(stream))
    assert (tick, every) == ("keepalive", 10)  # at once, saying how often (ms)
    assert kind == "board" and isinstance(first, dict) and first["tables"][0]["box"] == "t1"
    live.publish(board.apply("buzzerbox/t1/state", state(2)))
    live.publish(board.apply("buzzerbox/t2/state", state(3)))
    assert [(k, d["box"]) for k, d in frames(next(stream)) if isinstance(d, dict)] == [
        ("table", "t1"),
        ("table", "t2"),
    ]
    assert next(stream) == b"event: keepalive\ndata: 10\n\n"  # an event the page watches
    for seq in range(4, 10):  # more than the ring holds: the whole board again
        live.publish(board.apply("buzzerbox/t1/state", state(seq)))
    ((kind, again),) = frames(next(stream))
    assert kind == "board" and isinstance(again, dict) and again["tables"][0]["seq"] == 9
    stream.close()


def test_live_refuses_screens_beyond_the_limit() -> None:
    live = UpdatesView(dict, max_clients=1)
    assert live.stream.join() and not live.stream.join()
    live.stream.leave()
    assert live.stream.join()


def test_a_screen_that_comes_back_gets_the_updates_since_its_last_event_id() -> None:
    board = Leaderboard()
    live = UpdatesView(board.snapshot, ring=4)
    live.publish(board.apply("buzzerbox/t1/state", state(1)))
    first = live.messages(max_stream_s=30)
    head = next(first).decode()
    last_id = head.split("id: ")[1].split("\n")[0]
    first.close()
    live.publish(board.apply("buzzerbox/t2/state", state(2)))  # while the screen was away
    live.publish(board.apply("buzzerbox/t3/state", state(3)))
    resumed = live.messages(max_stream_s=30, last_version=live.stream.version_of(last_id))
    assert [(k, d["box"]) for k, d in frames(next(resumed)) if isinstance(d, dict)] == [
        ("table", "t2"),
        ("table", "t3"),
    ]
    resumed.close()
    odd = ("²", "١", "9" * 5000)  # digits int() refuses or reads, too long: not a version
    boot = live.stream.boot
    assert [live.stream.version_of(f"{v}.{boot}") for v in odd] == [None, None, None]
    for unknown in (
        "1",
        f"1.{live.stream.boot}x",
        "99." + live.stream.boot,
    ):  # another hub's, or later
        again = live.messages(max_stream_s=30, last_version=live.stream.version_of(unknown))
        assert [k for k, _ in frames(next(again))] == ["keepalive", "board"]
        again.close()
