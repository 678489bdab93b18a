"""SQLite connection for the store: WAL journal, full sync, foreign keys on."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .base import StoreError


def connect_sqlite(path: Path) -> sqlite3.Connection:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None,
                               timeout=10)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"{path}: cannot open the database ({exc})") from None
    return conn
