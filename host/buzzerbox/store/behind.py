"""The log made durable behind its commits: one thread fsyncs the WAL (`SyncBehind`).

With `EventLog(path, sync="behind")` the database runs with synchronous=NORMAL: a
commit reaches the WAL file (the page cache) at once and survives a kill -9, but not
a power cut until the WAL is fsynced. This thread does that after every commit: it
notes the last seq committed, fsyncs the WAL, and then that seq is durable
(`durable_seq`; `wait_durable(seq, timeout)` waits for it). Commits made while an
fsync runs are covered by the next one (one fsync for all of them), so an SD card's
stall delays what is durable, never what is committed.

`EventLog.append` waits for its event's fsync up to `reveal_wait_s` (20 ms: an SD
card's usual fsync is a few ms); after that it returns anyway and the event is
*unsaved*: `unsaved` is the first seq shown before it was durable, until an fsync
reaches it, and `when_saved` is told of every change of it (serve puts it in the
state, `box.unsaved`, so the pages can say so). A stall then holds what the phones see
for at most `reveal_wait_s`, not for its whole length; with no stall nothing is shown
that a power cut could take back.

Enrolments (which pad is whose: no event, no seq) are synced by the same fsyncs but
not waited for: a cut can take back an enrolment made in the last fsync's span (the
pad is then enrolled again).

What a power cut can take back: the events after `durable_seq` at the moment of the
cut, and only those: with no stall, none that was shown; in a stall, those from
`unsaved` on (the state says which). SQLite's WAL is written in order and read back
up to its last whole transaction, so what is lost is always the end of the log (never
an event from the middle of it), and what `durable_seq` had reached is kept (the
folder is fsynced too after the first sync, so a WAL file just made stays). An fsync that fails
(EIO) is logged and tried again at the next commit; `durable_seq` stays where it was.

The WAL's "fsync" is an fdatasync, as SQLite's own sync of it is on Linux: it writes the
data and what is needed to read it back (the file's size), not its times. Once the WAL
is reused after a checkpoint, a commit only overwrites its blocks, and fdatasync then
needs no journal commit of the file system: on this VM's ext4 135-140 µs of CPU and 2
wake-ups of the syncing thread against fsync's 200-280 µs and 4-5 (issue 40: a
throwaway script, 300 commits of one event each, thread CPU by schedstat).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class SyncBehind:
    """The thread that fsyncs `wal_path` behind the commits (`committed(seq)`)."""

    def __init__(
        self,
        wal_path: str,
        durable_seq: int,
        *,
        fsync: Callable[[int], None] | None = None,
    ) -> None:
        self.wal_path = wal_path
        # `fsync`: one call for the WAL and the folder (tests hold it back); by default
        # the WAL's data (fdatasync, the module's doc) and the folder's entry (fsync)
        self._sync_wal = fsync or os.fdatasync
        self._sync_folder = fsync or os.fsync
        self._cond = threading.Condition()
        self._commits = 0  # commits so far (enrolments too: they carry no seq)
        self._synced = 0  # commits the last fsync that returned covered
        self._seq = durable_seq  # the last seq committed
        self._durable = durable_seq
        self._unsaved: int | None = None
        self._closed = False
        self._folder_synced = False
        self.when_saved: list[Callable[[], None]] = []
        """Told when `unsaved` changes (on the thread that changed it, no lock held)."""
        self._thread = threading.Thread(target=self._run, name="log-fsync", daemon=True)
        self._thread.start()

    @property
    def durable_seq(self) -> int:
        """The last seq a power cut cannot take back."""
        with self._cond:
            return self._durable

    @property
    def unsaved(self) -> int | None:
        """The first seq shown before it was durable (None: all shown is durable)."""
        with self._cond:
            return self._unsaved

    def shown(self, seq: int, timeout: float) -> None:
        """`seq` is to be shown: wait up to `timeout` s for it to be durable, else mark
        it unsaved (and say so)."""
        with self._cond:
            self._cond.wait_for(lambda: self._durable >= seq or self._closed, timeout)
            if self._durable >= seq or self._unsaved is not None:
                return
            self._unsaved = seq
        self._tell()

    def _tell(self) -> None:
        for listener in list(self.when_saved):
            listener()

    def committed(self, seq: int | None) -> None:
        """A transaction was committed (its last event's seq; None: no event's)."""
        with self._cond:
            self._commits += 1
            if seq is not None and seq > self._seq:
                self._seq = seq
            self._cond.notify_all()

    def wait_durable(self, seq: int, timeout: float) -> bool:
        """Whether `seq` is durable within `timeout` s."""
        with self._cond:
            return self._cond.wait_for(lambda: self._durable >= seq or self._closed, timeout) and (
                self._durable >= seq
            )

    def close(self, timeout: float = 5.0) -> None:
        """Sync what is left, then end the thread."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._commits > self._synced or self._closed)
                if self._commits == self._synced:
                    return  # closed, nothing left
                commits, seq = self._commits, self._seq
            if not self._sync():
                if not self._retry_later(commits):
                    return
                continue
            with self._cond:
                self._synced, self._durable = commits, max(self._durable, seq)
                self._cond.notify_all()
                was = self._unsaved
                if was is not None and self._durable >= was:
                    self._unsaved = None if self._durable >= self._seq else self._durable + 1
                changed = self._unsaved != was
            if changed:  # a listener may wait for a lock held by one waiting in shown()
                threading.Thread(target=self._tell, name="log-saved", daemon=True).start()

    def _retry_later(self, commits: int) -> bool:
        """After a failed sync: wait for a new commit (True) or the end (False)."""
        with self._cond:
            self._cond.wait_for(lambda: self._commits > commits or self._closed)
            return not (self._closed and self._commits == commits)

    def _sync(self) -> bool:
        try:
            fd = os.open(self.wal_path, os.O_RDONLY)
        except FileNotFoundError:
            return True  # no WAL: checkpointed into the database and removed (on close)
        except OSError as exc:
            log.error("the log's WAL %s cannot be opened to sync it: %s", self.wal_path, exc)
            return False
        try:
            self._sync_wal(fd)
            if not self._folder_synced:
                folder = os.open(os.path.dirname(self.wal_path) or ".", os.O_RDONLY)
                try:
                    self._sync_folder(folder)
                finally:
                    os.close(folder)
                self._folder_synced = True
            return True
        except OSError as exc:
            log.error("the log's WAL %s cannot be synced: %s", self.wal_path, exc)
            return False
        finally:
            os.close(fd)
