"""Evidence about cells and frames besides the classifier, for the reader's decisions.

Pure functions of the crops (``cells.crops``), the classes the network reads, or the
rectified board: where a hand is (``no_hand_near``, ``at_hand``), whether a crop could
hold a tile (``looks_like_tiles``, ``too_dark_for_a_tile``, ``bare_board``), how sharp a
photo is (``sharpness``, ``weakest_direction_sharpness``), and the network's odds of
"empty" raised for chosen cells (``empty_odds_raised``). The thresholds that decide
with them are ``ReaderConfig``'s (``reader_config.py``), weighed in ``decide.py``.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..geometry import CELL_COLROW, IS_LIGHT
from ..quantile import row_percentiles
from .classify import OCCLUDED
from .pips import TILE_LEVEL, middle, middle_levels

#: cell x cell: True where two cells touch (side or corner)
TOUCHING = np.abs(CELL_COLROW[:, None, :] - CELL_COLROW[None, :, :]).max(axis=2) == 1


def middle_brightness(crops: np.ndarray) -> np.ndarray:
    """Per crop: the brightness three quarters of its middle exceed (the middle's 25th
    percentile; board bright level = 1)."""
    return row_percentiles(middle(crops), 25)


def looks_like_tiles(crops: np.ndarray, bright: float) -> np.ndarray:
    """A cheap check per crop: is its middle bright almost throughout, like a tile? (On
    a dark, not x2, cell that the classifier calls empty, this means blur or glare.)
    Three quarters of the middle must be brighter than ``bright``
    (``ReaderConfig.tile_bright``, or ``tile_face_bright`` for a tile's face): bright
    marble veins, streaks with dark between them, do not count."""
    return middle_brightness(crops) > bright


def no_hand_near(cls: np.ndarray) -> np.ndarray:
    """Cells with no occluded call touching them (side or corner). A hand or an arm
    hides a patch of cells; without one near, an "occluded" reading of a cell is nearly
    always a bright marble vein, a shadow or a glint on a visible cell (wide benchmark
    set, blur within the training ranges: 72 of 75 lone occluded calls were on visible
    cells, against 3 of 1,131 occluded calls in patches)."""
    occ = cls == OCCLUDED
    return ~TOUCHING[:, occ].any(axis=1)


def at_hand(cls: np.ndarray) -> np.ndarray:
    """Cells in or touching a patch of occluded calls (an occluded call with another
    touching it): where a hand is. A lone occluded call is not a hand (see
    ``no_hand_near``)."""
    occ = cls == OCCLUDED
    patch = occ & TOUCHING[:, occ].any(axis=1)
    return patch | TOUCHING[:, patch].any(axis=1)


def too_dark_for_a_tile(crops: np.ndarray) -> np.ndarray:
    """Per crop: is its middle too dark to hold a tile (the pip count's test: its 80th
    percentile below TILE_LEVEL)? Tiles are ivory; on a dark (not x2) cell such a
    crop is bare board, whatever else the classifier hesitated over (wide benchmark set:
    no tile among 85 doubtful empty readings it covered, 0.1 % of the tiles on dark
    cells come near it)."""
    return middle_levels(crops) < TILE_LEVEL


def bare_board(cls: np.ndarray, cr: np.ndarray, among: np.ndarray | None = None
               ) -> np.ndarray:
    """Per cell (of those ``among``, all by default): a dark (not x2) cell read empty
    (``cls`` 0) whose crop is ``too_dark_for_a_tile``: bare board, however unsure the
    reading was."""
    bare = (cls == 0) & ~IS_LIGHT
    if among is not None:
        bare &= among
    bare[bare] = too_dark_for_a_tile(cr[bare])
    return bare


def empty_odds_raised(probs: np.ndarray, among: np.ndarray, odds: float) -> np.ndarray:
    """``probs`` with the odds of "empty" of the cells ``among`` (a mask) multiplied by
    ``odds`` and their rows renormalised (the other cells as they are)."""
    out = probs.copy()
    out[among, 0] *= odds
    out[among] /= out[among].sum(axis=1, keepdims=True)
    return out


def weakest_direction_sharpness(crops: np.ndarray) -> float:
    """The least, over four directions (across, down and both diagonals), of the crops'
    mean absolute second difference. A motion streak flattens the pips along its
    direction and leaves the edges along it sharp, so it shows here and hardly in
    ``sharpness``."""
    c = np.asarray(crops, np.float32)
    mid = 2.0 * c[:, 1:-1, 1:-1]
    return float(min(np.abs(c[:, 1:-1, 2:] + c[:, 1:-1, :-2] - mid).mean(),
                     np.abs(c[:, 2:, 1:-1] + c[:, :-2, 1:-1] - mid).mean(),
                     np.abs(c[:, 2:, 2:] + c[:, :-2, :-2] - mid).mean(),
                     np.abs(c[:, 2:, :-2] + c[:, :-2, 2:] - mid).mean()))


def sharpness(board: np.ndarray) -> float:
    """How sharp the rectified board is: its mean absolute Laplacian (grid lines, tile
    edges and pips give it; blur flattens them). Measured where the classifier looks,
    at its 20 px a cell, so a small board in the frame counts as blurred too."""
    return float(np.abs(cv2.Laplacian(np.asarray(board, np.float32), cv2.CV_32F)).mean())
