"""Cells corrected during a match (migration 4): the camera's frame that misread them
(JPEG), the cell and its right value (0 empty), for "learn from this evening's
corrections" (``server/tile_learning.py``). Nothing else of the frame is labelled."""

from __future__ import annotations

from .base import Store, now_iso


class TileCorrections:
    """Reads and writes the ``tile_corrections`` table through a :class:`Store`."""

    def __init__(self, store: Store):
        self.store = store

    def add(self, table: str, match_id: int | None, cell: str, value: int, frame_jpeg: bytes
            ) -> None:
        if not 0 <= value <= 6:
            raise ValueError(f"{value!r} is not a cell's value (0 empty, 1..6)")
        with self.store.transaction():
            self.store._exec(
                "INSERT INTO tile_corrections (table_name, match_id, cell, value, frame, "
                "created) VALUES (?, ?, ?, ?, ?, ?)",
                (table, match_id, cell, value, frame_jpeg, now_iso()))

    def since(self, stamp: str) -> list[dict]:
        """The corrections made at ``stamp`` (ISO time, as ``now_iso``) or later, oldest
        first, each with its frame's bytes."""
        rows = self.store._rows("SELECT * FROM tile_corrections WHERE created >= ? ORDER BY id",
                                (stamp,))
        for r in rows:
            r["frame"] = bytes(r["frame"])
        return rows

    def count(self) -> int:
        row = self.store._one("SELECT COUNT(*) AS n FROM tile_corrections")
        return int(row["n"]) if row else 0

    def clear(self) -> int:
        n = self.count()
        with self.store.transaction():
            self.store._exec("DELETE FROM tile_corrections")
        return n
