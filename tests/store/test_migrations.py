"""A table's version-1 database (committed: tests/store/data/v1-table.db, a finished
match, a match under way with a flagged turn waiting) is upgraded to the current
schema and its match resumes exactly, on SQLite and on PostgreSQL."""

import shutil
import sqlite3
from pathlib import Path

import pytest

from zatre_vision.rules.record import score_record
from zatre_vision.store import Store
from zatre_vision.store.dialect import POSTGRES
from zatre_vision.store.migrations import MIGRATIONS
from zatre_vision.table import Table

V1 = Path(__file__).resolve().parent / "data" / "v1-table.db"
TABLES = ("settings", "players", "matches", "events", "tables")   # in foreign-key order


def _v1_rows() -> dict[str, tuple[list[str], list[tuple]]]:
    conn = sqlite3.connect(f"file:{V1}?mode=ro", uri=True)
    try:
        assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == 1
        out = {}
        for t in TABLES:
            cur = conn.execute(f"SELECT * FROM {t}")
            out[t] = ([d[0] for d in cur.description], cur.fetchall())
        return out
    finally:
        conn.close()


def _load_v1(databases) -> None:
    """The committed version-1 database, as it is (SQLite) or copied row by row into a
    version-1 schema (PostgreSQL)."""
    if databases.kind == "sqlite":
        (databases.tmp_path / "data").mkdir(parents=True)
        shutil.copy(V1, databases.tmp_path / "data" / "zatre.db")
        return
    conn = databases.connect_raw()
    try:
        conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO schema_version (version) VALUES (1)")
        for statement in MIGRATIONS[0]:
            conn.execute(POSTGRES.sql(statement))
        for t, (names, rows) in _v1_rows().items():
            marks = ", ".join(["%s"] * len(names))
            for row in rows:
                conn.execute(f"INSERT INTO {t} ({', '.join(names)}) VALUES ({marks})", row)
        for t in ("matches", "events"):
            conn.execute(f"SELECT setval(pg_get_serial_sequence('{t}', 'id'), "
                         f"(SELECT MAX(id) FROM {t}))")
    finally:
        conn.close()


def test_the_v1_database_is_upgraded_and_its_match_resumes(databases):
    _load_v1(databases)
    store: Store = databases.open()          # opening migrates
    try:
        assert store.schema_version() == len(MIGRATIONS) > 1
        assert store.tournaments() == []
        # the session key left the database (migration 6): a copy of it signs nothing
        assert store.get_setting("secret_key") is None
        rows, total = store.list_matches(1, 10)
        assert total == 2 and [r["tournament_id"] for r in rows] == [None, None]
        done = store.get_match(1)
        assert done["finished"] and done["winners"] == ["Ann"]
        assert [e["kind"] for e in store.events(1)] == ["start", "turn", "turn", "finish"]

        table = Table(store, "table-1")
        st = table.state()
        assert st["match_id"] == 2 and st["players"] == ["Cleo", "Dan"]
        assert st["pending"]["placed"] == {"I7": 6, "J7": 6} and st["turn"] == "Dan"
        assert st["alerts"][0]["kind"] == "illegal-turn"
        assert st["board"] == {"H8": 6, "H7": 5, "G7": 5, "I8": 4}
        assert st["sheets"] == score_record(store.get_match(2)["record"])["sheets"]

        # and play goes on: the flagged turn is taken back, Dan plays, the match ends
        table.reject_pending()
        table.commit_turn({"I7": 1}, source="manual")
        table.finish({"Cleo": 0, "Dan": 0})
        assert [e["kind"] for e in store.events(2)][-3:] == ["reject", "turn", "finish"]
        new_id = table.new_match(["Ann", "Dan"], "Ann", source="manual")
        assert new_id == 3                   # the ids go on after the old ones
        tid = store.create_tournament("Cup", ["Ann", "Ben", "Cleo"], "2025")
        assert store.get_tournament(tid)["players"] == ["Ann", "Ben", "Cleo"]
    finally:
        store.close()
    again = Table(databases.open(), "table-1")
    assert again.match_id == 3 and again.store.schema_version() == len(MIGRATIONS)
    again.store.close()


def test_a_database_newer_than_the_program_is_refused(databases):
    from zatre_vision.store import StoreError

    store = databases.open()
    store.set_setting("x", "1")
    with store.transaction():
        store._exec("UPDATE schema_version SET version = ?", (len(MIGRATIONS) + 5,))
    store.close()
    with pytest.raises(StoreError, match="newer than this program"):
        databases.open()
