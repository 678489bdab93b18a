"""Move generation and a best-move evaluator that values the score sheet.

``legal_placements`` yields exactly the placements that ``check_turn`` accepts for a
known hand: as many tiles as can be placed, with as few non-scoring light cells as
possible. ``best_move`` ranks them by what they do to the sheet, not by raw points:
completing a bonus row or earning a cross is worth more than a lone 12.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .board import NAMES, START, Board
from .search import (
    Placement,
    iter_placements,
    largest_placeable,
    neighbour_sums,
    placement_nonscoring_light,
)
from .sheet import SUMS, ScoreSheet, printed_bonus
from .turn import TurnResult, score_lines


def _first(board: Board, first_turn: bool | None) -> bool:
    return board.count == 0 if first_turn is None else first_turn


def legal_index_placements(board: Board, hand: Sequence[int],
                           first_turn: bool | None = None,
                           limit: int | None = None) -> list[Placement]:
    """Every legal placement for ``hand`` as index tuples (see module doc).

    ``limit`` caps the list at that many placements: the first ones in the search's
    fixed order, so the list is still deterministic, and it is the whole list whenever
    there are fewer. A hand of many carried-over tiles on a big board can have millions
    of legal placements; None lists them all however long that takes.
    """
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    first = _first(board, first_turn)
    size = largest_placeable(board, hand, first)
    if size == 0:
        return [()]
    kept: list[Placement] = []
    fewest: int | None = None
    for p in iter_placements(board, hand, size, first):
        n = placement_nonscoring_light(board, p)
        if fewest is None or n < fewest:
            fewest, kept = n, [p]
        elif n == fewest and (limit is None or len(kept) < limit):
            kept.append(p)
        # Full with placements that cover no bare light cell: none can be better.
        if fewest == 0 and limit is not None and len(kept) >= limit:
            break
    return kept


def legal_placements(board: Board, hand: Sequence[int], first_turn: bool | None = None,
                     limit: int | None = None) -> list[dict[str, int]]:
    """Every legal placement for ``hand``, as ``{cell name: value}`` dicts.

    An empty dict alone means nothing can be placed (the turn passes). ``limit``: see
    ``legal_index_placements``.
    """
    return [{NAMES[i]: v for i, v in p}
            for p in legal_index_placements(board, hand, first_turn, limit)]


def max_value_at(values: list[int], index: int) -> int:
    """The largest tile (0..6) that fits on empty cell ``index`` by the 12 limit alone."""
    return max(0, min(6, 12 - max(neighbour_sums(values, index))))


def cell_hints(board: Board) -> dict[str, int]:
    """For every cell a tile may touch now, the largest value it still takes (1..6)."""
    if board.count == 0:
        return {NAMES[START]: 6}
    out = {}
    for i in sorted(board.frontier()):
        m = max_value_at(board.values, i)
        if m:
            out[NAMES[i]] = m
    return out


def placeable_values(board: Board) -> set[int]:
    """Values that could be placed alone somewhere. A set of tiles none of which can be
    placed alone cannot be placed at all (a first tile always goes down alone)."""
    if board.count == 0:
        return {1, 2, 3, 4, 5, 6}
    best = max((max_value_at(board.values, i) for i in board.frontier()), default=0)
    return set(range(1, best + 1))


# -- valuing a move by the sheet ----------------------------------------------------

#: Rough worth of a box still to fill, by column: what a later turn will probably write.
EXPECTED_ENTRY = {10: 1.2, 11: 2.2, 12: 4.5}
#: Rough chance that one open box of a row gets filled before the game ends.
FILL_CHANCE = 0.55


def sheet_value(sheet: ScoreSheet) -> float:
    """The sheet's total plus what its open rows can still add beyond their entries.

    Entries will come anyway; what a move can change is how likely each row is to
    earn its printed bonus (more likely the fewer boxes it misses) and how much of
    what is still to come will be doubled (a crossed row with open boxes). So a move
    that completes a bonus row or earns a cross is worth more than its face value.
    """
    value = float(sheet.rows_total)
    for number in range(1, sheet.row_count + 1):
        row = sheet.row(number)
        if row.complete:
            continue
        missing = [s for s in SUMS if row.entries[s] is None]
        chance = FILL_CHANCE ** len(missing)
        mult = 2 if row.crossed else 1
        value += chance * printed_bonus(number) * mult
        value += (mult - 1) * FILL_CHANCE * sum(EXPECTED_ENTRY[s] for s in missing)
    return value


@dataclass(frozen=True)
class RankedMove:
    placed: dict[str, int]
    result: TurnResult
    value: float


def evaluate(board: Board, placement: Placement, sheet: ScoreSheet) -> RankedMove:
    """Score one legal placement and value the sheet it would leave."""
    return _evaluate(board, placement, sheet, sheet_value(sheet), {})


def _evaluate(board: Board, placement: Placement, sheet: ScoreSheet, before: float,
              worth: dict[tuple, float]) -> RankedMove:
    """``evaluate`` with the sheet's value ``before`` the move given, and ``worth``
    caching the change by what the move enters (many moves enter the same points)."""
    values = list(board.values)
    for i, v in placement:
        values[i] = v
    lines, points, crosses = score_lines(values, [i for i, _ in placement])
    placed = {NAMES[i]: v for i, v in placement}
    result = TurnResult(placed=placed, legal=True, lines=lines, points=points, crosses=crosses)
    key = (tuple(sorted(points.items())), crosses)
    if key not in worth:
        after = sheet.copy()
        after.enter(points, crosses)
        worth[key] = sheet_value(after) - before
    return RankedMove(placed, result, worth[key])


def ranked_moves(board: Board, hand: Sequence[int], sheet: ScoreSheet,
                 first_turn: bool | None = None, limit: int | None = None) -> list[RankedMove]:
    """Every legal move, best first (ties broken by cell names for determinism).

    ``limit``: rank only the first that many legal placements (see
    ``legal_index_placements``)."""
    placements = legal_index_placements(board, hand, first_turn, limit)
    before = sheet_value(sheet)
    worth: dict[tuple, float] = {}
    moves = [_evaluate(board, p, sheet, before, worth) for p in placements]
    moves.sort(key=lambda m: (-m.value, sorted(m.placed.items())))
    return moves


def best_move(board: Board, hand: Sequence[int], sheet: ScoreSheet,
              first_turn: bool | None = None) -> RankedMove:
    return ranked_moves(board, hand, sheet, first_turn)[0]


__all__ = [
    "RankedMove",
    "best_move",
    "cell_hints",
    "evaluate",
    "legal_index_placements",
    "legal_placements",
    "max_value_at",
    "placeable_values",
    "ranked_moves",
    "sheet_value",
]
