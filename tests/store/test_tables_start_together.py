"""Tables started at the same moment against a fresh database all come up (issue 62):
each migrates under the database's lock, and finds the schema made by another."""

import threading

from zatre_vision.store.migrations import MIGRATIONS


def _open_at_once(databases, n: int):
    barrier = threading.Barrier(n)
    stores, errors = [], []

    def start():
        barrier.wait()
        try:
            stores.append(databases.open())
        except Exception as exc:  # noqa: BLE001 - the test reports every failure
            errors.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=start) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return stores, errors


def test_eight_tables_migrate_a_fresh_database_at_once(databases):
    for _ in range(3):  # a race shows on some tries only: three fresh starts
        stores, errors = _open_at_once(databases, 8)
        try:
            assert errors == []
            assert [s.schema_version() for s in stores] == [len(MIGRATIONS)] * 8
            versions = databases.connect_raw()
            assert list(versions.execute("SELECT version FROM schema_version")) == \
                [(len(MIGRATIONS),)]  # one row: nobody inserted it twice
            versions.close()
        finally:
            for s in stores:
                s.close()
        _drop_everything(databases)


def _drop_everything(databases) -> None:
    """Back to an empty database for the next try."""
    conn = databases.connect_raw()
    if databases.kind == "sqlite":
        names = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        conn.execute("PRAGMA foreign_keys = OFF")
    else:
        names = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")]
    for name in names:
        conn.execute(f"DROP TABLE IF EXISTS {name}" + (" CASCADE" if databases.kind != "sqlite"
                                                        else ""))
    conn.close()
