"""The messages a box publishes, derived from its log. No I/O, no clock.

The box's SQLite log is the record; what goes to the broker is a function of it. The
`Deriver` folds the logged events through its own rules `Engine` (the same events in
give the same messages out, so a box that restarts derives exactly the messages it
may have sent before, with the same ids) and says, for each event, what to publish:

- `event`: the event itself, with `prev` (the seq of the event before it): a
  subscriber sees a gap, and drops a message it has already seen (QoS 1 may deliver
  one twice);
- `race`: when a race has a new first press, runner-up or claim slap: who was first,
  by how much (`lead_us`: the runner-up's lead, as the rules name it) and, for the
  first race of a round, how long after the start signal (`reaction_us`);
- `games/<id>`: a game's result when it finishes (and again, `finished: false`, when
  the finish is undone), with per-player race stats for the event's tournament;
- `ha/event`: "game_finished" for Home Assistant, only when the finish is fresh (a
  box catching up after an outage must not flash the venue's lights an hour late).

The state (`state_message`) is published after each batch, not for every event, with
QoS 0 (the next state replaces it; each connection sends it again).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypedDict

from buzzerbox.errors import BuzzerboxError
from buzzerbox.mqtt.topics import VERSION, message_id, topic
from buzzerbox.rules.engine import Engine
from buzzerbox.rules.phase import Phase
from buzzerbox.rules.press import Press
from buzzerbox.rules.timing import too_close
from buzzerbox.store.eventlog import StoredEvent

#: a finish older than this (s) fires no Home Assistant event
FRESH_S = 120.0
#: presses of a race that a race message lists
RACE_PRESSES = 8


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A message to publish; `seq` is the log event it carries (None: not tracked)."""

    topic: str
    payload: bytes
    retain: bool = False
    seq: int | None = None
    qos: int = 1


def dump(obj: object) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


class Envelope(TypedDict):
    """What every message of a box carries (mqtt/README.md)."""

    v: int
    id: str
    box: str
    game_id: int | None
    seq: int
    at: float


class LateJson(TypedDict):
    name: str
    lead_us: int | None


class RaceJson(Envelope):
    """A `race` message: who was first, by how much."""

    key: str
    game: str
    title: str
    round: int
    first: str
    pad: str
    reaction_us: int | None
    lead_us: int | None
    close: bool
    presses: list[dict[str, object]]
    late: list[LateJson]


class TotalJson(TypedDict):
    name: str
    total: int


class RaceStatsJson(TypedDict):
    races: int
    fastest_us: int | None
    closest_us: int | None


class ResultJson(Envelope):
    """A `games/<id>` message: a game's result (`finished: false`: withdrawn)."""

    finished: bool
    game: str
    title: str
    round: int
    high_wins: bool
    players: list[TotalJson]
    winners: list[str]
    stats: dict[str, RaceStatsJson]


@dataclass(slots=True)
class RaceStats:
    """A player's races in a game: how many they were first in, their fastest reaction
    to the start signal and their closest lead (µs; None: none yet)."""

    races: int = 0
    fastest_us: int | None = None
    closest_us: int | None = None

    def to_json(self) -> RaceStatsJson:
        return {"races": self.races, "fastest_us": self.fastest_us, "closest_us": self.closest_us}


