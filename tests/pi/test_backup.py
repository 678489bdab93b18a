"""`zatre backup` / `zatre restore` (SQLite's online backup API), issue 45."""

import sqlite3

import pytest

from zatre_vision.server.table_lock import TableLock
from zatre_vision.store import StoreError, open_store
from zatre_vision.store.backup import backup, check_database, restore


def matches(data_dir):
    return matches_in(data_dir / "zatre.db")


def matches_in(db):
    conn = sqlite3.connect(str(db))
    try:
        return conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    finally:
        conn.close()


def make_db(data_dir, n_matches):
    store = open_store(data_dir)
    for i in range(n_matches):
        store.create_match("table-1", ["Ann", f"Ben{i}"], {}, season=None, source="manual", totals={})
    return store


def test_backup_while_open_then_restore(zatre, tmp_path):
    data = tmp_path / "data"
    store = make_db(data, 2)  # the "server" keeps its connection open during the backup
    try:
        proc = zatre("backup", str(tmp_path / "b1.db"), "--data-dir", str(data))
        assert proc.returncode == 0, proc.stderr
        assert "schema version" in proc.stderr
        store.create_match("table-1", ["Ann", "Cyd"], {}, season=None, source="manual", totals={})
    finally:
        store.close()
    assert matches(data) == 3
    proc = zatre("restore", str(tmp_path / "b1.db"), "--data-dir", str(data))
    assert proc.returncode == 0, proc.stderr
    assert matches(data) == 2
    kept = list(data.glob("zatre.db.before-restore-*"))
    assert len(kept) == 1 and check_database(kept[0]) >= 1


def test_restore_refuses_while_served(tmp_path):
    data = tmp_path / "data"
    store = make_db(data, 1)
    backup(data / "zatre.db", tmp_path / "b.db")
    store.create_match("table-1", ["Ann", "Cyd"], {}, season=None, source="manual", totals={})
    store.close()
    lock = TableLock(data, "table-1").acquire()
    try:
        with pytest.raises(StoreError, match="stop the server"):
            restore(tmp_path / "b.db", data / "zatre.db")
        # refused before anything is touched: the served database is as it was
        assert matches(data) == 2
        assert not list(data.glob("zatre.db.*"))
    finally:
        lock.release()
    kept = restore(tmp_path / "b.db", data / "zatre.db")
    assert matches(data) == 1                     # the backup is in place
    assert kept.parent == data and check_database(kept) >= 1
    assert matches_in(kept) == 2                  # and the database it replaced kept


@pytest.mark.parametrize("content", [b"", b"not a database at all" * 50])
def test_restore_refuses_a_file_that_is_no_zatre_database(zatre, tmp_path, content):
    data = tmp_path / "data"
    make_db(data, 1).close()
    bad = tmp_path / "bad.db"
    bad.write_bytes(content)
    proc = zatre("restore", str(bad), "--data-dir", str(data))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert matches(data) == 1


def test_backup_refuses_to_overwrite(zatre, tmp_path):
    data = tmp_path / "data"
    make_db(data, 1).close()
    (tmp_path / "b.db").write_text("keep me")
    proc = zatre("backup", str(tmp_path / "b.db"), "--data-dir", str(data))
    assert proc.returncode == 2 and "exists already" in proc.stderr
    assert (tmp_path / "b.db").read_text() == "keep me"


def test_a_backup_holds_nothing_that_opens_the_table_and_leaves_one_file(zatre, tmp_path):
    from werkzeug.security import generate_password_hash

    from zatre_vision.server.console_codes import new_console_code

    data = tmp_path / "data"
    store = make_db(data, 1)  # open in WAL mode while the backup runs, as a server's is
    pin_hash = generate_password_hash("975310")
    try:
        store.set_setting("pin_hash:table-1", pin_hash)
        store.set_setting("setup_code:table-2", "ABCD-EFGH")
        code = new_console_code(store, "table-1")
        grant = store.get_setting("console_grant:table-1")
        store.set_setting("coach:table-1", "on")
        out = tmp_path / "backups"
        out.mkdir()
        proc = zatre("backup", str(out / "b.db"), "--data-dir", str(data))
        assert proc.returncode == 0, proc.stderr
    finally:
        store.close()
    assert sorted(p.name for p in out.iterdir()) == ["b.db"]      # no -wal, -shm or .part
    raw = (out / "b.db").read_bytes()
    assert raw[18:20] == b"\x01\x01"                              # a rollback journal
    for secret in (pin_hash, pin_hash.split("$")[-1], "ABCD-EFGH", grant.split()[0],
                   code.replace("-", ""), "pin_hash:", "console_grant:"):
        assert secret.encode() not in raw, secret
    conn = sqlite3.connect(str(out / "b.db"))
    try:
        assert conn.execute("SELECT value FROM settings WHERE key = 'coach:table-1'"
                            ).fetchone() == ("on",)
    finally:
        conn.close()
    assert sorted(p.name for p in out.iterdir()) == ["b.db"]      # reading it leaves none

    proc = zatre("restore", str(out / "b.db"), "--data-dir", str(data))
    assert proc.returncode == 0 and "zatre pin set" in proc.stderr, proc.stderr
    store = open_store(data)
    try:
        assert store.get_setting("pin_hash:table-1") is None      # the console sets one
    finally:
        store.close()
    kept = [p.name for p in data.glob("zatre.db.before-restore-*")]
    assert len(kept) == 1 and not kept[0].endswith(("-wal", "-shm")), kept  # one file
