"""The box's data folder: its lock, and what it keeps besides the log.

    buzzerbox.db   the event log (store/eventlog.py) sessions.db  the admin sessions
    lock           who holds the folder (a pid)  admin_pin    the admin PIN
    secret_key     the key that signs cookies    mqtt.db      the MQTT cursor
    phones.json    the seats phones hold (box/phones.py)

One box at a time: `DataLock` takes an exclusive `flock` on `lock` (the kernel
lets go of it when the process ends, even by kill -9); a second box on the same
folder is refused with the pid of the one that holds it. The PIN is kept, so a
restart (a power cut) keeps it: only --pin or the config's `pin` change it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import tempfile
from collections.abc import Callable
from pathlib import Path

import platformdirs

from buzzerbox.durable import write_atomic
from buzzerbox.errors import ConfigError, DataFolderBusyError

PIN_FILE = "admin_pin"


def data_dir(value: object) -> Path:
    """The data folder (default: the user's data folder), made if need be."""
    path = Path(str(value)) if value else Path(platformdirs.user_data_dir("buzzerbox"))
    path.mkdir(mode=0o700, parents=True, exist_ok=True)  # a new one is the box's alone
    return path


class DataLock:
    """An exclusive lock on a data folder, held until `release` (or the process ends)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "lock"
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)  # the folder's user's alone
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise DataFolderBusyError(
                f"the data folder {folder} is in use by another buzzerbox (pid {holder}): "
                "stop that one first, or give this one another --data folder"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)  # closing the file lets go of the lock
            self._fd = None


def write_private(path: Path, data: bytes) -> None:
    """Write a file only its owner may read, whole or not at all, durably (the
    folder fsynced after the rename: durable.py)."""
    write_atomic(path, data, 0o600)


def secret_key(folder: Path) -> bytes:
    """The session secret, kept in the data folder so a restart keeps the admin logged in."""
    path = folder / "secret_key"
    if path.exists() and len(key := path.read_bytes()) >= 32:
        return key
    key = secrets.token_bytes(32)
    write_private(path, key)
    return key


def admin_pin(folder: Path, given: object, make: Callable[[], str]) -> tuple[str, bool]:
    """The admin PIN: `given` (from --pin or the config; then kept), else the one kept,
    else a new one from `make()` (kept). Returns (PIN, whether it is new)."""
    path = folder / PIN_FILE
    if given is not None:
        pin = "".join(str(given).split())
        if not pin:
            raise ConfigError(
                'the admin PIN is blank: give digits (e.g. pin = "48213907"), '
                "or leave it out for the kept one"
            )
        if not path.exists() or path.read_text(encoding="utf-8").strip() != pin:
            write_private(path, pin.encode())
        return pin, False
    if path.exists():
        kept = path.read_text(encoding="utf-8").strip()
        if kept:
            return kept, False
    pin = str(make())
    write_private(path, pin.encode())
    return pin, True


def spill_dir(folder: Path) -> Path | None:
    """A folder for the server's temporary files on another filesystem than the log
    (a RAM disk), so they can never fill the log's disk; None if there is none."""
    home = os.stat(folder).st_dev
    candidates = [os.environ.get("XDG_RUNTIME_DIR"), "/dev/shm", "/run/shm", tempfile.gettempdir()]
    for candidate in candidates:
        if not candidate or not os.path.isdir(candidate):
            continue
        try:
            if os.stat(candidate).st_dev == home or not os.access(candidate, os.W_OK):
                continue
            return Path(tempfile.mkdtemp(prefix="buzzerbox-", dir=candidate))
        except OSError:
            continue
    return None
