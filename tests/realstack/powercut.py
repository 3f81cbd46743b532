"""The tier's one VM through all its boots and power cuts (issue 43, item 4).

The tests of tests/realstack run in order on one VM (`Appliance`), booted from a copy
of the installed disk, on which the box has never started (images.py): a boot costs a
minute of software emulation, so each boot serves several tests, and every test boots
the VM when it finds it off (`up`). Every power cut is followed by a boot that checks
that the box came back by itself (`comes_back`): it answers, its journal tells of no
trouble, and every event it had answered as saved is in its log as it was.

"Saved" is what the box's answers say: an answer whose state has no `box.unsaved`
(serve reports it only once the log has shown an event before its fsync; none since
the last fsync caught up) says that all it shows is on the disk (store/behind.py), so
every event up to its `box.seq` is saved. `Play` notes each such answer and reads
the log's rows up to it back, in the VM, before the cut; after the cut they must be
there, unchanged.
"""

from __future__ import annotations

import http.client
import json
import random
import subprocess
import threading
import time
from typing import Any

from tests.faults.boxproc import Phone, Refused

from .appliance import (
    BOOT_S,
    DOWN,
    PLAYERS,
    SLAP,
    UP,
    Table,
    Timeline,
    boot_box,
    journal_trouble,
    pulls,
)
from .vm import Vm, VmError

LOG_MADE = r"buzzerbox-log-made"
"""guest/log-made.service's console line: the box's log file has just appeared."""
FRESH = "systemctl stop buzzerbox log-made.service && rm -rf /var/lib/buzzerbox && sync"
"""A box that never started: no data folder (the unit makes it at its first start)."""

Rows = dict[int, tuple[int, str]]


def rows(vm: Vm, after: int, upto: int) -> Rows:
    """The log's events after..upto (seq -> game, body), read in the VM."""
    sql = f"SELECT seq, game, body FROM events WHERE seq > {after} AND seq <= {upto}"
    out = vm.ssh(f'sqlite3 -json /var/lib/buzzerbox/buzzerbox.db "{sql}"').stdout
    return {r["seq"]: (r["game"], r["body"]) for r in json.loads(out or "[]")}


class Appliance:
    """The VM, the PIN install.sh made, and what the box has answered as saved."""

    def __init__(self, vm: Vm, pin: str) -> None:
        self.vm = vm
        self.pin = pin
        self.saved = 0
        self.kept: Rows = {}
        self.cuts: list[str] = []  # each cut, said in words
        self.timeline = Timeline()  # the box's times on this boot

    def up(self) -> None:
        """Boot the VM if it is off; the box started by itself."""
        if not self.vm.running:
            self.comes_back()

    def table(self) -> Table:
        self.up()
        return Table(self.vm, self.pin, self.timeline)

    def comes_back(self) -> dict[str, Any]:
        """Boot: the box starts by itself with the same PIN, answers, has kept all it
        answered as saved, and its journal tells of no trouble; its state."""
        assert boot_box(self.vm) == self.pin, self.cuts
        self.timeline = Timeline()
        phone = Phone(self.vm.http_port, timeout=60)
        state = phone.state()
        phone.close()
        assert state["box"]["seq"] >= self.saved, self.cuts
        assert rows(self.vm, 0, self.saved) == self.kept, f"saved events lost: {self.cuts}"
        assert journal_trouble(self.vm) == [], self.cuts
        return state

    def first_start_cut(self, delay_ms: int) -> None:
        """The box's very first start (no data folder), cut `delay_ms` after its log
        file appears: at the VM's first boot if it never booted, else at a start of
        the box with its folder removed; then the boot that must bring it back."""
        since = 0
        if self.vm.boots == 0:
            self.vm.start()
            what = f"{delay_ms} ms into the box's first start, at the first boot"
        else:
            self.up()
            since = self.vm.mark()
            self.vm.ssh(f"{FRESH} && systemctl start --no-block buzzerbox")
            what = f"{delay_ms} ms into the box's first start (its folder removed)"
        self.vm.wait_console(LOG_MADE, BOOT_S, since=since)
        time.sleep(delay_ms / 1000)  # the moment chosen for the cut, not a wait for it
        self.vm.cut()
        self.cuts.append(what)
        self.saved, self.kept = 0, {}  # a new log: nothing of the old one is promised
        self.comes_back()

    def play_cut(self, rng: random.Random, seconds: float) -> Play:
        """A table plays until the box has answered once as saved, and `seconds`
        more, then the power goes; then the boot that must bring the box back with
        all it answered as saved."""
        play = Play(self.table(), rng, self.saved, self.kept)
        play.start()
        # on a loaded machine the VM's first answers may take long: a cut before any
        # would check nothing of the play
        assert play.saved_once.wait(BOOT_S), f"no answer said saved: {play.error}"
        time.sleep(seconds)  # the moment chosen for the cut, not a wait for anything
        self.vm.cut()
        play.join(120)
        play.table.close()
        assert not play.is_alive(), "the table still plays after the cut"
        assert play.error is None, play.error
        self.saved, self.kept = play.saved, play.kept
        self.cuts.append(f"{seconds:.1f} s into a table's play ({play.answers} answers)")
        self.comes_back()
        return play


class Play(threading.Thread):
    """A table playing Twin It! until the power goes: new games, rounds, slaps on the
    GPIO pads, claims settled. Every answer whose state says all is saved moves
    `saved` on, once the log's rows up to it are read back into `kept`."""

    def __init__(self, table: Table, rng: random.Random, saved: int, kept: Rows) -> None:
        super().__init__(name="play", daemon=True)
        self.table = table
        self.rng = rng
        self.saved = saved
        self.kept = dict(kept)
        self.answers = 0
        self.last: dict[str, Any] | None = None  # the last state answered as saved
        self.saved_once = threading.Event()  # set at the first answer said saved
        self.error: BaseException | None = None

    def note(self, state: dict[str, Any]) -> None:
        self.answers += 1
        seq = int(state["box"]["seq"])
        if state["box"].get("unsaved") is None and seq >= self.saved:
            self.kept.update(rows(self.table.vm, self.saved, seq))
            self.saved = seq
            self.last = state
            self.saved_once.set()

    def run(self) -> None:
        try:
            while True:
                try:
                    self.game()
                except Refused:
                    continue  # e.g. a slap that opened no claim: a new game
        except (OSError, http.client.HTTPException, VmError, subprocess.SubprocessError):
            return  # the power went
        except BaseException as exc:  # told to the test, not lost in a thread
            self.error = exc

    def game(self) -> None:
        phone = self.table.phone
        self.note(phone.post("/api/game", {"game": "twinit", "players": PLAYERS}))
        seq = phone.post("/api/event", {"type": "round"})["box"]["seq"] + 1
        self.table.seen(seq)  # `go`
        for _ in range(3):
            seat = self.rng.randrange(len(PLAYERS))
            pulls(self.table.vm, [(SLAP[seat], DOWN, 2000), (SLAP[seat], UP, 0)])
            self.table.seen(seq + 1)  # the slap
            self.note(self.table.state())
            answer = phone.post("/api/event", {"type": "claim", "result": "pair"})
            self.note(answer)
            seq = int(answer["box"]["seq"])
