"""The repository: every query the table service makes, in one dialect-neutral class."""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from .dialect import Dialect
from .migration_lock import migration_lock
from .migrations import MIGRATIONS


class StoreError(RuntimeError):
    """The database cannot be opened or used (one-line message)."""


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


class Store:
    """Matches, the event log of each (turns, corrections, overrides, with snapshots),
    players, tournaments and small settings. Thread-safe: one connection behind a lock;
    every write is one transaction."""

    def __init__(self, conn: Any, dialect: Dialect):
        self.conn = conn
        self.dialect = dialect
        self._lock = threading.RLock()
        self.migrate()

    # -- plumbing ----------------------------------------------------------------------
    def close(self) -> None:
        with self._lock:
            self.conn.close()

    def _exec(self, sql: str, params: tuple = ()) -> Any:
        try:
            cur = self.conn.cursor()
            cur.execute(self.dialect.sql(sql), params)
        except Exception as exc:  # the driver's own errors: disk full, read-only, locked
            message = " ".join(str(exc).split()) or type(exc).__name__
            raise StoreError(f"the database failed ({message})") from exc
        return cur

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write: all of it or nothing (a failed COMMIT, as on a full disk, is
        rolled back too)."""
        with self._lock:
            self._exec(self.dialect.begin)
            try:
                yield
                self._exec("COMMIT")
            except BaseException:
                with suppress(StoreError):  # nothing left to roll back
                    self._exec("ROLLBACK")
                raise

    def _rows(self, sql: str, params: tuple = ()) -> list[dict]:
        with self._lock:
            cur = self._exec(sql, params)
            names = [d[0] for d in cur.description]
            return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    def _one(self, sql: str, params: tuple = ()) -> dict | None:
        rows = self._rows(sql, params)
        return rows[0] if rows else None

    def schema_version(self) -> int:
        with self._lock:
            if self._exec(self.dialect.table_exists, ("schema_version",)).fetchone() is None:
                return 0
            row = self._exec("SELECT version FROM schema_version").fetchone()
            return int(row[0]) if row else 0

    def migrate(self) -> int:
        """Apply the migrations not applied yet, each in its own transaction. Any number
        of tables may start at once on a fresh database: they take turns
        (``migration_lock``), and each step reads the version again inside its
        transaction, so a step another table applied meanwhile is skipped."""
        with self._lock, migration_lock(self._exec, self.dialect):
            for number in range(1, len(MIGRATIONS) + 1):
                with self.transaction():
                    current = self.schema_version()
                    if current > len(MIGRATIONS):
                        raise StoreError(f"the database schema (version {current}) is newer "
                                         f"than this program knows ({len(MIGRATIONS)}): "
                                         "update zatre-vision")
                    if current >= number:
                        continue
                    if number == 1:
                        self._exec("CREATE TABLE schema_version (version INTEGER NOT NULL)")
                        self._exec("INSERT INTO schema_version (version) VALUES (0)")
                    for statement in MIGRATIONS[number - 1]:
                        self._exec(statement)
                    self._exec("UPDATE schema_version SET version = ?", (number,))
            return len(MIGRATIONS)

    # -- settings -------------------------------------------------------------------------
    def get_setting(self, key: str) -> str | None:
        row = self._one("SELECT value FROM settings WHERE key = ?", (key,))
        return row["value"] if row else None

    def set_setting(self, key: str, value: str) -> None:
        with self.transaction():
            self._exec("INSERT INTO settings (key, value) VALUES (?, ?) "
                       "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))

    def delete_setting(self, key: str) -> None:
        with self.transaction():
            self._exec("DELETE FROM settings WHERE key = ?", (key,))

    # -- wrong PINs (server/security.py) -------------------------------------------------
    def pin_failures(self, table: str) -> list[dict]:
        """Each address's wrong PINs at ``table``: ``address``, ``failures``,
        ``last_at`` and ``until_at`` (seconds since the epoch)."""
        return self._rows("SELECT address, failures, last_at, until_at FROM pin_failures "
                          "WHERE table_name = ?", (table,))

    def save_pin_failure(self, table: str, address: str, failures: int, last_at: float,
                         until_at: float) -> None:
        with self.transaction():
            self._exec("INSERT INTO pin_failures (table_name, address, failures, last_at, "
                       "until_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_name, address) "
                       "DO UPDATE SET failures = excluded.failures, last_at = excluded.last_at, "
                       "until_at = excluded.until_at",
                       (table, address, failures, last_at, until_at))

    def forget_pin_failures(self, table: str, addresses: list[str]) -> None:
        with self.transaction():
            for address in addresses:
                self._exec("DELETE FROM pin_failures WHERE table_name = ? AND address = ?",
                           (table, address))

    # -- matches ------------------------------------------------------------------------------
    def create_match(self, table: str, players: list[str], record: dict, *, season: str | None,
                     source: str, totals: dict, tournament_id: int | None = None,
                     pairing: str | None = None) -> int:
        """A new match, made the active one of its table, with its 'start' event."""
        stamp = now_iso()
        with self.transaction():
            cur = self._exec(
                "INSERT INTO matches (table_name, created, updated, season, source, players, "
                "record, pending, finished, totals, winners, tournament_id, pairing) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, NULL, 0, ?, '[]', ?, ?) RETURNING id",
                (table, stamp, stamp, season, source, json.dumps(players), json.dumps(record),
                 json.dumps(totals), tournament_id, pairing))
            match_id = int(cur.fetchone()[0])
            for name in players:
                self._exec("INSERT INTO players (name, created) VALUES (?, ?) "
                           "ON CONFLICT (name) DO NOTHING", (name, stamp))
            self._exec("INSERT INTO tables (name, match_id) VALUES (?, ?) "
                       "ON CONFLICT (name) DO UPDATE SET match_id = excluded.match_id",
                       (table, match_id))
            self._event(match_id, "start", source, {"players": players, "record": record},
                        None, None, stamp)
        return match_id

    def _event(self, match_id: int, kind: str, source: str | None, payload: dict,
               turn_number: int | None, snapshot: bytes | None, stamp: str) -> None:
        self._exec("INSERT INTO events (match_id, kind, source, payload, turn_number, snapshot, "
                   "created) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   (match_id, kind, source, json.dumps(payload), turn_number, snapshot, stamp))

    def save_match(self, match_id: int, *, record: dict | str, pending: dict | None, finished: bool,
                   totals: dict, winners: list[str], kind: str, payload: dict,
                   source: str | None = None, turn_number: int | None = None,
                   snapshot: bytes | None = None) -> None:
        """One change of a match: its new record (a dict, or its JSON text) and the
        event that made it, in one transaction."""
        stamp = now_iso()
        with self.transaction():
            self._exec("UPDATE matches SET updated = ?, record = ?, pending = ?, finished = ?, "
                       "totals = ?, winners = ? WHERE id = ?",
                       (stamp, record if isinstance(record, str) else json.dumps(record),
                        json.dumps(pending) if pending else None,
                        int(finished), json.dumps(totals), json.dumps(winners), match_id))
            self._event(match_id, kind, source, payload, turn_number, snapshot, stamp)

    def active_match_id(self, table: str) -> int | None:
        row = self._one("SELECT match_id FROM tables WHERE name = ?", (table,))
        return None if row is None or row["match_id"] is None else int(row["match_id"])

    def active_match_ids(self) -> set[int]:
        """The match each table plays now (an unfinished match not among them was left
        when a new one started)."""
        rows = self._rows("SELECT match_id FROM tables WHERE match_id IS NOT NULL")
        return {int(r["match_id"]) for r in rows}

    def tables(self) -> list[dict]:
        """Every table that has played here: ``name`` and the ``match_id`` it plays now
        (None after its match was annulled), by name."""
        return self._rows("SELECT name, match_id FROM tables ORDER BY name")

    def get_match(self, match_id: int) -> dict | None:
        row = self._one("SELECT * FROM matches WHERE id = ?", (match_id,))
        return _decode_match(row) if row else None

    def list_matches(self, page: int = 1, per_page: int = 20,
                     tournament_id: int | None = None) -> tuple[list[dict], int]:
        where, params = ("WHERE tournament_id = ?", (tournament_id,)) if tournament_id else ("", ())
        total = self._one(f"SELECT COUNT(*) AS n FROM matches {where}", params)["n"]
        rows = self._rows(f"SELECT * FROM matches {where} ORDER BY id DESC LIMIT ? OFFSET ?",
                          (*params, per_page, (page - 1) * per_page))
        return [_decode_match(r) for r in rows], int(total)

    def finished_matches(self, season: str | None = None) -> list[dict]:
        """Finished matches that count (an annulled one does not), oldest first."""
        if season:
            rows = self._rows("SELECT * FROM matches WHERE finished = 1 AND annulled IS NULL "
                              "AND season = ? ORDER BY id", (season,))
        else:
            rows = self._rows("SELECT * FROM matches WHERE finished = 1 AND annulled IS NULL "
                              "ORDER BY id")
        return [_decode_match(r) for r in rows]

    def season_matches(self, season: str) -> list[dict]:
        """Every match of ``season`` (finished, unfinished, annulled), oldest first."""
        rows = self._rows("SELECT * FROM matches WHERE season = ? ORDER BY id", (season,))
        return [_decode_match(r) for r in rows]

    def annul_match(self, match_id: int, reason: str, source: str | None = "manual") -> None:
        """Annul a match: it stays in the history with ``reason`` and its 'annul' event,
        out of rankings and standings; a table playing it plays it no more."""
        stamp = now_iso()
        with self.transaction():
            self._exec("UPDATE matches SET annulled = ?, updated = ? WHERE id = ?",
                       (reason, stamp, match_id))
            self._exec("UPDATE tables SET match_id = NULL WHERE match_id = ?", (match_id,))
            self._event(match_id, "annul", source, {"reason": reason}, None, None, stamp)

    def withdraw_match(self, match_id: int) -> None:
        """Withdraw a match that never began (no turn played): it leaves the records as
        if never started, its events and any analysis with it (ids are not reused)."""
        with self.transaction():
            self._exec("UPDATE tables SET match_id = NULL WHERE match_id = ?", (match_id,))
            self._exec("DELETE FROM analyses WHERE match_id = ?", (match_id,))
            self._exec("DELETE FROM events WHERE match_id = ?", (match_id,))
            self._exec("DELETE FROM matches WHERE id = ?", (match_id,))

    def seasons(self) -> list[str]:
        rows = self._rows("SELECT DISTINCT season FROM matches WHERE season IS NOT NULL "
                          "ORDER BY season DESC")
        return [r["season"] for r in rows]

    def players(self) -> list[str]:
        return [r["name"] for r in self._rows("SELECT name FROM players ORDER BY name")]

    def events(self, match_id: int) -> list[dict]:
        rows = self._rows("SELECT id, kind, source, payload, turn_number, created, "
                          "snapshot IS NOT NULL AS has_snapshot FROM events "
                          "WHERE match_id = ? ORDER BY id", (match_id,))
        for r in rows:
            r["payload"] = json.loads(r["payload"])
            r["has_snapshot"] = bool(r["has_snapshot"])
        return rows

    def snapshot(self, match_id: int, turn_number: int) -> bytes | None:
        row = self._one("SELECT snapshot FROM events WHERE match_id = ? AND turn_number = ? "
                        "AND snapshot IS NOT NULL ORDER BY id DESC LIMIT 1",
                        (match_id, turn_number))
        return bytes(row["snapshot"]) if row else None

    def last_event_id(self) -> int:
        row = self._one("SELECT MAX(id) AS m FROM events")
        return int(row["m"] or 0)

    # -- tournaments -----------------------------------------------------------------------------
    def create_tournament(self, name: str, players: list[str], season: str | None, *,
                          format: str | None = None, rounds: int | None = None,
                          tables: list[list[list[str]]] = ()) -> int:
        """A tournament; ``format`` None is the round robin of pairs, else 'tables' or
        'swiss' with its ``rounds`` tonight and the ``tables`` of the rounds paired now."""
        stamp = now_iso()
        with self.transaction():
            cur = self._exec("INSERT INTO tournaments (name, season, players, created, format, "
                             "rounds) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                             (name, season, json.dumps(players), stamp, format, rounds))
            tid = int(cur.fetchone()[0])
            for number, groups in enumerate(tables, start=1):
                self._exec("INSERT INTO tournament_rounds (tournament_id, round, tables, "
                           "created) VALUES (?, ?, ?, ?)", (tid, number, json.dumps(groups), stamp))
            for p in players:
                self._exec("INSERT INTO players (name, created) VALUES (?, ?) "
                           "ON CONFLICT (name) DO NOTHING", (p, stamp))
        return tid

    def tournaments(self) -> list[dict]:
        rows = self._rows("SELECT * FROM tournaments ORDER BY id DESC")
        for r in rows:
            r["players"] = json.loads(r["players"])
        return rows

    def get_tournament(self, tid: int) -> dict | None:
        row = self._one("SELECT * FROM tournaments WHERE id = ?", (tid,))
        if row:
            row["players"] = json.loads(row["players"])
        return row

    def tournament_rounds(self, tid: int) -> list[list[list[str]]]:
        """The tables of each round paired so far, round 1 first."""
        rows = self._rows("SELECT tables FROM tournament_rounds WHERE tournament_id = ? "
                          "ORDER BY round", (tid,))
        return [json.loads(r["tables"]) for r in rows]

    def add_tournament_round(self, tid: int, number: int, tables: list[list[str]]) -> bool:
        """Store round ``number``'s tables; False when it was paired already (two
        operators at once: the first one's round stands)."""
        with self.transaction():
            cur = self._exec("INSERT INTO tournament_rounds (tournament_id, round, tables, "
                             "created) VALUES (?, ?, ?, ?) ON CONFLICT (tournament_id, round) "
                             "DO NOTHING", (tid, number, json.dumps(tables), now_iso()))
            return cur.rowcount == 1

    def tournament_matches(self, tid: int) -> list[dict]:
        rows = self._rows("SELECT * FROM matches WHERE tournament_id = ? ORDER BY id", (tid,))
        return [_decode_match(r) for r in rows]


def _decode_match(row: dict) -> dict:
    out = dict(row)
    for key in ("players", "record", "totals", "winners"):
        out[key] = json.loads(row[key])
    out["pending"] = json.loads(row["pending"]) if row["pending"] else None
    out["finished"] = bool(row["finished"])
    return out
