"""The store on PostgreSQL (a club server shared by several tables).

Runs when ZATRE_TEST_POSTGRES names an empty database, e.g.
``ZATRE_TEST_POSTGRES=postgresql://zatre@127.0.0.1:55432/zatre_test``; skipped otherwise.
"""

import os
import re

import pytest

from zatre_vision.store import POSTGRES, open_store
from zatre_vision.store.migrations import MIGRATIONS
from zatre_vision.table import Table

URL = os.environ.get("ZATRE_TEST_POSTGRES")
pytestmark = pytest.mark.skipif(not URL, reason="set ZATRE_TEST_POSTGRES to a PostgreSQL URL")


def created_tables() -> list[str]:
    """Every table the migrations create, so that a later migration is dropped too (the
    database outlives this run: CI runs the suite twice on it)."""
    return [m.group(1) for step in MIGRATIONS for sql in step
            for m in [re.match(r"\s*CREATE TABLE (\w+)", sql)] if m]


@pytest.fixture
def pg():
    pytest.importorskip("psycopg")
    store = open_store(None, URL)
    yield store
    with store.transaction():
        for t in (*created_tables(), "schema_version"):
            store._exec(f"DROP TABLE IF EXISTS {t} CASCADE")
    store.close()


def test_two_tables_share_one_club_server(pg):
    assert pg.dialect is POSTGRES and pg.schema_version() == len(MIGRATIONS)
    t1, t2 = Table(pg, "table-1"), Table(open_store(None, URL), "table-2")
    m1 = t1.new_match(["Ann", "Ben"], "Ann", source="manual")
    m2 = t2.new_match(["Cleo", "Dan"], "Dan", source="manual")
    t1.commit_turn({"H8": 6, "H7": 5, "G7": 5}, snapshot_jpeg=b"\xff\xd8x", source="camera")
    t2.commit_turn({"H8": 2, "H7": 2, "G7": 2}, source="manual")
    t1.commit_turn({"I8": 6, "J8": 6}, source="camera")  # flagged
    t1.set_cell("H8", 5)
    before = t1.state()
    again = Table(open_store(None, URL), "table-1")
    assert again.match_id == m1 and again.state()["board"] == before["board"]
    assert again.state()["pending"] == before["pending"]
    assert again.state()["sheets"] == before["sheets"]
    assert Table(pg, "table-2").match_id == m2
    assert pg.snapshot(m1, 1) == b"\xff\xd8x"
    rows, total = pg.list_matches(1, 10)
    assert total == 2 and [r["id"] for r in rows] == [m2, m1]
    assert [e["kind"] for e in pg.events(m1)] == ["start", "turn", "turn", "correction"]
    again.reject_pending()
    again.finish({"Ann": 0, "Ben": 1})
    assert pg.finished_matches()[0]["winners"] == ["Ann"]
    tid = pg.create_tournament("Cup", ["Ann", "Ben", "Cleo"], "2025")
    assert pg.get_tournament(tid)["players"] == ["Ann", "Ben", "Cleo"]
    assert pg.seasons()
