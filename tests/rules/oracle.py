"""A slow reference for one turn, written from ``shared/spec/rules.md`` alone.

It shares no code with the engine: the board's cells and light cells, the lines, the
placing rules and the scoring are stated again here, as the rules page says them,
on cell names and plain dictionaries. It enumerates every placement of (part of) the
hand and then applies rules 4 and 5 as the page defines them: among the placements
that keep rules 1-3, the legal ones place as many tiles as possible and, among those,
cover as few light cells without a scoring line as possible.

Only for small positions: it is exponential in the hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

COLUMNS = "ABCDEFGHIJKLMNO"
ARM = (5, 6, 7, 9, 10, 11)  # the arms' rows (or columns) that exist, 1-based; 8 is the gap
START = "H8"
POINTS = {10: 1, 11: 2, 12: 4}


def name(row: int, col: int) -> str:
    """Cell name of the 1-based (row, column)."""
    return f"{COLUMNS[col - 1]}{row}"


def exists(row: int, col: int) -> bool:
    """Rules: rows and columns 2..14; row 1 and 15 at E F G I J K; column A and O at
    rows 5 6 7 9 10 11."""
    if 2 <= row <= 14 and 2 <= col <= 14:
        return True
    if row in (1, 15):
        return col in ARM
    if col in (1, 15):
        return row in ARM
    return False


def light(row: int, col: int) -> bool:
    """Both diagonals of the 13 x 13 square, plus G1 I1 G15 I15 A7 A9 O7 O9."""
    if 2 <= row <= 14 and 2 <= col <= 14 and (row == col or row + col == 16):
        return True
    return (row, col) in {(1, 7), (1, 9), (15, 7), (15, 9), (7, 1), (9, 1), (7, 15), (9, 15)}


POS = {name(r, c): (r, c) for r in range(1, 16) for c in range(1, 16) if exists(r, c)}
LIGHT = {n for n, (r, c) in POS.items() if light(r, c)}


def neighbours(cell: str) -> list[str]:
    r, c = POS[cell]
    return [name(r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if exists(r + dr, c + dc)]


def lines_through(tiles: Mapping[str, int], cell: str) -> list[tuple[tuple[str, ...], int]]:
    """The row and the column line through ``cell``: maximal runs of two or more
    occupied cells side by side (a gap or an empty cell ends a line)."""
    r, c = POS[cell]
    out = []
    for dr, dc in ((0, 1), (1, 0)):
        run = [cell]
        for sign in (-1, 1):
            k = 1
            while True:
                rr, cc = r + sign * k * dr, c + sign * k * dc
                if not exists(rr, cc) or name(rr, cc) not in tiles:
                    break
                run.append(name(rr, cc))
                k += 1
        if len(run) >= 2:
            cells = tuple(sorted(run, key=lambda n: POS[n]))
            out.append((cells, sum(tiles[n] for n in cells)))
    return out


def turn_lines(board: Mapping[str, int], placed: Mapping[str, int]) -> dict:
    """Every line holding at least one tile of this turn, once each: cells -> sum."""
    tiles = {**board, **placed}
    return dict(line for cell in placed for line in lines_through(tiles, cell))


def keeps_rules_1_to_3(board: Mapping[str, int], placed: Mapping[str, int]) -> bool:
    """Rule 1 (first turn: three tiles, one on H8, one connected group), rule 2 (every
    tile joined to the board through tiles) and rule 3 (no line over 12), on free cells."""
    if any(cell not in POS or cell in board for cell in placed):
        return False
    if not board:
        if len(placed) != 3 or START not in placed:
            return False
        roots = {START}
    else:
        roots = set(board)
    tiles = {**board, **placed}
    reached, todo = set(roots), list(roots)
    while todo:
        for n in neighbours(todo.pop()):
            if n in tiles and n not in reached:
                reached.add(n)
                todo.append(n)
    if not set(placed) <= reached:
        return False
    return all(total <= 12 for total in turn_lines(board, placed).values())


def bare_light(board: Mapping[str, int], placed: Mapping[str, int]) -> int:
    """Tiles of this turn on a light cell that lies in no line of 10, 11 or 12 (rule 4),
    the line in either direction."""
    tiles = {**board, **placed}
    return sum(1 for cell in placed if cell in LIGHT
               and not any(10 <= s <= 12 for _, s in lines_through(tiles, cell)))


def score(board: Mapping[str, int], placed: Mapping[str, int]) -> tuple[dict[int, int], int]:
    """Points by sum (a line of this turn scores once) and crosses (a tile of this turn on
    a light cell in a scoring line of this turn)."""
    points = dict.fromkeys(POINTS, 0)
    scoring = [(cells, s) for cells, s in turn_lines(board, placed).items() if s in POINTS]
    for _, s in scoring:
        points[s] += POINTS[s]
    crosses = sum(1 for cell in placed if cell in LIGHT
                  and any(cell in cells for cells, _ in scoring))
    return points, crosses


def placements(board: Mapping[str, int], hand: Sequence[int]) -> set[frozenset]:
    """Every placement of part of ``hand`` (the empty one included) that keeps rules
    1-3, as frozensets of (cell, value).

    Built as rule 2 reads: each tile goes on a free cell beside the board or beside a
    tile placed earlier in the turn (on an empty board the group starts on H8). A line
    only grows when tiles are added, so a partial placement with a line over 12 is not
    extended; every result is checked again by :func:`keeps_rules_1_to_3`."""
    found: set[frozenset] = {frozenset()}
    seen: set[frozenset] = set()

    def grow(placed: dict[str, int], left: Counter) -> None:
        key = frozenset(placed.items())
        if key in seen:
            return
        seen.add(key)
        if keeps_rules_1_to_3(board, placed):
            found.add(key)
        if not +left:
            return
        tiles = {**board, **placed}
        if tiles:
            free = {n for cell in tiles for n in neighbours(cell) if n not in tiles}
        else:
            free = {START}
        for cell in free:
            for value in [v for v in left if left[v] > 0]:
                nxt = {**placed, cell: value}
                if any(s > 12 for _, s in lines_through({**board, **nxt}, cell)):
                    continue
                grow(nxt, left - Counter([value]))

    grow({}, Counter(hand))
    return {p for p in found if keeps_rules_1_to_3(board, dict(p))} | {frozenset()}


def legal_turns(board: Mapping[str, int], hand: Sequence[int]) -> set[frozenset]:
    """Rules 4 and 5 with the hand known: as many tiles as possible, then as few bare
    light cells as possible. ``{frozenset()}`` when nothing can be placed."""
    every = placements(board, hand)
    most = max(len(p) for p in every)
    biggest = [p for p in every if len(p) == most]
    fewest = min(bare_light(board, dict(p)) for p in biggest)
    return {p for p in biggest if bare_light(board, dict(p)) == fewest}


def is_legal(board: Mapping[str, int], placed: Mapping[str, int],
             hand: Sequence[int] | None) -> bool:
    """The verdict on one turn. With the hand unknown (``None``), rule 5 cannot be
    checked, and rule 4 compares the placement with the other ways of placing the same
    tiles (the page's "all legal ways to place the same tiles")."""
    if hand is not None:
        if +(Counter(placed.values()) - Counter(hand)):
            return False
        return frozenset(placed.items()) in legal_turns(board, hand)
    if not placed:
        return bool(board)
    if not keeps_rules_1_to_3(board, placed):
        return False
    same = [p for p in placements(board, list(placed.values())) if len(p) == len(placed)]
    return bare_light(board, placed) <= min(bare_light(board, dict(p)) for p in same)
