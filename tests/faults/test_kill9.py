"""kill -9 at random points while a phone plays: every acknowledged entry survives,
once, in order; nothing else is in the log but the box's own start signals and at most
the one request that was in flight; after a restart the state is exactly the log's,
and the log up to an acknowledgement is exactly the state that was acknowledged.

A `Table` plays Ligretto Twist through the API from the state it sees (rounds, pad
presses and releases of the virtual pads, a caller, the cards left, undos, new games).
Even cycles kill the box in the middle of a round, odd ones in the middle of the score
entry; half of them as the next request leaves, half just after its entry reached the
log and before it was answered (the log's WAL file is watched for the write).
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from buzzerbox.store.eventlog import EventLog, StoredEvent
from buzzerbox.store.restore import replay_events

from .boxproc import Phone, Refused, ServedBox, game_of, start_box, write_config

CYCLES = 20
PLAYERS = ["Ann", "Ben", "Cem"]
#: (entries acknowledged this cycle, the state now) -> kill at the next request
KillAt = Callable[[int, dict[str, Any]], bool]


@dataclass
class Action:
    """One request of the table: acknowledged (200, with its state; a pad edge with its
    `seq`, then the state read after it) or in flight when the box died (`state` None;
    a pad edge whose state read the kill cut counts as in flight: it may be logged)."""

    path: str
    body: dict[str, Any]
    state: dict[str, Any] | None = None
    seq: int | None = None


@dataclass
class Table:
    """Plays from the state it sees. Once `kill_at` holds it notes when the log was last
    written (`wal_before`) and sets `armed` just before its next request."""

    phone: Phone
    rng: random.Random
    kill_at: KillAt
    actions: list[Action] = field(default_factory=list)
    armed: threading.Event = field(default_factory=threading.Event)
    answered: threading.Event = field(default_factory=threading.Event)
    refused: list[Refused] = field(default_factory=list)
    wal: Path | None = None
    wal_before: tuple[int, int] | None = None
    acks: int = 0
    presses: int = 0
    round: int = -1

    def next(self, state: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        phase, rng = state["phase"], self.rng
        if state["round"] != self.round:
            self.round, self.presses = state["round"], 0
        if phase in ("idle", "finished"):
            return "/api/game", {"game": "twist", "players": PLAYERS, "rounds": 2}
        if phase == "scored" and state.get("undoable") and rng.random() < 0.3:
            return "/api/event", {"type": "undo"}
        if phase in ("lobby", "scored"):
            return "/api/event", {"type": "round"}
        if phase == "countdown":
            return None
        if phase == "playing":
            seat = rng.randrange(len(PLAYERS))
            if self.presses >= rng.randint(3, 8):
                if rng.random() < 0.5:
                    return "/api/pads/press", {"seat": seat, "pad": "stop"}
                return "/api/event", {"type": "caller", "seat": seat}
            self.presses += 1
            holding = state["players"][seat]["holding"]
            if holding and rng.random() < 0.5:
                return "/api/pads/release", {"seat": seat, "pad": "pile", "pile": holding[0]}
            return "/api/pads/press", {"seat": seat, "pad": "pile", "pile": rng.randrange(8)}
        caller = state["caller"]
        counts = {n: 0 if n == caller else rng.randint(1, 40) for n in PLAYERS}
        return "/api/event", {"type": "left", "counts": counts}

    def play(self) -> None:
        """Until the box dies under it (the request then in flight is kept, unknown)."""
        try:
            state = self.phone.state()
            while True:
                step = self.next(state)
                if step is None:
                    state = self.phone.state()  # the countdown runs: poll
                    continue
                action = Action(*step)
                self.actions.append(action)
                if self.acks and self.kill_at(self.acks, state):
                    self.wal_before = written(self.wal)
                    self.armed.set()
                try:
                    answer = self.phone.post(action.path, action.body)
                except Refused as exc:
                    self.refused.append(exc)
                    self.armed.set()
                    return
                self.acks += 1
                self.answered.set()
                seq = answer.get("seq")  # a pad edge's answer: the table reads the state
                state = answer if seq is None else self.phone.state()
                action.state, action.seq = state, seq
        except (OSError, http.client.HTTPException, ValueError):
            return


KINDS = {"/api/pads/press": "press", "/api/pads/release": "release", "/api/game": "game"}


def is_posted_by(action: Action, logged: dict[str, Any]) -> bool:
    """A logged event is the one posted: its type, and every posted field as posted."""
    kind = KINDS.get(action.path, action.body.get("type"))
    fields = action.body.items()
    return logged.get("type") == kind and all(logged.get(k) == v for k, v in fields if k != "type")


def log_of(data: Path) -> list[StoredEvent]:
    log = EventLog(data / "buzzerbox.db")
    try:
        games = sorted(g.id for g in log.games())
        return [e for game in games for e in log.events(game)]
    finally:
        log.close()


def acked_in_order(actions: list[Action], logged: list[dict[str, Any]]) -> bool:
    """The log's table entries are exactly the acknowledged ones, in order, plus any of
    those whose answer never came."""

    @cache
    def fits(i: int, j: int) -> bool:
        if i == len(actions):
            return j == len(logged)
        fit = j < len(logged) and is_posted_by(actions[i], logged[j]) and fits(i + 1, j + 1)
        return fit or (actions[i].state is None and fits(i + 1, j))

    return fits(0, 0)


def replayed(events: list[StoredEvent]) -> dict[str, Any]:
    engine = replay_events(events)[0]
    state: dict[str, Any] = json.loads(json.dumps(engine.state()))
    return state


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in game_of(state).items() if k not in ("rejected", "rejected_count")}


def check_log(data: Path, actions: list[Action]) -> list[StoredEvent]:
    events = log_of(data)
    seqs = [e.seq for e in events]
    assert seqs == sorted(set(seqs))
    entries = [e.body for e in events if e.body["type"] != "go"]
    assert acked_in_order(actions, entries), "an acknowledged entry is lost, doubled or moved"
    for game in {e.game_id for e in events}:
        kinds = [e.body["type"] for e in events if e.game_id == game]
        rounds = " ".join(kinds).split("round")
        assert all(r.split().count("go") <= 1 for r in rounds), f"a start signal twice: {kinds}"
    for action in actions:  # a pad edge's answer is its seq: the logged event there is it
        if action.seq is not None:
            edge = next(e for e in events if e.seq == action.seq)
            assert is_posted_by(action, edge.body), (action, edge)
    last = next((a.state for a in reversed(actions) if a.state and "box" in a.state), None)
    if last is not None:  # the log up to an acknowledgement is the state acknowledged
        box = last["box"]
        upto = [e for e in events if e.game_id == box["game_id"] and e.seq <= box["seq"]]
        assert replayed(upto) == comparable(last)
    return events


def written(path: Path | None) -> tuple[int, int] | None:
    """When the file was last written (ns) and its size; None while there is none."""
    try:
        st = path.stat() if path is not None else None
    except FileNotFoundError:
        return None
    return None if st is None else (st.st_mtime_ns, st.st_size)


def kill_point(cycle: int, rng: random.Random) -> KillAt:
    wanted = rng.randint(1, 6)
    phases = ("playing",) if cycle % 2 == 0 else ("scoring", "scored")
    return lambda acks, state: acks >= wanted and state["phase"] in phases


def test_kill_9_at_random_points_loses_nothing_acknowledged(data: Path, tidy: list[Any]) -> None:
    config = write_config(data.parent, "countdown_s = 0.02\n")
    rng = random.Random(7)
    actions: list[Action] = []
    killed_in: list[str] = []
    events: list[StoredEvent] = []
    for cycle in range(CYCLES):
        served = start_box(data, config=config)
        tidy.append(served)
        phone = Phone(served.port).log_in()
        tidy.append(phone)
        if cycle:  # the box is back where the log left it
            events = [e for e in log_of(data) if e.game_id == events[-1].game_id]
            assert comparable(phone.state()) == replayed(events)
        table = Table(phone, rng, kill_point(cycle, rng), wal=data / "buzzerbox.db-wal")
        player = threading.Thread(target=table.play, daemon=True)
        player.start()
        assert table.armed.wait(30), "the table never reached the kill point"
        assert not table.refused, table.refused
        if cycle // 2 % 2:  # just after the entry is written, before it is answered
            table.answered.clear()
            deadline = time.monotonic() + 5
            while written(table.wal) == table.wal_before and not table.answered.wait(0.0002):
                assert time.monotonic() < deadline, "the entry was neither written nor answered"
        killed_in.append(phase_of(table))
        kill(served, player)
        actions += table.actions
        events = check_log(data, actions)
    unanswered = [a for a in actions if a.state is None]
    assert len(actions) - len(unanswered) >= 3 * CYCLES
    assert len(unanswered) == CYCLES  # one request in flight at each kill
    assert {"playing", "scoring"} <= set(killed_in)
    logged = len([e for e in events if e.body["type"] != "go"])
    assert logged > len(actions) - len(unanswered)  # some were written, never answered


def phase_of(table: Table) -> str:
    last = next(a.state for a in reversed(table.actions) if a.state and "box" in a.state)
    return "scoring" if last["phase"] in ("scoring", "scored") else str(last["phase"])


def kill(served: ServedBox, player: threading.Thread) -> None:
    served.kill()
    player.join(30)
    assert not player.is_alive()
