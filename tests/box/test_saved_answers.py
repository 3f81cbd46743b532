"""Issue 43, item 2: an answer that says saved is saved.

With the log synced behind its commits (serve's), a pad press is answered after the
log's short wait for its fsync even when the disk stalls: its answer then says
`"saved": false` (a power cut could still take it back). What the table types (a new
game, counts, undo, void, amend, an import, a rematch) is answered once it is on the
disk: `box.saved` is true in its answer. A stalled card stands for an SD card's stall:
its fsync waits until the test lets it go.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from buzzerbox.box import Box
from buzzerbox.serve import say_unsaved
from buzzerbox.store.eventlog import EventLog
from buzzerbox.testing import ManualClock
from flask.testing import FlaskClient

PLAYERS = ["Ann", "Ben", "Cem"]


class Card:
    """An SD card whose fsync can be stalled: it waits while `stalled`."""

    def __init__(self) -> None:
        self.free = threading.Event()
        self.free.set()

    def fsync(self, fd: int) -> None:
        assert self.free.wait(30), "the test never let the card go"
        os.fsync(fd)


@pytest.fixture
def card() -> Card:
    return Card()


@pytest.fixture
def box(db_path: Path, clock: ManualClock, card: Card) -> Iterator[Box]:
    # a reveal wait long enough for this machine's own fsync under load, until the stall
    log = EventLog(db_path, sync="behind", fsync=card.fsync, reveal_wait_s=10)
    box = Box(log, clock=clock)
    say_unsaved(box, log)
    yield box
    card.free.set()
    box.close()


def answered_in_a_thread(call: Any) -> tuple[threading.Thread, list[Any]]:
    answers: list[Any] = []
    thread = threading.Thread(target=lambda: answers.append(call()), daemon=True)
    thread.start()
    return thread, answers


def shown_unsaved(box: Box) -> threading.Event:
    """Set once the box shows a change before its fsync returned (the reveal wait is over)."""
    shown = threading.Event()
    box.log.when_saved.append(lambda: shown.set() if box.log.unsaved is not None else None)
    return shown


def test_a_press_in_a_stall_is_answered_unsaved_then_the_state_says_it_is_saved(
    admin: FlaskClient, box: Box, card: Card
) -> None:
    admin.post("/api/game", json={"game": "kids", "players": PLAYERS})
    admin.post("/api/event", json={"type": "round"})
    box.clock.advance(4_000_000)  # type: ignore[attr-defined]  # the countdown is over
    box.log.reveal_wait_s = 0.05
    card.free.clear()
    answer = admin.post("/api/pads/press", json={"seat": 1, "pad": "stop"}).json
    assert answer is not None and answer["saved"] is False, answer
    state = admin.get("/api/state").json
    assert state is not None and state["box"]["unsaved"] == answer["seq"]  # a read says so
    saved = threading.Event()
    box.when_changed.append(lambda s: saved.set() if s["box"].get("unsaved") is None else None)
    card.free.set()
    assert saved.wait(30)  # the fsync returned: the state says all it shows is saved
    again = admin.get("/api/state").json
    assert again is not None and again["box"]["unsaved"] is None and "saved" not in again["box"]


@pytest.mark.parametrize(
    "path, body",
    [
        ("/api/event", {"type": "round"}),
        ("/api/game", {"game": "ligretto", "players": PLAYERS, "target": 99}),
        ("/api/rematch", {}),
    ],
)
def test_what_the_table_types_is_answered_once_it_is_on_the_disk(
    admin: FlaskClient, box: Box, card: Card, path: str, body: dict[str, Any]
) -> None:
    admin.post("/api/game", json={"game": "ligretto", "players": PLAYERS, "target": 99})
    box.log.reveal_wait_s = 0.05
    shown = shown_unsaved(box)
    card.free.clear()
    thread, answers = answered_in_a_thread(lambda: admin.post(path, json=body))
    assert shown.wait(30)  # the change is logged and shown, its fsync still stalled
    assert thread.is_alive() and not answers  # ... and its answer waits for the disk
    card.free.set()
    thread.join(30)
    answer = answers[0].json
    assert answers[0].status_code == 200 and answer["box"]["saved"] is True
    assert box.log.durable_seq >= answer["box"]["seq"]


def test_a_disk_stalled_past_the_wait_is_answered_as_not_saved(
    admin: FlaskClient, box: Box, card: Card, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("buzzerbox.web.api.SAVE_WAIT_S", 0.05)
    admin.post("/api/game", json={"game": "kids", "players": PLAYERS})
    box.log.reveal_wait_s = 0.05
    card.free.clear()
    answer = admin.post("/api/event", json={"type": "round"}).json
    assert answer is not None
    assert answer["box"]["saved"] is False and answer["box"]["unsaved"] == answer["box"]["seq"]


def test_a_box_that_syncs_every_commit_answers_saved(admin: FlaskClient) -> None:
    """The web tests' usual log (sync="commit"): every answer is on the disk."""
    answer = admin.post("/api/game", json={"game": "kids", "players": PLAYERS}).json
    assert answer is not None and answer["box"]["saved"] is True
