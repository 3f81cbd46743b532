"""What the archive keeps of the games it read back (box/kept.py, issue 39, item 6): a
finished game's view or export is computed once, the game in play once an `every_s`
at most, one computation at a time; on a driven clock."""

from __future__ import annotations

import threading

from buzzerbox.box.kept import Kept


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def test_an_answer_is_computed_once_per_version_of_its_game() -> None:
    kept = Kept(clock=Clock())
    for _ in range(3):
        assert kept.get(("view", 7), (1.0, "finished"), False, lambda: "v1") == "v1"
    assert kept.computed == 1
    # an undo of its finish changes the game: computed again
    assert kept.get(("view", 7), (2.0, "scoring"), False, lambda: "v2") == "v2"
    assert kept.computed == 2


def test_the_game_in_play_is_computed_once_an_every_s_at_most() -> None:
    clock = Clock()
    kept = Kept(every_s=5.0, clock=clock)
    assert kept.get(("log", 9), (1.0, "playing"), True, lambda: "seq 1") == "seq 1"
    clock.now = 4.9  # a press since: the kept one is served, 4.9 s old
    assert kept.get(("log", 9), (2.0, "playing"), True, lambda: "seq 2") == "seq 1"
    clock.now = 5.1
    assert kept.get(("log", 9), (3.0, "playing"), True, lambda: "seq 3") == "seq 3"
    assert kept.computed == 2
    # a finished game is never served an older version
    assert kept.get(("log", 9), (4.0, "finished"), False, lambda: "end") == "end"


def test_what_is_kept_is_bounded() -> None:
    kept = Kept(most=3, most_chars=100, clock=Clock())
    for n in range(5):
        kept.get(("log", n), (0.0, "finished"), False, lambda: "x" * 30)
    assert kept.get(("log", 0), (0.0, "finished"), False, lambda: "again") == "again"
    kept.get(("log", 99), (0.0, "finished"), False, lambda: "y" * 101)  # too large to keep
    assert kept.get(("log", 99), (0.0, "finished"), False, lambda: "z") == "z"


def test_a_crowd_asking_at_once_costs_one_computation() -> None:
    kept = Kept(clock=Clock())
    started, go = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        go.wait(10)
        return "replayed"

    answers: list[str] = []
    crowd = [
        threading.Thread(
            target=lambda: answers.append(kept.get(("view", 1), (1.0, "finished"), False, slow))
        )
        for _ in range(16)
    ]
    for one in crowd:
        one.start()
    assert started.wait(10)
    go.set()
    for one in crowd:
        one.join(10)
    assert answers == ["replayed"] * 16 and kept.computed == 1
