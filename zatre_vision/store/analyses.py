"""The stored analysis of each match (migration 3): its progress while the background
job runs, then the ``zatre analyse`` JSON. ``record_key`` names the version of the
match's record it was computed from, so a corrected match shows as stale and is
analysed again."""

from __future__ import annotations

import json

from .base import Store, now_iso

STATUSES = ("queued", "running", "done", "failed")


class AnalysisStore:
    """Reads and writes the ``analyses`` table through a :class:`Store` (one
    transaction per write, the store's lock)."""

    def __init__(self, store: Store):
        self.store = store

    def get(self, match_id: int) -> dict | None:
        row = self.store._one("SELECT * FROM analyses WHERE match_id = ?", (match_id,))
        if row is None:
            return None
        row["result"] = json.loads(row["result"]) if row["result"] else None
        return row

    def set_status(self, match_id: int, record_key: str, status: str, *, done: int = 0,
                   total: int = 0, result: dict | None = None, error: str | None = None) -> None:
        if status not in STATUSES:
            raise ValueError(f"unknown analysis status {status!r}")
        with self.store.transaction():
            self.store._exec(
                "INSERT INTO analyses (match_id, record_key, status, done, total, result, "
                "error, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (match_id) DO "
                "UPDATE SET record_key = excluded.record_key, status = excluded.status, "
                "done = excluded.done, total = excluded.total, result = excluded.result, "
                "error = excluded.error, updated = excluded.updated",
                (match_id, record_key, status, done, total,
                 json.dumps(result) if result is not None else None, error, now_iso()))

    def progress(self, match_id: int, done: int) -> None:
        with self.store.transaction():
            self.store._exec("UPDATE analyses SET done = ?, updated = ? WHERE match_id = ?",
                             (done, now_iso(), match_id))

    def summaries(self, match_ids: list[int]) -> dict[int, tuple[str, dict]]:
        """``{match id: (record key, per-player summary)}`` of the finished analyses
        among ``match_ids``."""
        out: dict[int, tuple[str, dict]] = {}
        for match_id in match_ids:
            row = self.get(match_id)
            if row and row["status"] == "done" and row["result"]:
                out[match_id] = (row["record_key"], row["result"]["summary"])
        return out
