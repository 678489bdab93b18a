"""Search over the placements of a set of tiles (the engine's hot loop).

A *placement* is a tuple of ``(cell index, value)`` pairs sorted by cell. A placement
is *admissible* when it satisfies rules 1-3 of ``rules.md``: it is connected to the
board (or, on the first turn, covers the start cell as one group) and leaves no line
over 12. Rule 4 (light cells) is judged on whole placements afterwards, because a
later tile of the same turn can still complete a scoring line.

The search adds one tile at a time on the frontier. It is complete: every admissible
placement can be built that way (order its tiles outward from the board), and a
prefix of an admissible placement is admissible, since line sums only grow.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .board import DOWN, LIGHT, NEIGHBOURS, RIGHT, START, Board

Placement = tuple[tuple[int, int], ...]


class BudgetSpent(Exception):
    """A search ran out of its ``StepBudget`` (raised inside the search, caught by the
    caller that set the budget)."""


class StepBudget:
    """The most steps one search may take, whatever the position: a step is one
    (cell, value) tried, so time and memory (the placements seen) are bounded by it.
    ``take`` raises ``BudgetSpent`` once the steps are spent."""

    __slots__ = ("left", "steps")

    def __init__(self, steps: int):
        if steps < 1:
            raise ValueError(f"a search budget is at least one step, not {steps}")
        self.steps = steps
        self.left = steps

    def take(self, n: int = 1) -> None:
        self.left -= n
        if self.left < 0:
            raise BudgetSpent(f"the search took its {self.steps} steps")

    @property
    def spent(self) -> int:
        return self.steps - max(self.left, 0)


def neighbour_sums(values: list[int], index: int) -> tuple[int, int]:
    """Sums of the tiles touching ``index`` in a run along its row and its column (the
    cell itself not counted)."""
    sums = []
    for step in (RIGHT, DOWN):
        s = 0
        j = index - step
        while values[j]:
            s += values[j]
            j -= step
        j = index + step
        while values[j]:
            s += values[j]
            j += step
        sums.append(s)
    return sums[0], sums[1]


def fits(values: list[int], index: int) -> bool:
    """True when the tile at ``index`` leaves its row and column at 12 or less."""
    return values[index] + max(neighbour_sums(values, index)) <= 12


def in_scoring_line(values: list[int], index: int) -> bool:
    """True when the tile at ``index`` lies in a row or column line summing to 10..12."""
    for step in (RIGHT, DOWN):
        s = values[index]
        n = 1
        j = index - step
        while values[j]:
            s += values[j]
            n += 1
            j -= step
        j = index + step
        while values[j]:
            s += values[j]
            n += 1
            j += step
        if n >= 2 and 10 <= s <= 12:
            return True
    return False


def nonscoring_light(values: list[int], placement: Placement) -> int:
    """How many tiles of ``placement`` (already put into ``values``) lie on a light
    cell without being in a scoring line."""
    n = 0
    for index, _ in placement:
        if index in LIGHT and not in_scoring_line(values, index):
            n += 1
    return n


def _initial_frontier(board: Board, first_turn: bool) -> frozenset[int]:
    if first_turn:
        return frozenset((START,)) if not board.values[START] else frozenset()
    return frozenset(board.frontier()) if board.count else frozenset((START,))


def iter_placements(
    board: Board, tiles: Sequence[int], size: int, first_turn: bool = False,
    avoid: frozenset[int] = frozenset(), budget: StepBudget | None = None,
) -> Iterator[Placement]:
    """Every distinct admissible placement of exactly ``size`` of ``tiles``.

    ``tiles`` is a multiset of values; which ``size`` of them are used is free.
    ``avoid``: cells no tile may take (the analysis asks for placements on dark
    cells only, which are legal whenever ``size`` tiles is the most placeable).
    ``budget``: raise ``BudgetSpent`` once it is spent (None: no bound).
    """
    if size <= 0:
        yield ()
        return
    values = list(board.values)
    remaining = sorted(tiles)
    seen: set[frozenset[tuple[int, int]]] = set()
    yield from _grow(values, _initial_frontier(board, first_turn) - avoid, remaining, size,
                     frozenset(), seen, avoid, budget)


def _grow(
    values: list[int],
    frontier: frozenset[int],
    remaining: list[int],
    size: int,
    placed: frozenset[tuple[int, int]],
    seen: set[frozenset[tuple[int, int]]],
    avoid: frozenset[int] = frozenset(),
    budget: StepBudget | None = None,
) -> Iterator[Placement]:
    distinct = sorted(set(remaining))
    last = len(placed) + 1 == size
    if budget is not None:
        budget.take(len(frontier) * len(distinct) or 1)
    for cell in frontier:
        for v in distinct:
            values[cell] = v
            if fits(values, cell):
                key = placed | {(cell, v)}
                if key not in seen:
                    seen.add(key)
                    if last:
                        yield tuple(sorted(key))
                    else:
                        rest = list(remaining)
                        rest.remove(v)
                        grown = frontier.union(n for n in NEIGHBOURS[cell] if not values[n])
                        grown = grown - {cell} - avoid if avoid else grown - {cell}
                        yield from _grow(values, grown, rest, size, key, seen, avoid, budget)
            values[cell] = 0


def largest_placeable(board: Board, tiles: Sequence[int], first_turn: bool = False,
                      at_least: int = 0, budget: StepBudget | None = None) -> int:
    """The most of ``tiles`` that can be placed together (0 when none can).

    ``at_least`` is a count already known to be placeable; the search only looks
    for larger placements. ``budget``: see ``iter_placements``.
    """
    best = max(0, at_least)
    for size in range(best + 1, len(tiles) + 1):
        if next(iter_placements(board, tiles, size, first_turn, budget=budget), None) is None:
            break
        best = size
    return best


def placement_nonscoring_light(board: Board, placement: Placement) -> int:
    """Non-scoring light cells of a placement on ``board`` (board is not changed)."""
    if not any(index in LIGHT for index, _ in placement):
        return 0
    values = list(board.values)
    for index, v in placement:
        values[index] = v
    return nonscoring_light(values, placement)


def fewest_nonscoring_light(board: Board, tiles: Sequence[int], size: int,
                            first_turn: bool = False, below: int | None = None) -> int | None:
    """The fewest non-scoring light cells over admissible placements of ``size`` tiles.

    Stops early at 0, or as soon as a placement with fewer than ``below`` is found
    (then that count is returned). None when no placement of that size exists.
    """
    best: int | None = None
    for placement in iter_placements(board, tiles, size, first_turn):
        n = placement_nonscoring_light(board, placement)
        if best is None or n < best:
            best = n
            if n == 0 or (below is not None and n < below):
                break
    return best
