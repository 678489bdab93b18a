"""Settings (YAML + ZATRE_* env, unknown keys refused), the store's migrations and SQL
dialects, the demo driver and the serve command's checks."""

import subprocess
import sys

import pytest

from zatre_vision.config import ConfigError, load_settings
from zatre_vision.demo import DemoDriver, render_snapshot
from zatre_vision.rules.record import score_record
from zatre_vision.store import POSTGRES, SQLITE, open_store
from zatre_vision.store.migrations import MIGRATIONS
from zatre_vision.table import Table


def test_settings_sources_and_priority(tmp_path, monkeypatch):
    f = tmp_path / "zatre.yaml"
    f.write_text("server:\n  port: 8100\n  pin: '1234'\ncamera:\n  source: demo\nui:\n  profi: true\n")
    s = load_settings(f)
    assert (s.server.port, s.server.pin, s.camera.source, s.ui.profi) == (8100, "1234", "demo", True)
    monkeypatch.setenv("ZATRE_SERVER__PORT", "8200")
    assert load_settings(f).server.port == 8200
    assert load_settings(f, {"server": {"port": 8300}}).server.port == 8300


@pytest.mark.parametrize("text,fragment", [
    ("server:\n  prot: 1\n", "server.prot: unknown key"),
    ("gpu: {}\n", "gpu: unknown key"),
    ("server:\n  port: 70000\n", "server.port"),
    ("server:\n  pin: abc\n", "4 to 12 digits"),
    ("server:\n  db: mysql://x\n", "postgresql://"),
    ("- a\n- b\n", "mapping of sections"),
    ("server: [\n", "not valid YAML"),
])
def test_bad_settings_are_one_line_errors(tmp_path, text, fragment):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_settings(f)
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_missing_settings_file():
    with pytest.raises(ConfigError, match="no such file"):
        load_settings("/nonexistent/zatre.yaml")


def test_validate_config_command(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text("server:\n  port: 8001\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("server:\n  colour: red\n")
    run = [sys.executable, "-m", "zatre_vision.server", "--validate-config", "--config"]
    ok = subprocess.run([*run, str(good)], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0
    no = subprocess.run([*run, str(bad)], capture_output=True, text=True, timeout=60)
    assert no.returncode == 2
    assert no.stderr.strip() == f"zatre: error: {bad}: server.colour: unknown key"


def test_migrations_are_numbered_and_idempotent(tmp_path):
    store = open_store(tmp_path)
    assert store.schema_version() == len(MIGRATIONS)
    store.conn.execute("UPDATE schema_version SET version = 1")
    store.conn.execute("DROP TABLE analyses")
    store.conn.execute("DROP TABLE tile_corrections")
    store.conn.execute("DROP TABLE tournaments")
    store.conn.execute("ALTER TABLE matches DROP COLUMN pairing")
    store.conn.execute("ALTER TABLE matches DROP COLUMN tournament_id")
    store.conn.execute("ALTER TABLE matches DROP COLUMN annulled")
    store.conn.execute("DROP TABLE pin_failures")
    store.conn.execute("DROP TABLE table_leases")
    store.conn.execute("DROP TABLE tournament_rounds")
    store.close()
    again = open_store(tmp_path)  # applies migrations 2 to 8 only
    assert again.schema_version() == len(MIGRATIONS) and again.tournaments() == []
    assert again.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    again.conn.execute("UPDATE schema_version SET version = 99")
    again.close()
    from zatre_vision.store import StoreError

    with pytest.raises(StoreError, match="newer"):
        open_store(tmp_path)


def test_sql_dialects():
    stmt = "INSERT INTO t (a, b) VALUES (?, ?) RETURNING id"
    assert SQLITE.sql(stmt) == stmt
    assert POSTGRES.sql(stmt) == "INSERT INTO t (a, b) VALUES (%s, %s) RETURNING id"
    assert POSTGRES.sql("CREATE TABLE x (id {serial}, s {blob})") == \
        "CREATE TABLE x (id BIGSERIAL PRIMARY KEY, s BYTEA)"
    for migration in MIGRATIONS:  # every statement is valid in both dialects' vocabulary
        for statement in migration:
            assert "AUTOINCREMENT" not in statement and "%s" not in statement


def test_postgres_url_needs_psycopg_or_a_server():
    from zatre_vision.store import StoreError

    with pytest.raises(StoreError):
        open_store(None, "postgresql://nobody@127.0.0.1:1/none")


def test_demo_plays_whole_games_that_score_like_the_rules(databases):
    store = databases.open()
    table = Table(store, "demo")
    now = [100.0]
    driver = DemoDriver(table, players=["Ann", "Ben"], seed=7, snapshots=False,
                        clock=lambda: now[0])
    while driver.games_finished == 0:
        driver.tick()
    st = table.state()
    assert st["finished"] and st["winners"] and st["source"] == "demo"
    assert {p: s["minus"] for p, s in st["sheets"].items()} == {  # the pips left in hand
        s.name: sum(s.hand) for s in driver.sim.game.seats}
    now[0] += 9.9  # the result stays on view for 10 s
    driver.tick()
    assert table.state()["match_id"] == 1 and table.state()["finished"]
    now[0] += 0.2
    record = store.get_match(table.match_id)["record"]
    expected = {s.name: s.sheet.total for s in driver.sim.game.seats}
    assert table.match.totals() == expected
    assert {p: s["total"] for p, s in score_record(record)["sheets"].items()} == expected
    driver.tick()  # the next game starts
    assert table.state()["match_id"] == 2 and not table.state()["finished"]


def test_demo_resumes_after_a_restart(databases):
    store = databases.open()
    table = Table(store, "demo")
    driver = DemoDriver(table, players=["Ann", "Ben"], seed=3, snapshots=False)
    for _ in range(6):
        driver.tick()
    board = table.current_board()
    store.close()
    table2 = Table(databases.open(), "demo")
    driver2 = DemoDriver(table2, players=["Ann", "Ben"], seed=99, snapshots=False)
    driver2.tick()  # adopts the unfinished match
    assert table2.match_id == 1 and table2.current_board() == board
    driver2.tick()
    assert len(table2.current_board()) > len(board) or table2.match.turns[-1].placed == {}


def test_snapshot_is_a_small_jpeg():
    data = render_snapshot({"H8": 6, "H7": 5}, {"H7": 5})
    assert data[:2] == b"\xff\xd8" and len(data) < 20000
