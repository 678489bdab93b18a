"""The few places where SQLite and PostgreSQL SQL differ.

Statements are written once with ``?`` placeholders and ``{serial}`` / ``{blob}``
type markers; :meth:`Dialect.sql` turns them into the target dialect.
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

    def sql(self, statement: str) -> str:
        """Rewrite a statement: ``?`` placeholders and the ``{serial}``/``{blob}`` types.

        Statements never contain literal question marks or braces otherwise."""
        out = statement.replace("{serial}", self.serial).replace("{blob}", self.blob)
        if self.placeholder != "?":
            out = out.replace("?", self.placeholder)
        return out


SQLITE = Dialect("sqlite", "?", "INTEGER PRIMARY KEY AUTOINCREMENT", "BLOB", "BEGIN IMMEDIATE")
POSTGRES = Dialect("postgresql", "%s", "BIGSERIAL PRIMARY KEY", "BYTEA", "BEGIN")
