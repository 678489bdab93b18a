"""The best moves of a hand without listing every legal placement: branch and bound.

A placement falls apart into *groups*: tiles that share a line (a row or column run of
the board after the move), joined transitively. A tile that touches another tile of
the move shares a line with it, so each group is connected to the board on its own
(rules 2 and 3 hold group by group); the groups' lines are disjoint, so what the move
enters on the sheet (how many lines of 10, of 11 and of 12, how many crosses) and how
many light cells it covers without a scoring line are sums over its groups. A team's
4-tile hand has tens of thousands of legal placements, nearly all of them a few small
groups put side by side, but only a few thousand groups.

So the search lists the groups (``groups``), then combines groups that keep off each
other's lines into moves of the right size. Before it opens a branch it bounds the
best the branch can still reach: what is chosen plus, for the tiles still to place,
every entry some split of them into groups could add (the Pareto-best sums of the
groups' entries, each tile set on its own, ignoring whether those groups fit beside
the chosen ones: an upper bound). The sheet's total and ``moves.sheet_value`` only
grow when a line or a cross is added, so that entry bounds both measures; a branch
that cannot beat the best move found by points, nor the ``keep`` best by value, is
closed. What is left is exact, not a sample.

It covers the usual case: the turn adds to a board, and some legal move covers no
light cell without a scoring line (so every combination of such groups of the most
placeable size is legal). Otherwise (the opening turn, a hand whose every placement
covers a bare light cell) it says so and the caller lists the moves instead. Every
step is charged to a ``StepBudget``: the search stops with ``BudgetSpent`` when it
runs out, whatever the position. Pure: no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import product
from typing import NamedTuple

from .board import CELL_SET, DOWN, LIGHT, RIGHT, Board
from .search import BudgetSpent, Placement, StepBudget, fits, in_scoring_line

#: A move's entry on the sheet: lines of 10, of 11, of 12, and crosses.
Entry = tuple[int, int, int, int]
#: Both measures of an entry: (points, value).
Measure = Callable[[Entry], tuple[int, float]]
#: Sheet values closer than this are equal (float sums in a different order).
EPSILON = 1e-9


class Group(NamedTuple):
    """Tiles of one move that share lines, as if placed alone."""

    tiles: tuple[int, ...]  # how many of each value 1..6
    size: int
    cells: int  # bit mask of its cells
    reach: int  # bit mask of its lines' cells and the cells just beyond their ends
    entry: Entry
    bare: int  # light cells covered without a scoring line
    placement: Placement


def _counts(values: Sequence[int]) -> tuple[int, ...]:
    c = Counter(values)
    return tuple(c[v] for v in range(1, 7))


def _bare(values: list[int], cells: list[int]) -> int:
    return sum(1 for t in cells if t in LIGHT and not in_scoring_line(values, t))


def _describe(values: list[int], cells: list[int], tiles: tuple[int, ...], bare: int) -> Group:
    """The group of ``cells`` (already in ``values``) holding ``tiles`` (per value)."""
    sums = [0, 0, 0]
    reach = 0
    mask = 0
    seen = set()
    for t in cells:
        mask |= 1 << t
        for step in (RIGHT, DOWN):
            first = t
            while values[first - step]:
                first -= step
            if (first, step) in seen:
                continue
            seen.add((first, step))
            reach |= 1 << (first - step)
            j, total, n = first, 0, 0
            while values[j]:
                reach |= 1 << j
                total += values[j]
                n += 1
                j += step
            reach |= 1 << j
            if n >= 2 and 10 <= total <= 12:
                sums[total - 10] += 1
    crosses = sum(1 for t in cells if t in LIGHT) - bare
    return Group(tiles, len(cells), mask, reach, (sums[0], sums[1], sums[2], crosses), bare,
                 tuple(sorted((t, values[t]) for t in cells)))


def groups(board: Board, hand: Sequence[int], most: int, budget: StepBudget,
           clean: bool = False) -> tuple[list[Group], bool]:
    """Every group of at most ``most`` of ``hand``'s tiles that can go on ``board`` (not
    empty), and whether the list is complete. Grown a size at a time from the tiles
    touching the board, by tiles at the ends of their lines; when the budget runs out
    the list holds every smaller group and some of the size being grown. ``clean``:
    only the groups that cover no light cell without a scoring line."""
    values = list(board.values)
    have = [0] * 7
    for v in hand:
        have[v] += 1
    seen: set[frozenset] = set()
    out: list[Group] = []

    def ends(cells: list[int]) -> list[int]:
        found = set()
        for t in cells:
            for step in (RIGHT, DOWN, -RIGHT, -DOWN):
                j = t + step
                while values[j]:
                    j += step
                if j in CELL_SET:
                    found.add(j)
        return sorted(found)

    level: list[tuple[tuple[tuple[int, int], ...], frozenset]] = [((), frozenset())]
    try:
        for _ in range(most):
            grown_level = []
            for placed, key in level:
                for i, v in placed:
                    values[i] = v
                used = [0] * 7
                for _, v in placed:
                    used[v] += 1
                cells = [i for i, _ in placed]
                candidates = ends(cells) if placed else sorted(board.frontier())
                distinct = [v for v in range(1, 7) if used[v] < have[v]]
                budget.take(len(candidates) * len(distinct) or 1)
                for x in candidates:
                    for v in distinct:
                        values[x] = v
                        if fits(values, x):
                            grown = key | {(x, v)}
                            if grown not in seen:
                                seen.add(grown)
                                cells.append(x)
                                used[v] += 1
                                bare = _bare(values, cells)
                                if not (clean and bare):
                                    out.append(_describe(values, cells, tuple(used[1:]), bare))
                                grown_level.append(((*placed, (x, v)), grown))
                                cells.pop()
                                used[v] -= 1
                    values[x] = 0
                for i, _ in placed:
                    values[i] = 0
            level = grown_level
    except BudgetSpent:
        return out, False
    return out, True


def _pareto(entries) -> list[Entry]:
    """The entries no other one matches or beats in every part."""
    out: list[Entry] = []
    for e in sorted(set(entries), reverse=True):
        if not any(o[0] >= e[0] and o[1] >= e[1] and o[2] >= e[2] and o[3] >= e[3]
                   for o in out):
            out.append(e)
    return out


def _add(a: Entry, b: Entry) -> Entry:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3])


def _by_points(move: tuple[int, float, Placement]) -> tuple:
    """Sort key: most points, then most value, then the first by cell."""
    return (-move[0], -move[1], move[2])


def _by_value(move: tuple[int, float, Placement]) -> tuple:
    """Sort key: most value, then most points, then the first by cell."""
    return (-move[1], -move[0], move[2])


@dataclass
class Found:
    """What the search keeps: the best move by points and the ``keep`` best by value,
    each as (points, value, placement); ``compared``: complete moves valued;
    ``capped``: the budget ran out, so these are the best of the moves seen (every one
    legal), and a better one may exist."""

    best_points: tuple[int, float, Placement] | None
    by_value: list[tuple[int, float, Placement]]
    compared: int
    capped: bool = False


def best_moves(board: Board, hand: Sequence[int], size: int, measure: Measure,
               budget: StepBudget, keep: int = 4) -> Found | None:
    """The best legal moves of ``size`` tiles of ``hand`` (the most placeable), by
    branch and bound. None when this search does not apply: the board is empty, or no
    move of that size avoids every bare light cell (then the fewest bare light cells
    decides what is legal). When the budget runs out it returns the best moves seen,
    ``capped`` (none, when it saw none)."""
    if board.count == 0 or size < 1:
        return None
    share = StepBudget(max(1, budget.left // 2))  # the groups may take half of it
    clean, complete = groups(board, hand, size, share, clean=True)
    budget.left -= share.spent  # charged; the search below raises once nothing is left
    best: list = [None]  # (points, value, placement)
    top: list[tuple[int, float, Placement]] = []
    compared = [0]

    def search() -> None:
        # best first, so good moves are found early and close more branches
        ranked = sorted(clean, key=lambda g: (-measure(g.entry)[1], g.placement))
        have = _counts(hand)

        # Pareto-best entries of each tile set placed as one group, then as any split
        single: dict[tuple, set] = {}
        for g in ranked:
            single.setdefault(g.tiles, set()).add(g.entry)
        subsets = sorted(product(*(range(n + 1) for n in have)), key=sum)
        best_of: dict[tuple, list[Entry]] = {}
        for m in subsets:
            if not any(m):
                continue
            options = set(single.get(m, ()))
            for part in subsets:
                if not any(part) or part == m or any(p > q for p, q in zip(part, m, strict=True)):
                    continue
                rest = tuple(q - p for p, q in zip(part, m, strict=True))
                if part > rest:
                    continue  # each split once
                left, right = best_of.get(part), best_of.get(rest)
                if left and right:
                    budget.take(len(left) * len(right))
                    options.update(_add(a, b) for a in left for b in right)
            best_of[m] = _pareto(options)

        to_place: dict[tuple, list[Entry]] = {}

        def still(rem: tuple, k: int) -> list[Entry]:
            got = to_place.get((rem, k))
            if got is None:
                got = _pareto(e for m in subsets if sum(m) == k and all(p <= q for p, q in zip(m, rem, strict=True))
                              for e in best_of.get(m, ()))
                to_place[(rem, k)] = got
            return got

        by_tiles: dict[tuple, list[int]] = {}
        for i, g in enumerate(ranked):
            by_tiles.setdefault(g.tiles, []).append(i)
        kinds = sorted(by_tiles.items(), key=lambda kv: kv[1][0])


        # Ties: the first placement in cell order wins, as a listing of every move would
        # have it; so a branch is closed only when it cannot even tie.
        def improvable(points: int, value: float) -> bool:
            b = best[0]
            if b is None or points > b[0] or (points == b[0] and value > b[1] - EPSILON):
                return True
            if len(top) < keep:
                return True
            low = top[-1]
            return value > low[1] + EPSILON or (value > low[1] - EPSILON and points >= low[0])

        def leaf(entry: Entry, chosen: list[int]) -> None:
            compared[0] += 1
            points, value = measure(entry)
            b = best[0]
            low = top[-1] if len(top) >= keep else None
            if not (b is None or points > b[0] or (points == b[0] and value > b[1] - EPSILON)
                    or low is None or value > low[1] + EPSILON
                    or (value > low[1] - EPSILON and points >= low[0])):
                return
            placement = tuple(sorted(cell for i in chosen for cell in ranked[i].placement))
            move = (points, value, placement)
            if b is None or _by_points(move) < _by_points(b):
                best[0] = move
            if low is None or _by_value(move) < _by_value(low):
                top.append(move)
                top.sort(key=_by_value)
                del top[keep:]

        def branch(start: int, rem: tuple, k: int, entry: Entry, cells: int, reach: int,
                   chosen: list[int]) -> None:
            if k == 0:
                leaf(entry, chosen)
                return
            reachable = still(rem, k)
            if not reachable:
                return
            points = value = None
            for e in reachable:
                p, v = measure(_add(entry, e))
                points = p if points is None else max(points, p)
                value = v if value is None else max(value, v)
            if not improvable(points, value):
                return
            for tiles, members in kinds:
                if any(t > r for t, r in zip(tiles, rem, strict=True)):
                    continue
                n = ranked[members[0]].size
                if n > k:
                    continue
                left = tuple(r - t for t, r in zip(tiles, rem, strict=True))
                budget.take(len(members))
                for i in members:
                    if i < start:
                        continue
                    g = ranked[i]
                    if g.cells & reach or g.reach & cells:
                        continue
                    chosen.append(i)
                    branch(i + 1, left, k - n, _add(entry, g.entry), cells | g.cells,
                           reach | g.reach, chosen)
                    chosen.pop()

        branch(0, have, size, (0, 0, 0, 0), 0, 0, [])

    try:
        search()
    except BudgetSpent:
        complete = False
    if best[0] is None and complete:
        return None  # no move of this size without a bare light cell
    return Found(best[0], top, compared[0], not complete)


__all__ = ["EPSILON", "Found", "Group", "best_moves", "groups"]
