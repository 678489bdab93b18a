"""The Zatre board: 193 cells, their names, light (x2) cells, and lines.

Geometry follows ``rules.md``: a 15 x 15 grid (columns ``A``..``O`` left to right,
rows ``1``..``15`` top to bottom) with the corners cut away, leaving a 13 x 13 square
plus four arms of six cells. The middle cell of each arm (H1, H15, A8, O8) is a gap.

Internally a cell is an integer index into a 17 x 17 grid padded by one empty ring,
so that walking along a row or column never needs a bounds check. Public functions
take and return cell *names* (``"H8"``); the index form is for the engine's hot loops.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

COLUMNS = "ABCDEFGHIJKLMNO"
SIZE = 15
STRIDE = SIZE + 2  # padded width
GRID_CELLS = STRIDE * STRIDE

# Direction steps in padded index space.
LEFT, RIGHT, UP, DOWN = -1, 1, -STRIDE, STRIDE
ORTHOGONAL = (LEFT, RIGHT, UP, DOWN)

_NAME_RE = re.compile(r"^([A-O])(1[0-5]|[1-9])$")
_ARM_COLUMNS = (4, 5, 6, 8, 9, 10)  # E F G I J K  (0-based)
_ARM_ROWS = (4, 5, 6, 8, 9, 10)  # rows 5 6 7 9 10 11 (0-based)


def index_of(row: int, col: int) -> int:
    """Padded index of the 0-based (row, col) position of the 15 x 15 grid."""
    return (row + 1) * STRIDE + (col + 1)


def row_col(index: int) -> tuple[int, int]:
    """0-based (row, col) of a padded index."""
    r, c = divmod(index, STRIDE)
    return r - 1, c - 1


def _exists(row: int, col: int) -> bool:
    if 1 <= row <= 13 and 1 <= col <= 13:
        return True
    if row in (0, 14):
        return col in _ARM_COLUMNS
    if col in (0, 14):
        return row in _ARM_ROWS
    return False


def _is_light(row: int, col: int) -> bool:
    if 1 <= row <= 13 and 1 <= col <= 13 and (row == col or row + col == 14):
        return True
    return (row, col) in {(0, 6), (0, 8), (14, 6), (14, 8), (6, 0), (8, 0), (6, 14), (8, 14)}


#: Padded indices of every existing cell, in reading order (row by row).
CELLS: tuple[int, ...] = tuple(
    index_of(r, c) for r in range(SIZE) for c in range(SIZE) if _exists(r, c)
)
CELL_SET: frozenset[int] = frozenset(CELLS)
LIGHT: frozenset[int] = frozenset(i for i in CELLS if _is_light(*row_col(i)))
START: int = index_of(7, 7)  # H8

NAMES: dict[int, str] = {i: f"{COLUMNS[row_col(i)[1]]}{row_col(i)[0] + 1}" for i in CELLS}
_INDEX_BY_NAME: dict[str, int] = {name: i for i, name in NAMES.items()}

#: For every existing cell, its existing orthogonal neighbours.
NEIGHBOURS: dict[int, tuple[int, ...]] = {
    i: tuple(i + d for d in ORTHOGONAL if i + d in CELL_SET) for i in CELLS
}


class CellNameError(ValueError):
    """A string that is not a cell name of the 15 x 15 grid at all (``Z99``)."""


def is_grid_name(name: str) -> bool:
    """True for any name of the 15 x 15 grid, ``A1``..``O15``, gaps and cut corners included."""
    return bool(_NAME_RE.match(name))


def grid_index(name: str) -> int:
    """Padded index of a grid name; the cell may not exist (``A1``). Raises CellNameError."""
    m = _NAME_RE.match(name)
    if not m:
        raise CellNameError(f"{name!r} is not a cell name (columns A-O, rows 1-15)")
    return index_of(int(m.group(2)) - 1, COLUMNS.index(m.group(1)))


def cell_index(name: str) -> int:
    """Padded index of an existing cell. Raises CellNameError for anything else."""
    try:
        return _INDEX_BY_NAME[name]
    except KeyError:
        if is_grid_name(name):
            raise CellNameError(f"{name} is not a cell of the board") from None
        raise CellNameError(f"{name!r} is not a cell name (columns A-O, rows 1-15)") from None


def cell_name(index: int) -> str:
    """Name of a padded index, for existing cells and for gaps alike."""
    if index in NAMES:
        return NAMES[index]
    r, c = row_col(index)
    return f"{COLUMNS[c]}{r + 1}"


def all_cell_names() -> list[str]:
    """The 193 cell names in reading order."""
    return [NAMES[i] for i in CELLS]


def is_light(name: str) -> bool:
    return cell_index(name) in LIGHT


class Board:
    """Tiles on the board: a mutable mapping from cell to pip value (1..6).

    ``values`` is a flat list over the padded grid; 0 means empty (or no cell).
    """

    __slots__ = ("values", "count")

    def __init__(self, tiles: Mapping[str, int] | None = None):
        self.values: list[int] = [0] * GRID_CELLS
        self.count = 0
        if tiles:
            for name, value in tiles.items():
                self.put(cell_index(name), value)

    # -- index API (engine) ------------------------------------------------------
    def put(self, index: int, value: int) -> None:
        if self.values[index] == 0:
            self.count += 1
        self.values[index] = value

    def remove(self, index: int) -> None:
        if self.values[index]:
            self.count -= 1
        self.values[index] = 0

    def occupied(self) -> Iterator[int]:
        v = self.values
        return (i for i in CELLS if v[i])

    def copy(self) -> Board:
        b = Board.__new__(Board)
        b.values = list(self.values)
        b.count = self.count
        return b

    def frontier(self) -> set[int]:
        """Empty cells touching a tile (the start cell on an empty board)."""
        v = self.values
        if self.count == 0:
            return {START}
        out: set[int] = set()
        for i in CELLS:
            if v[i]:
                for n in NEIGHBOURS[i]:
                    if not v[n]:
                        out.add(n)
        return out

    # -- name API ----------------------------------------------------------------
    def __getitem__(self, name: str) -> int:
        return self.values[cell_index(name)]

    def get(self, name: str) -> int:
        return self.values[cell_index(name)]

    def to_dict(self) -> dict[str, int]:
        v = self.values
        return {NAMES[i]: v[i] for i in CELLS if v[i]}

    def __len__(self) -> int:
        return self.count

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self.values == other.values

    def __repr__(self) -> str:
        return f"Board({self.to_dict()!r})"

    def render(self) -> str:
        """A text picture of the board: digits for tiles, '.' empty, '*' empty light cell."""
        lines = ["   " + " ".join(COLUMNS)]
        for r in range(SIZE):
            row = []
            for c in range(SIZE):
                i = index_of(r, c)
                if i not in CELL_SET:
                    row.append(" ")
                elif self.values[i]:
                    row.append(str(self.values[i]))
                else:
                    row.append("*" if i in LIGHT else ".")
            lines.append(f"{r + 1:>2} " + " ".join(row))
        return "\n".join(lines)


def run_through(values: list[int], index: int, step: int) -> tuple[int, int, int]:
    """The run of occupied cells through ``index`` along ``step`` (RIGHT or DOWN).

    Returns (first index, length, sum). ``values[index]`` must be non-zero.
    """
    s = values[index]
    first = index
    j = index - step
    while values[j]:
        s += values[j]
        first = j
        j -= step
    n = (index - first) // step + 1
    j = index + step
    while values[j]:
        s += values[j]
        n += 1
        j += step
    return first, n, s


def line_cells(first: int, length: int, step: int) -> list[int]:
    return [first + k * step for k in range(length)]


def lines_through(values: list[int], cells: Iterable[int]) -> list[tuple[tuple[int, ...], int]]:
    """Every line (run of two or more tiles) through any of ``cells``, once each.

    Empty cells among ``cells`` are skipped.

    Returns ``(cells of the line, sum)`` pairs, ordered by the line's first cell,
    rows before columns.
    """
    seen: set[tuple[int, int]] = set()
    out: list[tuple[int, tuple[int, ...], int]] = []
    for i in cells:
        if not values[i]:
            continue
        for order, step in ((0, RIGHT), (1, DOWN)):
            first, n, s = run_through(values, i, step)
            if n >= 2 and (first, step) not in seen:
                seen.add((first, step))
                out.append((first * 2 + order, tuple(line_cells(first, n, step)), s))
    out.sort()
    return [(cells_, s) for _, cells_, s in out]
