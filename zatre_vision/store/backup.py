"""Backup and restore of the SQLite database with SQLite's online backup API.

The copy is consistent while ``zatre serve`` keeps writing (the API copies pages and
starts again on a page changed meanwhile), so a backup needs no stop. A restore does:
it refuses while a server holds a table lock in the data folder, checks the backup
(integrity, a Zatre schema this program knows) and keeps the database it replaces
beside it as ``zatre.db.before-restore-<time>``.

What a backup holds: every match with its event log and camera snapshots, players,
tournaments, analyses, tile corrections and the wrong-PIN counts. Nothing that opens a
table (``SECRET_SETTINGS``): not the PIN hashes (a stolen hash is guessed offline), not
the setup codes or the console's sign-in codes; those rows are deleted from the copy
with ``secure_delete`` and the copy vacuumed, so their bytes are gone too. Not the
session signing key (``.session-<table>.key`` beside the database): a restore deletes
those, so every browser signs in again, and the restored table has no PIN until the
console sets one (``zatre pin set``, or the first setup with the setup code). A backup
is one file in rollback-journal mode: it leaves no ``-wal`` or ``-shm`` beside it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import time
from pathlib import Path

from .base import StoreError
from .migrations import MIGRATIONS
from .session_key import forget_keys


def database_path(data_dir: str | Path, db: str | None) -> Path:
    if db and db.startswith("sqlite:///"):
        return Path(db[len("sqlite:///"):])
    if db:
        raise StoreError("backup and restore are for SQLite; back up a PostgreSQL club "
                         "database with pg_dump")
    return Path(data_dir) / "zatre.db"


def _connect_ro(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise StoreError(f"{path}: no such database file")
    try:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open ({exc})") from None


def check_database(path: Path) -> int:
    """The schema version of a Zatre database file; StoreError if it is damaged, not a
    Zatre database or newer than this program."""
    conn = _connect_ro(path)
    try:
        ok = conn.execute("PRAGMA integrity_check").fetchone()[0]
        if ok != "ok":
            raise StoreError(f"{path}: damaged ({str(ok)[:120]})")
        row = conn.execute("SELECT version FROM schema_version").fetchone()
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: not a Zatre database ({exc})") from None
    finally:
        conn.close()
    version = int(row[0]) if row else 0
    if not 1 <= version <= len(MIGRATIONS):
        raise StoreError(f"{path}: schema version {version} is not one this program knows "
                         f"(1..{len(MIGRATIONS)})")
    return version


#: settings that open a table: never in a backup (GLOB patterns)
SECRET_SETTINGS = ("pin_hash:*", "setup_code:*", "console_grant:*")


def _copy(src: sqlite3.Connection, dest_path: Path, scrub: bool = False) -> None:
    """``src`` into a new file, one file in rollback-journal mode (the copy of a WAL
    database would be one too, and leave ``-wal``/``-shm`` files wherever it is
    opened); ``scrub``: without the ``SECRET_SETTINGS``, their bytes overwritten."""
    dest = sqlite3.connect(str(dest_path), isolation_level=None)
    try:
        src.backup(dest, pages=256, sleep=0.01)
        dest.execute("PRAGMA journal_mode=DELETE")
        if scrub:
            dest.execute("PRAGMA secure_delete=ON")
            for pattern in SECRET_SETTINGS:
                dest.execute("DELETE FROM settings WHERE key GLOB ?", (pattern,))
            dest.execute("VACUUM")
    finally:
        dest.close()


def backup(source: Path, target: Path) -> int:
    """Copy ``source`` to ``target`` (a new file); the copy's schema version."""
    if target.exists():
        raise StoreError(f"{target}: exists already (choose a new file name)")
    if not target.parent.is_dir():
        raise StoreError(f"{target.parent}: no such folder")
    part = target.with_name(target.name + ".part")
    src = _connect_ro(source)
    try:
        _copy(src, part, scrub=True)
    except sqlite3.Error as exc:
        part.unlink(missing_ok=True)
        raise StoreError(f"{source}: the backup failed ({exc})") from None
    finally:
        src.close()
    try:
        version = check_database(part)
    except StoreError:
        part.unlink(missing_ok=True)
        raise
    os.replace(part, target)
    return version


def servers_running(data_dir: Path) -> list[str]:
    """Table lock files in ``data_dir`` that a running server holds."""
    held = []
    for lock in sorted(Path(data_dir).glob(".serve-*.lock")):
        try:
            fd = os.open(lock, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            held.append(lock.name[len(".serve-"):-len(".lock")])
        finally:
            os.close(fd)
    return held


def restore(backup_file: Path, target: Path, now=time.time) -> Path | None:
    """Put ``backup_file`` in place of ``target``; the kept previous database (None
    when there was none)."""
    busy = servers_running(target.parent) if target.parent.is_dir() else []
    if busy:
        raise StoreError(f"table {busy[0]!r} is being served from {target.parent}: stop the "
                         "server first (sudo systemctl stop zatre)")
    check_database(backup_file)
    kept = None
    if target.exists():
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now()))
        kept = target.with_name(f"{target.name}.before-restore-{stamp}")
        live = _connect_ro(target)
        try:
            _copy(live, kept)
        finally:
            live.close()
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(target.name + ".restore")
    src = _connect_ro(backup_file)
    try:
        _copy(src, part)
    finally:
        src.close()
    for suffix in ("-wal", "-shm"):  # the old journal must not be replayed onto the backup
        with contextlib.suppress(FileNotFoundError):
            os.unlink(str(target) + suffix)
    os.replace(part, target)
    forget_keys(target.parent)  # the sessions of before the restore end (session_key)
    return kept
