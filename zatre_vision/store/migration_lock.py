"""One migration at a time on a shared database.

Tables started together against a fresh club database would each see "no schema" and
create the same tables at once; PostgreSQL then fails the later ones (``duplicate key
value violates unique constraint "pg_type_typname_nsp_index"``, ``relation ... already
exists``). On PostgreSQL the migrations run under a session advisory lock, one per
schema, which the server lets go when the connection ends (a killed table leaves none
behind); the others wait for it and then find the schema made. SQLite needs no more
than its own write lock: each step is a ``BEGIN IMMEDIATE`` transaction that reads the
version again (``Store.migrate``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from .dialect import POSTGRES, Dialect

#: the advisory lock's first key ("Zatr"); the second is the schema's hash, so that two
#: schemas on one server (the tests' own) do not wait for each other
LOCK_CLASS = 0x5A617472
_SCHEMA = "hashtext(coalesce(current_schema(), ''))"


@contextmanager
def migration_lock(execute: Callable[[str, tuple], Any], dialect: Dialect) -> Iterator[None]:
    """Hold the database's migration lock while the block runs (PostgreSQL; on SQLite
    the transactions of the block are the lock). ``execute(sql, params)`` runs one
    statement on the store's connection."""
    if dialect is not POSTGRES:
        yield
        return
    execute(f"SELECT pg_advisory_lock(?, {_SCHEMA})", (LOCK_CLASS,))
    try:
        yield
    finally:
        with suppress(Exception):  # a lost connection has let go of it already
            execute(f"SELECT pg_advisory_unlock(?, {_SCHEMA})", (LOCK_CLASS,))
