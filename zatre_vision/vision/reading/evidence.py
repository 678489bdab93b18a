"""``Evidence``: everything the reader measured on one located board, and nothing it
decided: the record ``measure`` makes and ``decide.decide`` weighs.

Per cell (arrays in ``CELL_NAMES`` order): the network's class probabilities (after the
measurements that read doubtful cells again: steadied, high resolution), the classical
pip count, whether the cell's middle is too dark to hold a tile, and how bright three
quarters of it are. Per photo: how sharp the board is, how sharp in its weakest
direction (a streak), whether its orientation is known. And the network's readings of
cells from moved crops (``MovedReadings``: re-centred, and moved away from a hand) for
the cells the decision will ask about. A frozen record of plain values: ``decide`` never
writes to its arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..geometry import CELL_NAMES


class MissingReadings(ValueError):
    """The decision asked for moved readings of a cell that was not measured."""


@dataclass(frozen=True)
class MovedReadings:
    """The network's readings of the cells ``cells`` (indices in ``CELL_NAMES`` order)
    from crops moved by each of a list of shifts: ``readings`` (shifts, cells, 8)."""

    cells: np.ndarray = field(default_factory=lambda: np.zeros(0, np.intp))
    readings: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 8)))

    def of(self, index: np.ndarray, what: str = "moved") -> np.ndarray:
        """(shifts, len(index), 8): the readings of the cells ``index``, in that order.
        MissingReadings when one was not measured."""
        where = np.full(len(CELL_NAMES), -1, np.intp)
        where[np.asarray(self.cells, np.intp)] = np.arange(len(self.cells))
        at = where[np.asarray(index, np.intp)]
        if (at < 0).any():
            missing = [CELL_NAMES[i] for i in np.asarray(index)[at < 0]]
            raise MissingReadings(f"no {what} readings of {', '.join(missing)} were "
                                  "measured (measure.with_rereads, for the cells "
                                  "decide.cells_to_reread names)")
        return self.readings[:, at]


@dataclass(frozen=True)
class Evidence:
    """What ``decide`` weighs (see the module)."""

    #: (193, 8): the network's probabilities of the 8 classes (steadied, re-read at high
    #: resolution where those measurements ran)
    probabilities: np.ndarray
    #: (193,): the classical pip count (``pips.count_all``) of every cell whose best
    #: class other than "occluded" is a tile (any cell the decision may read as one);
    #: pips.NOT_CHECKED for the others
    pip_counts: np.ndarray
    #: (193,) bool: the middle of the cell's crop is too dark to hold a tile
    #: (``cell_evidence.too_dark_for_a_tile``)
    too_dark: np.ndarray
    #: (193,): the brightness three quarters of the middle exceed (its 25th percentile;
    #: ``cell_evidence.looks_like_tiles`` compares it with a bar)
    middle_brightness: np.ndarray
    #: the rectified board's ``sharpness`` (mean |Laplacian|)
    sharpness: float
    #: the crops' ``weakest_direction_sharpness`` (a motion streak shows here)
    streak_sharpness: float
    #: False: which way round the board lies is a guess (``location.Board``)
    orientation_known: bool = True
    #: a table's own tiles: how often a value's tiles get each classical count
    #: (``tile_adapt.counts_agreeing``; None: every count taken at its word)
    count_table: np.ndarray | None = None
    count_seen: float = 1.0
    #: readings of cells from crops moved ``recentre_shift`` pixels in eight directions
    recentred: MovedReadings = field(default_factory=MovedReadings)
    #: readings of cells at a hand's edge from crops moved ``beside_hand_shift`` + 1 and
    #: + 2 pixels (the farther moves), and + 0 for the cells one of those saw clear of the
    #: hand (the nearer moves)
    beside_hand_far: MovedReadings = field(default_factory=MovedReadings)
    beside_hand_near: MovedReadings = field(default_factory=MovedReadings)


__all__ = ["Evidence", "MissingReadings", "MovedReadings"]
