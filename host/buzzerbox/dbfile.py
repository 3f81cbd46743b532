"""Opening an SQLite file so that a refusal leaves no connection open.

`sqlite3.connect` succeeds on any file; the first statement finds out that it is no
database ("file is not a database"), or is locked, read-only, damaged. The
connection must be closed then, not left to the garbage collector: Python 3.13
warns of every connection collected unclosed (ResourceWarning), and the file
stays open until it is.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence


def open_db(path: str, setup: Sequence[str] = ()) -> sqlite3.Connection:
    """A connection to `path` (autocommit, for any thread) with the statements of
    `setup` run on it; if one fails the connection is closed and the error raised."""
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        for statement in setup:
            db.executescript(statement)
    except BaseException:
        db.close()
        raise
    return db
