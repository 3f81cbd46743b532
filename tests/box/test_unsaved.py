"""A box whose log syncs behind its commits (serve's): a change whose fsync stalls is
shown after the reveal wait with `box.unsaved` naming it, and the state says it is
saved once the fsync returns; with no stall nothing shown is unsaved."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

from buzzerbox.box import Box
from buzzerbox.box.boxjson import BoxJson
from buzzerbox.box.checks import table_entry
from buzzerbox.serve import say_unsaved
from buzzerbox.store.eventlog import EventLog
from buzzerbox.testing import ManualClock


def until(check: Callable[[], bool]) -> None:
    waited = threading.Event()
    for _ in range(500):
        if check():
            return
        waited.wait(0.01)
    raise AssertionError("never happened")


def test_a_stalled_fsync_shows_the_change_unsaved_then_saved(
    tmp_path: Path, clock: ManualClock
) -> None:
    card = threading.Event()
    card.set()

    def fsync(fd: int) -> None:
        assert card.wait(10)
        os.fsync(fd)

    # a wait long enough for this machine's own fsync under any load, until the stall
    log = EventLog(tmp_path / "box.db", sync="behind", fsync=fsync, reveal_wait_s=10)
    box = Box(log, clock=clock)
    say_unsaved(box, log)
    shown: list[BoxJson] = []
    box.when_changed.append(lambda state: shown.append(state["box"]))
    box.new_game({"game": "twist", "players": ["Ann", "Ben"]})
    box.submit(table_entry({"type": "round"}))
    assert all(s.get("unsaved") is None for s in shown)  # no stall: all shown was on disk
    log.reveal_wait_s = 0.05
    card.clear()  # the card stalls
    state = box.new_game({"game": "twist", "players": ["Cem", "Dan"]})
    seq = state["box"]["seq"]
    assert state["box"]["unsaved"] == seq  # shown (after the reveal wait), and said unsaved
    assert log.durable_seq < seq
    card.set()
    until(lambda: box.state()["box"]["unsaved"] is None)
    assert shown[-1]["unsaved"] is None and shown[-1]["seq"] == seq  # the phones are told
    box.close()
