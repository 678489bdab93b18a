"""SQLite connection for the store: WAL journal, full sync, foreign keys on."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from .base import StoreError

#: how long a connection waits for another one's lock (seconds)
BUSY_S = 10.0


def connect_sqlite(path: Path) -> sqlite3.Connection:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None,
                               timeout=BUSY_S)
        _journal_wal(conn)
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"{path}: cannot open the database ({exc})") from None
    return conn


def _journal_wal(conn: sqlite3.Connection) -> None:
    """Switch to the WAL journal. On a new file the switch needs a lock SQLite does not
    wait for (its busy timeout does not apply): tables opening one new file at once
    would fail with "database is locked", so the switch is tried again for a while."""
    deadline = time.monotonic() + BUSY_S
    delay = 0.01
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.2)
