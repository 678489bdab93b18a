"""Durable records of matches, turns, corrections, players and tournaments.

``open_store(data_dir, db_url)`` gives a :class:`Store`: SQLite in the data directory by
default (WAL, ``synchronous=FULL``: each turn is on disk when its call returns), or
PostgreSQL when ``db_url`` is ``postgresql://...`` so that several tables can share a
club server. Both speak the same repository interface; only the SQL dialect differs.
"""

from __future__ import annotations

from pathlib import Path

from .base import Store, StoreError
from .dialect import POSTGRES, SQLITE, Dialect

__all__ = ["Store", "StoreError", "Dialect", "SQLITE", "POSTGRES", "open_store"]


def open_store(data_dir: str | Path | None = None, db_url: str | None = None) -> Store:
    """Open (and migrate) the store: ``db_url`` when given, else ``data_dir/zatre.db``."""
    if db_url and db_url.startswith(("postgresql://", "postgres://")):
        from .postgres import connect_postgres

        return Store(connect_postgres(db_url), POSTGRES)
    if db_url and db_url.startswith("sqlite:///"):
        path = Path(db_url[len("sqlite:///"):])
    else:
        if data_dir is None:
            raise StoreError("give a data directory or a database URL")
        path = Path(data_dir) / "zatre.db"
    from .sqlite import connect_sqlite

    return Store(connect_sqlite(path), SQLITE)
