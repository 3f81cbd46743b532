"""Files that survive a power cut once written: `write_atomic(path, data)`.

A rename is atomic but not durable: until the folder itself is fsynced, a cut may
bring back the previous file (or none) even though the new one's data was fsynced.
So every file the box and the hub keep whole (admin_pin, secret_key, phones.json,
the hub's hub.json, its key) goes this one way: a temporary file beside it, written
and fsynced, renamed over the old one, then the folder fsynced. When it returns, the
new file is on the disk; if a cut comes first, the old one is (whole, either way).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def fsync_dir(folder: Path) -> None:
    """Make the folder's entries (a rename, a new file) durable."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write `path` whole or not at all, durably (see the module); `mode` for a new
    file (0600: only its owner reads it). Raises OSError."""
    path = Path(path)
    partial = path.with_name(path.name + ".new")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise
    fsync_dir(path.parent)
