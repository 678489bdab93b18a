"""The few places where SQLite and PostgreSQL SQL differ.

Statements are written once with ``?`` placeholders, ``{serial}`` / ``{blob}`` type
markers and ``{now}`` (the database's clock, seconds since the epoch, so that tables on
machines whose clocks disagree share one clock); :meth:`Dialect.sql` turns them into the
target dialect.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dialect:
    name: str
    placeholder: str
    serial: str
    blob: str
    begin: str
    #: the database's clock in seconds since the epoch (fractions kept)
    now: str
    #: one row when the table named by the one parameter exists (in the search path)
    table_exists: str

    def sql(self, statement: str) -> str:
        """Rewrite a statement: ``?`` placeholders, the ``{serial}``/``{blob}`` types and
        ``{now}``.

        Statements never contain literal question marks or braces otherwise."""
        out = (statement.replace("{serial}", self.serial).replace("{blob}", self.blob)
               .replace("{now}", self.now))
        if self.placeholder != "?":
            out = out.replace("?", self.placeholder)
        return out


SQLITE = Dialect("sqlite", "?", "INTEGER PRIMARY KEY AUTOINCREMENT", "BLOB", "BEGIN IMMEDIATE",
                 now="((julianday('now') - 2440587.5) * 86400.0)",
                 table_exists="SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
POSTGRES = Dialect("postgresql", "%s", "BIGSERIAL PRIMARY KEY", "BYTEA", "BEGIN",
                   now="EXTRACT(EPOCH FROM clock_timestamp())::DOUBLE PRECISION",
                   table_exists="SELECT 1 WHERE to_regclass(?) IS NOT NULL")
