"""The two databases the store and server tests run on: SQLite in the test's folder,
and PostgreSQL (a club server) in a schema of its own on the server that
``ZATRE_TEST_POSTGRES`` names (``.ci/run`` starts one and sets it).

Without that variable the PostgreSQL runs are skipped with the reason, unless
``ZATRE_REQUIRE_POSTGRES=1`` (CI), where they fail instead: CI must run them.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest

from zatre_vision.store import Store, open_store

KINDS = ("sqlite", "postgresql")
ENV_URL = "ZATRE_TEST_POSTGRES"
ENV_REQUIRED = "ZATRE_REQUIRE_POSTGRES"


def _unavailable(reason: str):
    if os.environ.get(ENV_REQUIRED) == "1":
        pytest.fail(f"PostgreSQL is required here ({ENV_REQUIRED}=1) but {reason}")
    pytest.skip(f"PostgreSQL run skipped: {reason} (.ci/run starts one and sets {ENV_URL})")


class Databases:
    """Opens stores on one database of ``kind``; each ``open()`` is another
    connection to the same database (a restart, a second table)."""

    def __init__(self, kind: str, tmp_path: Path):
        self.kind = kind
        self.tmp_path = tmp_path
        self.schema: str | None = None
        self.url: str | None = None
        if kind == "postgresql":
            base = os.environ.get(ENV_URL)
            if not base:
                _unavailable(f"{ENV_URL} is not set")
            try:
                import psycopg
            except ImportError:
                _unavailable("psycopg is not installed (pip install 'zatre-vision[club]')")
            self.base = base
            self.schema = "t_" + uuid.uuid4().hex[:16]
            try:
                with psycopg.connect(base, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"CREATE SCHEMA {self.schema}")
            except psycopg.Error as exc:
                _unavailable(f"{base.split('@')[-1]} cannot be reached "
                             f"({type(exc).__name__})")
            joiner = "&" if "?" in base else "?"
            self.url = f"{base}{joiner}options={quote('-csearch_path=' + self.schema)}"

    def open(self) -> Store:
        if self.kind == "sqlite":
            return open_store(self.tmp_path / "data")
        return open_store(None, self.url)

    def connect_raw(self):
        """A plain driver connection to this database (for a test's own SQL)."""
        if self.kind == "sqlite":
            import sqlite3

            (self.tmp_path / "data").mkdir(parents=True, exist_ok=True)
            return sqlite3.connect(self.tmp_path / "data" / "zatre.db", isolation_level=None)
        import psycopg

        return psycopg.connect(self.url, autocommit=True)

    def drop(self) -> None:
        if self.schema is None:
            return
        import psycopg

        with psycopg.connect(self.base, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {self.schema} CASCADE")


def databases_fixture():
    """The ``databases`` fixture: every test that uses it runs on SQLite and on
    PostgreSQL."""

    @pytest.fixture(params=KINDS)
    def databases(request, tmp_path):
        dbs = Databases(request.param, tmp_path)
        yield dbs
        dbs.drop()

    return databases
