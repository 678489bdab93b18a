"""Legality and scoring of one turn (rules 1-6 of ``rules.md``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .board import (
    CELL_SET,
    LIGHT,
    NEIGHBOURS,
    START,
    Board,
    CellNameError,
    cell_name,
    grid_index,
    lines_through,
)
from .search import (
    fewest_nonscoring_light,
    fits,
    in_scoring_line,
    iter_placements,
)
from .tiles import FIRST_HAND, TILE_SET, excess_values, is_tile_value

#: Points for a scoring line, by its sum.
LINE_POINTS = {10: 1, 11: 2, 12: 4}
SUMS = (10, 11, 12)


@dataclass(frozen=True)
class Violation:
    code: str
    cells: tuple[str, ...]
    message: str

    def to_json(self) -> dict:
        return {"code": self.code, "cells": list(self.cells), "message": self.message}


@dataclass(frozen=True)
class Line:
    cells: tuple[str, ...]
    sum: int

    @property
    def scores(self) -> bool:
        return self.sum in LINE_POINTS

    def to_json(self) -> dict:
        return {"cells": list(self.cells), "sum": self.sum}


@dataclass
class TurnResult:
    """The verdict on one turn. ``points`` and ``crosses`` are what the turn earns
    when it is legal; an illegal turn earns nothing."""

    placed: dict[str, int]
    legal: bool
    violations: list[Violation] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    points: dict[int, int] = field(default_factory=lambda: dict.fromkeys(SUMS, 0))
    crosses: int = 0

    @property
    def total_points(self) -> int:
        return sum(self.points.values())

    def to_json(self) -> dict:
        return {
            "placed": dict(self.placed),
            "legal": self.legal,
            "violations": [v.to_json() for v in self.violations],
            "lines": [line.to_json() for line in self.lines],
            "points": {str(s): self.points[s] for s in SUMS},
            "crosses": self.crosses,
        }


def points_by_sum(sums: Iterable[int], table: Mapping[int, int] = LINE_POINTS) -> dict[int, int]:
    """Points of the scoring lines among ``sums`` (one sum per line), totalled by sum.

    ``table`` gives the points of a line by its sum (the board game's 1, 2, 4 unless
    a variant passes its own); sums without an entry score nothing.
    """
    points = dict.fromkeys(SUMS, 0)
    for s in sums:
        if s in table:
            points[s] += table[s]
    return points


def score_lines(values: list[int], new_cells: Sequence[int]) -> tuple[list[Line], dict[int, int], int]:
    """Lines through the new tiles, the points they earn by sum, and the crosses.

    ``values`` already holds the new tiles. A line holding several new tiles counts
    once; each new tile on a light cell inside a scoring line earns one cross.
    """
    lines = [
        Line(tuple(cell_name(i) for i in cells), s) for cells, s in lines_through(values, new_cells)
    ]
    points = points_by_sum(line.sum for line in lines)
    crosses = sum(1 for i in new_cells if i in LIGHT and in_scoring_line(values, i))
    return lines, points, crosses


def _sorted_names(indices) -> tuple[str, ...]:
    return tuple(cell_name(i) for i in sorted(indices))


def check_turn(
    board: Board,
    placed: Mapping[str, int],
    hand: Sequence[int] | None = None,
    first_turn: bool | None = None,
) -> TurnResult:
    """Judge one turn: ``placed`` maps cell names to values, ``board`` is the board
    before the turn (it is not changed).

    ``hand`` (optional) is every tile the player held for the turn, placed ones
    included; with it the must-place-all rule is checked too. ``first_turn``
    defaults to "the board is empty".

    Names outside the 15 x 15 grid (``Z99``) raise CellNameError: they are input
    errors, not moves. Names inside the grid that are no cell (``A1``, ``H1``) are
    the violation ``cell-missing``.
    """
    if first_turn is None:
        first_turn = board.count == 0
    violations: list[Violation] = []
    tiles: dict[int, int] = {}
    # something that is no tile still lies on its cell: it counts for connectivity, so
    # a cell gets every code that applies (bad-tile and not-connected alike)
    others: set[int] = set()
    for name, value in placed.items():
        index = grid_index(name)  # raises CellNameError
        exists = index in CELL_SET
        if not exists:
            violations.append(Violation("cell-missing", (name,), f"{name} is not a cell of the board"))
        tile = is_tile_value(value)
        if not tile:
            violations.append(Violation("bad-tile", (name,), f"{value!r} on {name} is not a tile value (1 to 6)"))
        if not exists:
            continue
        if board.values[index]:
            violations.append(Violation(
                "cell-occupied", (name,), f"{name} already holds a {board.values[index]}"))
            continue
        if tile:
            tiles[index] = value
        else:
            others.add(index)

    held_back = _held_back(hand, list(tiles.values()))
    on_board = [board.values[i] for i in board.occupied()]
    for value, n in excess_values(on_board + list(tiles.values()) + held_back).items():
        cells = _sorted_names(i for i, v in tiles.items() if v == value)
        violations.append(Violation(
            "too-many-tiles", cells,
            f"{n} tiles of {value} in play, but the set has only {TILE_SET[value]}"))

    values = list(board.values)
    for i, v in tiles.items():
        values[i] = v

    if first_turn and tiles and START not in tiles:
        violations.append(Violation(
            "first-turn-not-on-start", _sorted_names(tiles),
            "the first turn must cover the red start cell H8"))
    # rule 1: three tiles, which an empty board always takes. With the hand known, too
    # few placed is tile-not-placed (rule 5) instead.
    if first_turn and (len(placed) > FIRST_HAND or hand is None and len(placed) < FIRST_HAND):
        violations.append(Violation(
            "first-turn-not-three", _sorted_names(tiles),
            f"the first turn places three tiles, not {len(placed)}"))
    if hand is not None:
        not_held = Counter(tiles.values()) - Counter(v for v in hand if is_tile_value(v))
        if not_held:
            violations.append(Violation(
                "tile-not-in-hand",
                _sorted_names(i for i, v in tiles.items() if v in not_held),
                f"{', '.join(str(v) for v in sorted(not_held.elements()))} placed, but the "
                f"hand holds {sorted(hand)}"))

    loose = _unconnected(values, board, tiles, first_turn, others)
    if loose:
        violations.append(Violation(
            "not-connected", _sorted_names(loose),
            f"{', '.join(_sorted_names(loose))} not connected to the tiles on the board"
            if board.count else
            f"{', '.join(_sorted_names(loose))} not connected to the group on H8"))

    lines, points, crosses = score_lines(values, sorted(tiles))
    for line in lines:
        if line.sum > 12:
            violations.append(Violation(
                "line-over-12", line.cells,
                f"line {line.cells[0]}-{line.cells[-1]} sums to {line.sum}, more than 12"))

    structural_ok = not violations
    if structural_ok and hand is not None:
        violations.extend(_must_place_all(board, tiles, hand, first_turn))
    if structural_ok:
        violations.extend(_light_cells(board, values, tiles, hand, first_turn))

    legal = not violations
    result = TurnResult(placed=dict(placed), legal=legal, violations=violations, lines=lines)
    if legal:
        result.points = points
        result.crosses = crosses
    return result


def _held_back(hand: Sequence[int] | None, placed_values: list[int]) -> list[int]:
    if hand is None:
        return []
    rest = Counter(v for v in hand if is_tile_value(v))
    rest.subtract(placed_values)
    return sorted(rest.elements())


def _unconnected(values: list[int], board: Board, tiles: Mapping[int, int], first_turn: bool,
                 others: set[int] = frozenset()) -> set[int]:
    """New tiles that no path of tiles joins to the board (or, first turn, to H8).
    ``others``: empty cells given a value that is no tile; they are judged the same
    way and join their neighbours as any piece on the board would."""
    if not tiles and not others:
        return set()
    if first_turn or board.count == 0:
        roots = [START] if START in tiles or START in others else []
    else:
        roots = [i for i in board.occupied()]
    reached = set(roots)
    stack = list(roots)
    while stack:
        i = stack.pop()
        for n in NEIGHBOURS[i]:
            if (values[n] or n in others) and n not in reached:
                reached.add(n)
                stack.append(n)
    return {i for i in (*tiles, *others) if i not in reached}


def _must_place_all(board: Board, tiles: Mapping[int, int], hand: Sequence[int], first_turn: bool) -> list[Violation]:
    """Rule 5: with the hand known, no admissible placement may use more tiles."""
    usable = [v for v in hand if is_tile_value(v)]
    if len(tiles) >= len(usable) or first_turn and len(tiles) >= FIRST_HAND:
        return []  # rule 1: the first turn places three tiles, never more
    better = next(iter_placements(board, usable, len(tiles) + 1, first_turn), None)
    if better is None:
        return []
    could = sorted(v for _, v in better)
    held = _held_back(usable, list(tiles.values()))
    return [Violation(
        "tile-not-placed", (),
        f"{len(tiles)} of {len(usable)} tiles placed, but {len(better)} could have been "
        f"(for example {', '.join(map(str, could))}); held back: {', '.join(map(str, held))}")]


def _light_cells(board: Board, values: list[int], tiles: Mapping[int, int],
                 hand: Sequence[int] | None, first_turn: bool) -> list[Violation]:
    """Rule 4: a light cell without a scoring line is allowed only when every way of
    placing as many tiles covers at least as many such light cells."""
    bare = sorted(i for i in tiles if i in LIGHT and not in_scoring_line(values, i))
    if not bare:
        return []
    pool = [v for v in hand if is_tile_value(v)] if hand is not None else list(tiles.values())
    fewest = fewest_nonscoring_light(board, pool, len(tiles), first_turn, below=len(bare))
    if fewest is not None and fewest < len(bare):
        names = _sorted_names(bare)
        return [Violation(
            "light-cell-without-score", names,
            f"light cell {', '.join(names)} covered without a line of 10, 11 or 12, "
            f"though the tiles could have been placed with {fewest} such cell(s)")]
    return []


def admissible(board: Board, placement: Mapping[int, int]) -> bool:
    """Rules 2-3 only, on indices: connected and no line over 12 (for callers that
    build placements themselves)."""
    values = list(board.values)
    for i, v in placement.items():
        values[i] = v
    if any(not fits(values, i) for i in placement):
        return False
    return not _unconnected(values, board, placement, board.count == 0)


__all__ = [
    "CellNameError",
    "LINE_POINTS",
    "Line",
    "SUMS",
    "TurnResult",
    "Violation",
    "admissible",
    "check_turn",
    "points_by_sum",
    "score_lines",
]
