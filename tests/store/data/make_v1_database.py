"""Makes ``v1-table.db``: a table's SQLite database at schema version 1 (before the
tournaments of migration 2), with a finished match, a match under way with a flagged
turn waiting, their events and the table pointing at the running match.

    python tests/store/data/make_v1_database.py

The file is committed; ``tests/store/test_migrations.py`` upgrades it (and a copy on
PostgreSQL) and resumes the match. Run again only to remake it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from zatre_vision.match import Match
from zatre_vision.store.dialect import SQLITE
from zatre_vision.store.migrations import MIGRATIONS

OUT = Path(__file__).resolve().parent / "v1-table.db"
STAMP = "2025-05-01T19:{:02d}:00+00:00"


def main() -> None:
    OUT.unlink(missing_ok=True)
    conn = sqlite3.connect(OUT, isolation_level=None)
    conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    conn.execute("INSERT INTO schema_version (version) VALUES (1)")
    for statement in MIGRATIONS[0]:
        conn.execute(SQLITE.sql(statement))
    minute = iter(range(60))

    def match(mid, players, starter, turns, pending=None, minus=None):
        m = Match(players, starter)
        stamp = STAMP.format(next(minute))
        conn.execute("INSERT INTO matches (id, table_name, created, updated, season, source, "
                     "players, record, pending, finished, totals, winners) VALUES "
                     "(?, 'table-1', ?, ?, '2025', 'manual', ?, ?, NULL, 0, ?, '[]')",
                     (mid, stamp, stamp, json.dumps(players), json.dumps(m.to_record()),
                      json.dumps(m.totals())))
        events = [("start", {"players": players, "record": m.to_record()}, None)]
        for placed in turns:
            result = m.propose(placed, None, None)
            assert result.legal, placed
            events.append(("turn", {"placed": placed, "hand": None, "frame": None,
                                    "player": None, "legal": True, "violations": []},
                           len(m.turns)))
        stored_pending = None
        if pending:
            result = m.propose(pending, None, None)
            assert not result.legal
            events.append(("turn", {"placed": pending, "hand": None, "frame": None,
                                    "player": None, "legal": False,
                                    "violations": [v.to_json() for v in result.violations]},
                           len(m.turns) + 1))
            stored_pending = {"player": m.pending.player, "placed": dict(m.pending.placed),
                              "hand": None}
        if minus is not None:
            m.finish(minus)
            events.append(("finish", {"minus": minus}, None))
        for kind, payload, number in events:
            conn.execute("INSERT INTO events (match_id, kind, source, payload, turn_number, "
                         "snapshot, created) VALUES (?, ?, 'manual', ?, ?, NULL, ?)",
                         (mid, kind, json.dumps(payload), number,
                          STAMP.format(next(minute))))
        conn.execute("UPDATE matches SET record = ?, pending = ?, finished = ?, totals = ?, "
                     "winners = ?, updated = ? WHERE id = ?",
                     (json.dumps(m.to_record()),
                      json.dumps(stored_pending) if stored_pending else None, int(m.finished),
                      json.dumps(m.totals()), json.dumps(m.winners() if m.finished else []),
                      STAMP.format(next(minute)), mid))
        for p in players:
            conn.execute("INSERT OR IGNORE INTO players (name, created) VALUES (?, ?)",
                         (p, stamp))

    match(1, ["Ann", "Ben"], "Ann", [{"H8": 6, "H7": 5, "G7": 5}, {"I8": 4}],
          minus={"Ann": 0, "Ben": 7})
    match(2, ["Cleo", "Dan"], "Dan", [{"H8": 6, "H7": 5, "G7": 5}, {"I8": 4}],
          pending={"I7": 6, "J7": 6})
    conn.execute("INSERT INTO tables (name, match_id) VALUES ('table-1', 2)")
    conn.execute("INSERT INTO settings (key, value) VALUES ('secret_key', 'v1-secret')")
    conn.execute("VACUUM")
    conn.close()
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
