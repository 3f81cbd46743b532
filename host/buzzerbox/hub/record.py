"""The hub's own record: the board on disk, so the tournament outlives the broker.

A venue's broker may run without persistence: restarted, it has forgotten every
retained result, and the boxes only publish what is new. So the hub keeps the board
(`Leaderboard.record()`: the tables, the finished games, the races) in `hub.json` in its
data folder, written durably (durable.py: a temporary file, fsync, rename, the
folder fsynced), and reads it back at start.

Nothing the hub shows or acknowledges is lost in a power cut: the subscriber folds a
message into the board and hands its updates to `Keeper.commit` with the message's
acknowledgement (paho's manual acks). The keeper's thread takes what has gathered,
saves the record once for all of it (a group commit), and only then hands the
updates to the live pages, makes the saved snapshot the one new pages and
/api/board get (`shown`), and acknowledges the messages to the broker: a cut before
the save loses only messages the broker still holds and sends again. The same thread
drops the tables offline too long (`Leaderboard.forget_idle`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from buzzerbox.durable import write_atomic
from buzzerbox.hub.leaderboard import Leaderboard, Update
from buzzerbox.hub.tables import BoardView

log = logging.getLogger(__name__)

RECORD_FILE = "hub.json"


def load(board: Leaderboard, path: Path) -> bool:
    """Restore the board from `path`; False (and a warning) if there is no usable one."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    except OSError as exc:
        log.warning("hub: the record %s cannot be read (%s): starting empty", path, exc)
        return False
    try:
        board.restore(json.loads(text))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning("hub: the record %s is damaged (%s): starting empty", path, exc)
        return False
    return True


def save(board: Leaderboard, path: Path) -> None:
    data = json.dumps(board.record(), ensure_ascii=False, separators=(",", ":"))
    write_atomic(path, data.encode("utf-8"), 0o600)


class Keeper:
    """Saves the board before what changed is shown or acknowledged (`commit`), and
    at least every `period_s` while it changes; drops idle tables."""

    def __init__(
        self,
        board: Leaderboard,
        path: Path | None,
        publish: Callable[[list[Update]], None] | None = None,
        *,
        period_s: float = 1.0,
    ) -> None:
        self.board = board
        self.path = path
        self.publish = publish
        self.period_s = period_s
        self.errors = 0
        #: group commits done (saves for what came from the broker)
        self.commits = 0
        self._saved_at = -1
        self._view: BoardView | None = None
        self._pending: list[tuple[list[Update], Callable[[], Any] | None]] = []
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hub-record", daemon=True)

    def start(self) -> Keeper:
        if self.path is not None:
            load(self.board, self.path)
            self._saved_at = self.board.changes
        self._view = self.board.snapshot()
        self._thread.start()
        return self

    def commit(self, updates: list[Update], ack: Callable[[], Any] | None = None) -> None:
        """From the subscriber: a message folded into the board; its updates go to the
        pages and `ack` to the broker once the record holding it is on the disk."""
        with self._cond:
            self._pending.append((updates, ack))
            self._cond.notify()

    def shown(self) -> BoardView:
        """The board as last saved: what a new page and /api/board get."""
        if self._view is None:
            return self.board.snapshot()
        view = self._view.copy()
        view["broker"] = self.board.broker()  # the link's status: as it is now
        return view

    def _flush(self) -> None:
        with self._cond:
            batch, self._pending = self._pending, []
        if not batch:
            return
        view = self.board.snapshot()  # before the record: all it shows is in the record
        self._save()
        self.commits += 1
        self._view = view
        for updates, _ in batch:
            if updates and self.publish is not None:
                self.publish(updates)
        for _, ack in batch:
            if ack is not None:
                with contextlib.suppress(RuntimeError, ValueError, OSError):
                    ack()  # if the connection went, the broker sends it again

    def _save(self) -> None:
        changes = self.board.changes
        if self.path is None or changes == self._saved_at:
            return
        try:
            save(self.board, self.path)
            self._saved_at = changes
        except OSError as exc:  # shown anyway (the hub serves on); counted and logged
            self.errors += 1
            log.warning("hub: the record %s cannot be written: %s", self.path, exc)

    def step(self) -> None:
        updates = self.board.forget_idle()
        if updates:
            self.commit(updates)
        self._flush()
        view = self.board.snapshot()  # before the record, as in _flush
        self._save()
        self._view = view

    def _run(self) -> None:
        due = time.monotonic() + self.period_s
        while not self._stop.is_set():
            with self._cond:
                self._cond.wait_for(
                    lambda: bool(self._pending) or self._stop.is_set(),
                    max(0.0, due - time.monotonic()),
                )
            try:
                if time.monotonic() >= due:
                    due = time.monotonic() + self.period_s
                    self.step()
                else:
                    self._flush()
            except Exception:  # the hub serves on; the next step tries again
                self.errors += 1
                log.exception("hub: keeping the record failed")

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify()
        if self._thread.is_alive():
            self._thread.join(5)
        self.step()
