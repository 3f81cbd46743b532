"""The event's board: every table, the tournament, the latest photo finishes.

A fold over the boxes' messages (buzzerbox.mqtt.topics). Each kind is idempotent, so
what QoS 1 delivers twice, or a box sends again after a restart, changes nothing:

- `state` replaces a table's state unless it is older (a lower seq) than the one held;
- `event` is counted once per (box, seq): a seq at or below the last seen is a
  duplicate; an event whose `prev` is not the last seen shows a gap;
- `race` replaces the photo finish with the same key (the page lists the latest by
  the time the box logged them, so a box catching up does not push others out);
- `games/<id>` sets or (finished: false) withdraws a game's result; a result at or
  below the seq of a withdrawal (or of the admin's strike) never counts again, also
  replayed after a restart of the hub (the record keeps the seqs; issue 39, item 4).

The tournament, per player name (one person at every table), from the finished games and
races: games, wins, points (final totals where the highest wins; Kids: wins only), the
fastest reaction and the closest win (the smallest lead).

Everything from the broker is untrusted: with the event's key (`signer`, mqtt/sign.py) only
what verifies gets in (the rest is counted in `refused`, `count_refused`); each message is
then checked and copied by validate.py (a bad one is dropped and counted per reason).
Tables, results and players are bounded. A table offline for `forget_after_s`, or removed
by the admin, stays gone until its box says "online" or sends a newer state; a result the
admin struck stays out. `record()`/`restore()`: the hub's own record.

`apply` returns the updates for the page: ("table", summary), ("race", finish), ("tournament",
rows), ("gone", {"box"}), ("broker", status). No I/O; thread-safe.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from buzzerbox.hub import validate
from buzzerbox.hub.errors import InvalidMessageError, NotRemovableError, no_result, no_table
from buzzerbox.hub.messages import (
    EventMessage,
    Finish,
    Message,
    RaceMessage,
    ResultMessage,
    StateMessage,
)
from buzzerbox.hub.tables import (
    BoardRecord,
    BoardView,
    Record,
    SavedBoard,
    Table,
    TableSummary,
    TournamentRow,
    least,
    parse_record,
    ranked,
)
from buzzerbox.mqtt.sign import Signer
from buzzerbox.mqtt.topics import OFFLINE, ONLINE, parse_topic

Update = tuple[str, Any]
#: photo finishes kept for the page
FINISHES = 12
#: boxes the board holds at most (a flood of made-up names is dropped)
MAX_TABLES = 500
#: a table offline this long (s) drops off the board
FORGET_AFTER_S = 3600.0
#: finished games held at most, names in the tournament at most, and the rows of it
#: a page is sent (the best first): a flood of made-up results or names is bounded
MAX_RESULTS = 2000
MAX_PLAYERS = 2000
TOURNAMENT_ROWS = 300


class Leaderboard:
    """Every table of the event, folded from the broker's messages."""

    def __init__(
        self,
        finishes: int = FINISHES,
        *,
        max_tables: int = MAX_TABLES,
        forget_after_s: float = FORGET_AFTER_S,
        signer: Signer | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.max_finishes = finishes
        self.max_tables = max_tables
        self.forget_after_s = forget_after_s
        self.clock = clock
        #: with the event's key, only what verifies (sign.py) gets in; `refused` counts
        #: the rest (also in `dropped`, as "not signed" or "bad signature")
        self.signer = signer
        self.refused = 0
        #: messages dropped, per reason ("bad text", "too large", ...)
        self.dropped: dict[str, int] = {}
        #: changes since the start: the record is saved when it moves
        self.changes = 0
        #: called with (box, event message) for each event accepted, once, in order
        self.when_event: list[Callable[[str, EventMessage], None]] = []
        self._lock = threading.Lock()
        self._broker: dict[str, object] = {"state": "connecting", "reason": "", "text": ""}
        self._tables: dict[str, Table] = {}
        #: tables gone (forgotten or removed): box -> the seq of the last state held
        self._gone: dict[str, int] = {}
        #: results the admin removed or their box withdrew: (box, game_id) -> the seq up
        #: to which none counts (in the record: a replayed result stays out for good)
        self._struck: dict[tuple[str, int], int] = {}
        self._results: dict[tuple[str, int], ResultMessage] = {}
        self._finishes: dict[str, Finish] = {}
        self._records: dict[str, Record] = {}
        #: per player, the fastest reaction and the closest win seen in races
        self._from_races: dict[str, tuple[int | None, int | None]] = {}

    # -- folding ------------------------------------------------------------------------

    def apply(self, topic: str, payload: bytes) -> list[Update]:
        """Fold one message; the updates for the page (none if it changed nothing)."""
        parsed = parse_topic(topic)
        if parsed is None or parsed.kind in ("ha", "claim"):
            return []
        if self.signer is not None and parsed.kind != "status":
            why = self.signer.verify(topic, payload)
            if why is not None:
                self.count_refused(why)
                return []
        try:
            data = None if parsed.kind == "status" else validate.message(parsed.kind, payload)
            if data is None and payload not in (ONLINE.encode(), OFFLINE.encode()):
                raise InvalidMessageError("bad status")
        except InvalidMessageError as exc:
            self.count_drop(str(exc))
            return []
        with self._lock:
            if parsed.box in self._gone and not self._back(parsed.box, data, payload):
                return []
            table = self._tables.get(parsed.box)
            if table is None:
                if parsed.kind == "status" and self.signer is not None:
                    self._drop("status of no table")  # unsigned: it marks, never adds
                    return []
                if len(self._tables) >= self.max_tables and not self._make_room():
                    self._drop("too many boxes")
                    return []
                table = self._tables[parsed.box] = Table(parsed.box)
            table.seen = self.clock()
            self.changes += 1
            if data is None:  # a status
                online = payload == ONLINE.encode()
                if online == table.online:
                    return []
                table.online = online
                return [("table", table.summary())]
            if isinstance(data, StateMessage):
                return self._state(table, data)
            if isinstance(data, EventMessage):
                self._event(table, data)
                return []
            if isinstance(data, RaceMessage):
                return self._race(table, data)
            return self._game(table, data)

    def count_refused(self, why: str) -> None:
        with self._lock:  # a message the event's key refused (why: sign.py's)
            self.refused += 1
            self._drop(why)

    def count_drop(self, reason: str) -> None:
        with self._lock:
            self._drop(reason)

    def _drop(self, reason: str) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + 1

    def set_broker(self, status: Mapping[str, object]) -> list[Update]:
        """The hub's link to the broker (BrokerLinkStatus.to_json()), for the page."""
        with self._lock:
            self._broker = dict(status)
        return [("broker", dict(status))]

    def broker(self) -> dict[str, object]:
        with self._lock:
            return dict(self._broker)

    def forget_idle(self) -> list[Update]:
        """Drop the tables offline for longer than `forget_after_s`."""
        now = self.clock()
        with self._lock:
            gone = [
                t.box
                for t in self._tables.values()
                if t.online is False and now - t.seen > self.forget_after_s
            ]
            for box in gone:
                self._take_off(box)
        return [("gone", {"box": box}) for box in gone]

    def remove(self, box: str) -> list[Update]:
        """The admin takes a table off the board (online too: a real box comes back
        with its next state); NotRemovableError if there is none."""
        with self._lock:
            if box not in self._tables:
                raise NotRemovableError(404, no_table(box))
            self._take_off(box)
        return [("gone", {"box": box})]

    def remove_result(self, box: str, game_id: int) -> list[Update]:
        """The admin strikes a game's result from the tournament; the same result sent
        again (retained) stays out, a newer one of that game counts."""
        with self._lock:
            held = self._results.pop((box, game_id), None)
            if held is None:
                raise NotRemovableError(404, no_result(box, game_id))
            self._strike((box, game_id), held.seq)
            self._recount()
            self.changes += 1
            return [("tournament", self._tournament())]

    def _strike(self, key: tuple[str, int], seq: int) -> None:
        self._struck.pop(key, None)  # the newest last: the oldest is forgotten first
        self._struck[key] = seq
        while len(self._struck) > MAX_RESULTS:
            del self._struck[next(iter(self._struck))]

    def _make_room(self) -> bool:
        """Full: let the table seen longest ago go, if it holds no result (a flood of
        made-up names without a key pushes out only tables that never finished)."""
        holding = {b for b, _ in self._results}
        idle = [t for t in self._tables.values() if t.box not in holding]
        if not idle:
            return False
        self._take_off(min(idle, key=lambda t: t.seen).box)
        return True

    def _take_off(self, box: str) -> None:
        self._gone[box] = self._tables.pop(box).state_seq
        while len(self._gone) > self.max_tables:  # the oldest gone is forgotten
            del self._gone[next(iter(self._gone))]
        self.changes += 1

    def _back(self, box: str, data: Message | None, payload: bytes) -> bool:
        """A message of a table gone: True (and the table comes back) if its box is."""
        if data is None and payload == ONLINE.encode() and self.signer is None:
            del self._gone[box]
            return True
        if isinstance(data, StateMessage) and data.seq > self._gone[box]:
            del self._gone[box]
            return True
        return False

    def _state(self, table: Table, data: StateMessage) -> list[Update]:
        if data.seq <= table.state_seq:
            return []
        table.state, table.state_seq = data, data.seq
        if table.online is None:
            table.online = True
        return [("table", table.summary())]

    def _event(self, table: Table, data: EventMessage) -> None:
        seq = data.seq
        if table.last_event is not None and seq <= table.last_event:
            table.duplicates += 1
            return
        prev = data.prev
        if table.last_event is not None and prev is not None and prev != table.last_event:
            table.gaps += 1
        table.last_event = seq
        table.events += 1
        for listener in list(self.when_event):
            listener(table.box, data)

    def _race(self, table: Table, data: RaceMessage) -> list[Update]:
        key = f"{table.box}/{data.key}"
        held = self._finishes.get(key)
        if held is not None and held.race.seq >= data.seq:
            return []
        finish = self._finishes[key] = Finish(key, table.box, data)
        if len(self._finishes) > self.max_finishes:  # the oldest race goes, by the box's time
            del self._finishes[min(self._finishes.values(), key=Finish.when).key]
        updates: list[Update] = [("race", finish.to_json())]
        first = data.first
        if first not in self._records and len(self._records) >= MAX_PLAYERS:
            self._drop("too many players")
            return updates
        fastest, closest = self._from_races.get(first, (None, None))
        fastest = least(fastest, data.reaction_us)
        closest = least(closest, None if data.close else data.lead_us)  # issue 41
        self._from_races[first] = (fastest, closest)
        record = self._record(first)
        best = (least(record.fastest_us, fastest), least(record.closest_us, closest))
        if best != (record.fastest_us, record.closest_us):
            record.fastest_us, record.closest_us = best
            updates.append(("tournament", self._tournament()))
        return updates

    def _game(self, table: Table, data: ResultMessage) -> list[Update]:
        assert data.game_id is not None  # validate.result_message refuses a result without
        key = (table.box, data.game_id)
        held = self._results.get(key)
        if held is not None and held.seq >= data.seq:
            return []
        if data.seq <= self._struck.get(key, -1):
            return []  # the admin struck it, or its box withdrew it since
        if not data.finished:  # withdrawn: no result of it up to here counts again
            self._strike(key, data.seq)
            if held is None:
                return []
        elif held is None and len(self._results) >= MAX_RESULTS:
            self._drop("too many results")
            return []
        if data.finished:
            self._results[key] = data
        else:
            del self._results[key]
        if held is None:
            self._add_result(table.box, data)
        else:  # a result taken back or replaced: count every game again (rare)
            self._recount()
        return [("tournament", self._tournament())]

    # -- the tournament -----------------------------------------------------------------

    def _record(self, name: str) -> Record:
        record = self._records.get(name)
        if record is None:
            record = Record(name)
            if len(self._records) < MAX_PLAYERS:  # else counted nowhere
                self._records[name] = record
        return record

    def _add_result(self, box: str, result: ResultMessage) -> None:
        winners = set(result.winners)
        for player in result.players:
            record = self._record(player.name)
            record.tables.add(box)
            record.games += 1
            record.wins += player.name in winners
            if result.high_wins and player.total is not None:
                record.points += player.total
        for name, stats in result.stats.items():
            record = self._record(name)
            record.fastest_us = least(record.fastest_us, stats.fastest_us)
            record.closest_us = least(record.closest_us, stats.closest_us)

    def _recount(self) -> None:
        self._records = {}
        for (box, _), result in self._results.items():
            self._add_result(box, result)
        for name, (fastest, closest) in self._from_races.items():
            record = self._record(name)
            record.fastest_us = least(record.fastest_us, fastest)
            record.closest_us = least(record.closest_us, closest)

    def _tournament(self) -> list[TournamentRow]:
        return ranked(self._records.values(), TOURNAMENT_ROWS)

    # -- reading ------------------------------------------------------------------------

    def snapshot(self) -> BoardView:
        """Everything the page shows, at once."""
        with self._lock:
            latest = sorted(self._finishes.values(), key=Finish.when, reverse=True)
            return {
                "tables": [self._tables[b].summary() for b in sorted(self._tables)],
                "tournament": self._tournament(),
                "finishes": [f.to_json() for f in latest],
                "dropped": sum(self.dropped.values()),
                "dropped_by": dict(self.dropped),
                "refused": self.refused,
                "signed": self.signer is not None,
                "broker": dict(self._broker),
            }

    def table(self, box: str) -> TableSummary | None:
        with self._lock:
            table = self._tables.get(box)
            return None if table is None else table.summary()

    # -- the hub's own record -------------------------------------------------------------

    def record(self) -> BoardRecord:
        """What the hub keeps over a restart of itself or of the broker (JSON)."""
        with self._lock:
            held = self._tables, self._results, self._finishes, self._from_races, self._gone
            return SavedBoard(*held, self._struck).to_json()

    def restore(self, saved: Mapping[str, Any]) -> None:
        """Take back a record (`record()`); raises InvalidMessageError if it is not one."""
        tables, results, finishes, races, gone, struck = parse_record(saved)
        with self._lock:
            self._tables, self._results, self._gone = tables, results, gone
            self._struck = struck
            self._finishes, self._from_races = finishes, races
            self._recount()
