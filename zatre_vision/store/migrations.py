"""Numbered schema migrations. Append new ones; never edit an applied one.

The ``schema_version`` table holds the number of the last migration applied.
"""

from __future__ import annotations

MIGRATIONS: list[list[str]] = [
    # 1: matches, their event log (turns, corrections, overrides) and snapshots
    [
        "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE players (name TEXT PRIMARY KEY, created TEXT NOT NULL)",
        """CREATE TABLE matches (
            id {serial},
            table_name TEXT NOT NULL,
            created TEXT NOT NULL,
            updated TEXT NOT NULL,
            season TEXT,
            source TEXT,
            players TEXT NOT NULL,
            record TEXT NOT NULL,
            pending TEXT,
            finished INTEGER NOT NULL DEFAULT 0,
            totals TEXT NOT NULL,
            winners TEXT NOT NULL)""",
        "CREATE INDEX matches_created ON matches (created)",
        """CREATE TABLE events (
            id {serial},
            match_id INTEGER NOT NULL REFERENCES matches (id),
            kind TEXT NOT NULL,
            source TEXT,
            payload TEXT NOT NULL,
            turn_number INTEGER,
            snapshot {blob},
            created TEXT NOT NULL)""",
        "CREATE INDEX events_match ON events (match_id, id)",
        "CREATE TABLE tables (name TEXT PRIMARY KEY, match_id INTEGER REFERENCES matches (id))",
    ],
    # 2: round-robin tournaments; a match may be one pairing of a tournament
    [
        """CREATE TABLE tournaments (
            id {serial},
            name TEXT NOT NULL,
            season TEXT,
            players TEXT NOT NULL,
            created TEXT NOT NULL)""",
        "ALTER TABLE matches ADD COLUMN tournament_id INTEGER REFERENCES tournaments (id)",
        "ALTER TABLE matches ADD COLUMN pairing TEXT",
    ],
    # 3: the stored analysis of a match (``zatre analyse``), computed in the background;
    # record_key says which version of the match's record it belongs to
    [
        """CREATE TABLE analyses (
            match_id INTEGER PRIMARY KEY REFERENCES matches (id),
            record_key TEXT NOT NULL,
            status TEXT NOT NULL,
            done INTEGER NOT NULL DEFAULT 0,
            total INTEGER NOT NULL DEFAULT 0,
            result TEXT,
            error TEXT,
            updated TEXT NOT NULL)""",
    ],
    # 4: cells corrected during a match, with the camera's frame (JPEG) that misread
    # them and the right value (0 empty): "learn from this evening's corrections"
    [
        """CREATE TABLE tile_corrections (
            id {serial},
            table_name TEXT NOT NULL,
            match_id INTEGER,
            cell TEXT NOT NULL,
            value INTEGER NOT NULL,
            frame {blob} NOT NULL,
            created TEXT NOT NULL)""",
        "CREATE INDEX tile_corrections_created ON tile_corrections (created)",
    ],
    # 5: a match an operator annulled (played by mistake, a wrong pairing): the reason,
    # NULL while it counts; an annulled match stays in the history, out of rankings
    [
        "ALTER TABLE matches ADD COLUMN annulled TEXT",
    ],
    # 6: wrong PINs per client address, kept across restarts (a restart no longer
    # frees a locked-out guesser; times are seconds since the epoch); the session
    # signing key leaves the database (a file beside it, see store/session_key.py),
    # so that a copy of the database cannot sign an operator's cookie
    [
        """CREATE TABLE pin_failures (
            table_name TEXT NOT NULL,
            address TEXT NOT NULL,
            failures INTEGER NOT NULL,
            last_at DOUBLE PRECISION NOT NULL,
            until_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (table_name, address))""",
        "DELETE FROM settings WHERE key = 'secret_key'",
    ],
    # 7: which server holds each table's name now (``store/leases.py``): a second server
    # with a name in use is refused, naming the holder's address; the holder renews its
    # lease while it runs (times are the database's clock, seconds since the epoch)
    [
        """CREATE TABLE table_leases (
            name TEXT PRIMARY KEY,
            token TEXT NOT NULL,
            address TEXT NOT NULL,
            boot TEXT NOT NULL,
            pid INTEGER NOT NULL,
            started DOUBLE PRECISION NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL)""",
    ],
    # 8: evenings at tables of 4 (``pairings.py``): a tournament's format (NULL: the
    # round robin of pairs; 'tables': a round robin at tables of 4; 'swiss') and its
    # rounds tonight; each round's tables as paired (JSON lists of names), kept so that a
    # result corrected later never changes a round already played
    [
        "ALTER TABLE tournaments ADD COLUMN format TEXT",
        "ALTER TABLE tournaments ADD COLUMN rounds INTEGER",
        """CREATE TABLE tournament_rounds (
            tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
            round INTEGER NOT NULL,
            tables TEXT NOT NULL,
            created TEXT NOT NULL,
            PRIMARY KEY (tournament_id, round))""",
    ],
]