class Deriver:
    """The messages of one box, event by event."""

    def __init__(self, box: str, *, fresh_s: float = FRESH_S) -> None:
        self.box = box
        self.fresh_s = fresh_s
        self.refused = 0
        self.seq: int | None = None
        self.at = 0.0
        self.game_id: int | None = None
        self._engine: Engine | None = None
        self._finished = False
        self._race_sig: tuple[Any, ...] | None = None
        self._round_first: tuple[int, str] | None = None
        self._stats: dict[str, RaceStats] = {}
        self._last_race: RaceJson | None = None

    # -- folding ------------------------------------------------------------------------

    def load(self, events: Iterable[StoredEvent]) -> None:
        """Catch up on events already published: fold them, publish nothing."""
        for event in events:
            self._apply(event)

    def feed(self, event: StoredEvent, now: float) -> list[Outgoing]:
        """The messages for one new event of the log (`now`: Unix s, for freshness)."""
        prev = self.seq
        race, finish = self._apply(event)
        out = [self._event_message(event, prev)]
        if race is not None:
            out.append(Outgoing(topic(self.box, "race"), dump(race), True, event.seq))
        if finish is not None:
            games = topic(self.box, "games", str(event.game_id))
            out.append(Outgoing(games, dump(finish), True, event.seq))
            if finish["finished"] and now - event.at <= self.fresh_s:
                out.append(self._ha_event(finish, event.seq))
        return out

    def _apply(self, event: StoredEvent) -> tuple[RaceJson | None, ResultJson | None]:
        body = event.body
        self.seq, self.at = event.seq, event.at
        if body.get("type") == "game":
            self._new_game(event)
            return None, None
        if self._engine is None:
            self.refused += 1
            return None, None
        try:
            self._engine.apply_dict(body)
        except BuzzerboxError:
            self.refused += 1  # the log holds accepted events only: a foreign or newer log
            return None, None
        race = self._race()
        finished = self._engine.game.phase == Phase.FINISHED
        finish = None
        if finished != self._finished:
            self._finished = finished
            finish = self._result()
        return race, finish

    def _new_game(self, event: StoredEvent) -> None:
        self.game_id = event.game_id
        self._finished = False
        self._race_sig = None
        self._round_first = None
        self._stats = {}
        try:
            self._engine = Engine.from_dict(event.body)
        except BuzzerboxError:
            self._engine = None
            self.refused += 1
            return
        for name in self._engine.game.players:
            self._stats[name] = RaceStats()

    # -- races and results -----------------------------------------------------------------

    def _race(self) -> RaceJson | None:
        """The race message if the race changed (a new first press, runner-up or slap)."""
        assert self._engine is not None
        game = self._engine.game
        if not game.race:
            return None
        first = game.race[0]
        key = f"{self.game_id}/{game.round}/{first.t_us}/{first.seat}"
        runner = game.race[1] if len(game.race) > 1 else (game.late[0] if game.late else None)
        lead = None if runner is None else runner.lead_us
        # too close to call (issue 41): the presses' errors allow no margin; none is said
        close = runner is not None and too_close(first, runner)
        sig = (key, len(game.race), lead)
        if sig == self._race_sig:
            return None
        is_new = self._race_sig is None or self._race_sig[0] != key
        self._race_sig = sig
        if self._round_first is None or self._round_first[0] != game.round:
            self._round_first = (game.round, key)
        reaction = None
        if self._round_first[1] == key and game.go_t is not None:
            reaction = first.t_us - game.go_t
        stats = self._stats.setdefault(first.name, RaceStats())
        if is_new:
            stats.races += 1
        stats.fastest_us = _least(stats.fastest_us, reaction)
        stats.closest_us = _least(stats.closest_us, None if close else lead)
        presses = [_race_press(p) for p in game.race[:RACE_PRESSES]]
        late: list[LateJson] = [{"name": p.name, "lead_us": p.lead_us} for p in game.late[:3]]
        self._last_race = {
            **self._envelope(),
            "key": key,
            "game": game.kind,
            "title": game.title,
            "round": game.round,
            "first": first.name,
            "pad": first.pad,
            "reaction_us": reaction,
            "lead_us": lead,  # the runner-up's
            "close": close,
            "presses": presses,
            "late": late,
        }
        return self._last_race

    def _result(self) -> ResultJson:
        assert self._engine is not None
        game = self._engine.game
        return {
            **self._envelope(),
            "finished": self._finished,
            "game": game.kind,
            "title": game.title,
            "round": game.round,
            "high_wins": game.high_wins,
            "players": [
                {"name": n, "total": t} for n, t in zip(game.players, game.totals, strict=True)
            ],
            "winners": list(game.winners),
            "stats": {name: s.to_json() for name, s in self._stats.items()},
        }

    def _ha_event(self, finish: ResultJson, seq: int) -> Outgoing:
        payload = {
            "event_type": "game_finished",
            **self._envelope(),  # v, id, box, game_id, seq, at: like every other message
            "game": finish["title"],
            "winners": finish["winners"],
        }
        return Outgoing(topic(self.box, "ha", "event"), dump(payload), False, seq)

    # -- messages ---------------------------------------------------------------------------

    def _envelope(self) -> Envelope:
        seq = self.seq or 0
        return {
            "v": VERSION,
            "id": message_id(self.box, self.game_id, seq),
            "box": self.box,
            "game_id": self.game_id,
            "seq": seq,
            "at": self.at,
        }

    def _event_message(self, event: StoredEvent, prev: int | None) -> Outgoing:
        payload = {**self._envelope(), "game_id": event.game_id, "prev": prev, "event": event.body}
        payload["id"] = message_id(self.box, event.game_id, event.seq)
        return Outgoing(topic(self.box, "event"), dump(payload), False, event.seq)

    def state_message(self) -> Outgoing:
        """The state now (retained): the rules' state object, the leader, the envelope."""
        engine = self._engine
        state = engine.state() if engine is not None else None
        leader: list[str] = []
        if engine is not None:
            game = engine.game
            leader = list(game.winners) if game.phase == Phase.FINISHED else []
            if not leader and game.history:
                leader = game.rank()
        payload = {
            **self._envelope(),
            "title": state["title"] if state else None,
            "round": state["round"] if state else 0,
            "phase": state["phase"] if state else Phase.IDLE,
            "finished": self._finished,
            "leader": ", ".join(leader),
            "state": state,
        }
        # QoS 0: a state is superseded by the next one and sent again (retained) on every
        # connection, so a lost one costs nothing; no PUBACK per event on either side
        return Outgoing(topic(self.box, "state"), dump(payload), True, qos=0)

    def race_message(self) -> Outgoing | None:
        """The latest race again (retained), to publish on a new connection."""
        if self._last_race is None:
            return None
        return Outgoing(topic(self.box, "race"), dump(self._last_race), True)


def _race_press(press: Press) -> dict[str, object]:
    """A press as the race message lists it (mqtt/README.md): its JSON without `t_us`."""
    return {k: v for k, v in press.to_json().items() if k != "t_us"}


def _least(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else min(a, b)
