"""The hub's own record: the board on disk, so the tournament outlives the broker.

A venue's broker may run without persistence: restarted, it has forgotten every
retained result, and the boxes only publish what is new. So the hub keeps the board
(`Board.record()`: the tables, the finished games, the races) in `hub.json` in its
data folder, written atomically (a temporary file, fsync, rename) at most once a
second while it changes, and reads it back at start. The same thread drops the
tables that have been offline too long (`Board.forget_idle`).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path

from buzzerbox.durable import write_atomic
from buzzerbox.hub.board import Board, Update

log = logging.getLogger(__name__)

RECORD_FILE = "hub.json"


def load(board: Board, path: Path) -> bool:
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


def save(board: Board, path: Path) -> None:
    data = json.dumps(board.record(), ensure_ascii=False, separators=(",", ":"))
    write_atomic(path, data.encode("utf-8"), 0o600)


class Keeper:
    """Saves the board when it changed (at most every `period_s`) and drops idle tables."""

    def __init__(
        self,
        board: Board,
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
        self._saved_at = -1
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hub-record", daemon=True)

    def start(self) -> Keeper:
        if self.path is not None:
            load(self.board, self.path)
            self._saved_at = self.board.changes
        self._thread.start()
        return self

    def step(self) -> None:
        updates = self.board.forget_idle()
        if updates and self.publish is not None:
            self.publish(updates)
        changes = self.board.changes
        if self.path is not None and changes != self._saved_at:
            try:
                save(self.board, self.path)
                self._saved_at = changes
            except OSError as exc:
                self.errors += 1
                log.warning("hub: the record %s cannot be written: %s", self.path, exc)

    def _run(self) -> None:
        while not self._stop.wait(self.period_s):
            try:
                self.step()
            except Exception:  # the hub serves on; the next step tries again
                self.errors += 1
                log.exception("hub: keeping the record failed")

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)
        self.step()
