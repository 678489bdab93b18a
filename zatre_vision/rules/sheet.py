"""The score sheet: x2, 10 (1), 11 (2), 12 (4), Bonus and Total columns.

Columns fill independently from the top. After a turn, all points of one sum go
together into the topmost free box of that sum's column; each cross takes the
topmost free x2 box. A row's total is its three entries, plus the printed bonus
when all three boxes are filled, doubled when its x2 box is crossed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

SUMS = (10, 11, 12)


def printed_bonus(row: int) -> int:
    """The bonus printed on 1-based sheet row ``row``: 3, 4, 5, 6 by blocks of four."""
    if row < 1:
        raise ValueError("sheet rows start at 1")
    return {0: 3, 1: 4, 2: 5, 3: 6}.get((row - 1) // 4, 0)


@dataclass(frozen=True)
class SheetRow:
    number: int
    crossed: bool
    entries: dict[int, int | None]
    bonus: int  # earned bonus: the printed one when complete, else 0

    @property
    def complete(self) -> bool:
        return all(self.entries[s] is not None for s in SUMS)

    @property
    def total(self) -> int:
        base = sum(e for e in self.entries.values() if e is not None) + self.bonus
        return base * 2 if self.crossed else base

    def to_json(self) -> dict:
        return {
            "x2": self.crossed,
            "10": self.entries[10],
            "11": self.entries[11],
            "12": self.entries[12],
            "bonus": self.bonus,
            "total": self.total,
        }


@dataclass
class ScoreSheet:
    crosses: int = 0
    columns: dict[int, list[int]] = field(default_factory=lambda: {s: [] for s in SUMS})
    minus: int = 0

    def enter(self, points: Mapping[int, int], crosses: int = 0) -> None:
        """Write one turn: each sum's points into one box, then the crosses."""
        if crosses < 0:
            raise ValueError("crosses cannot be negative")
        for s in SUMS:
            p = points.get(s, 0)
            if p < 0:
                raise ValueError("points cannot be negative")
            if p:
                self.columns[s].append(p)
        self.crosses += crosses

    def copy(self) -> ScoreSheet:
        return ScoreSheet(self.crosses, {s: list(c) for s, c in self.columns.items()}, self.minus)

    @property
    def row_count(self) -> int:
        return max(self.crosses, *(len(c) for c in self.columns.values()))

    def row(self, number: int) -> SheetRow:
        k = number - 1
        entries = {s: (c[k] if k < len(c) else None) for s, c in self.columns.items()}
        complete = all(e is not None for e in entries.values())
        return SheetRow(number, k < self.crosses, entries, self.bonus_for(number) if complete else 0)

    def bonus_for(self, number: int) -> int:
        """The bonus printed on row ``number`` of this sheet (variants print others)."""
        return printed_bonus(number)

    def rows(self) -> list[SheetRow]:
        return [self.row(n) for n in range(1, self.row_count + 1)]

    @property
    def rows_total(self) -> int:
        return sum(r.total for r in self.rows())

    @property
    def total(self) -> int:
        """Grand total: the rows' totals minus the pips left in hand."""
        return self.rows_total - self.minus

    def to_json(self) -> dict:
        return {"rows": [r.to_json() for r in self.rows()], "minus": self.minus, "total": self.total}

    @classmethod
    def from_columns(cls, crosses: int, tens: list[int], elevens: list[int], twelves: list[int],
                     minus: int = 0) -> ScoreSheet:
        return cls(crosses, {10: list(tens), 11: list(elevens), 12: list(twelves)}, minus)
