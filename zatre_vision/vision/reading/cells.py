"""Cell crops: rectify the board once to a fixed-size top view, then slice 193 crops.

The rectified board covers grid units [-MARGIN, 15 + MARGIN] at ``PPC`` pixels per
cell; each crop is ``CROP`` x ``CROP`` pixels centred on its cell (1.2 cells), so a
tile that is shifted or turned a little inside its cell stays inside the crop.
Brightness is divided by the board's bright level (grid lines, tiles), which removes
most of the exposure and lamp differences before the classifier sees it.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from ..geometry import CELL_COLROW, CELL_NAMES, GridModel, sampled_map, smoothed_for_sampling
from ..quantile import percentile

PPC = 20
CROP = 24
MARGIN = 0.5
SIDE = int(round((15 + 2 * MARGIN) * PPC))
#: the anti-alias blur before the board is drawn at PPC (``geometry.smoothed_for_sampling``;
#: a little lighter than the locator's: the classifier was trained on crops drawn so)
CROP_ANTIALIAS_PER_RATIO = 0.4
#: Top-left pixel of each cell's crop in the rectified board (CELL_NAMES order).
CROP_ORIGINS = ((CELL_COLROW + MARGIN + 0.5) * PPC - CROP / 2).astype(np.int32)
#: every cell's index, in the order ``crops`` cuts them
ALL_CELLS = np.arange(len(CELL_NAMES))


def maps_from(fn: Callable[[np.ndarray], np.ndarray], ppc: int = PPC,
              margin: float = MARGIN, step: int = 4) -> np.ndarray:
    """remap map of the rectified board for any grid -> image function ``fn``
    (``geometry.sampled_map``)."""
    return sampled_map(fn, ppc, -margin, -margin, 15 + margin, 15 + margin, step)


def model_maps(model: GridModel) -> np.ndarray:
    return maps_from(model.to_image)


def rectify_board(image: np.ndarray, xy_map: np.ndarray, cell_px: float) -> np.ndarray:
    """Grey top view of the board (SIDE x SIDE uint8), pre-blurred against aliasing."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    grey = smoothed_for_sampling(grey, cell_px, PPC, CROP_ANTIALIAS_PER_RATIO)
    return cv2.remap(grey, xy_map, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def normalise(board: np.ndarray) -> np.ndarray:
    """float32 board scaled so its bright level (98th percentile) is 1."""
    b = board.astype(np.float32)
    hi = float(percentile(b[::4, ::4], 98))
    return b * (1.0 / max(hi, 16.0))


def crops(board: np.ndarray, origins: np.ndarray = CROP_ORIGINS) -> np.ndarray:
    """(193, CROP, CROP) crops of a rectified board."""
    ys = origins[:, 1, None, None] + np.arange(CROP)[None, :, None]
    xs = origins[:, 0, None, None] + np.arange(CROP)[None, None, :]
    ys = np.clip(ys, 0, board.shape[0] - 1)
    xs = np.clip(xs, 0, board.shape[1] - 1)
    return board[ys, xs]


def oriented(crops: np.ndarray, k: int) -> np.ndarray:
    """(N, S, S) crops in orientation ``k`` of the eight of a square: turned k % 4
    quarter turns, then mirrored left to right when k >= 4."""
    out = np.rot90(crops, k % 4, axes=(1, 2))
    return out[:, :, ::-1] if k >= 4 else out


def moved_crops(board: np.ndarray, cells: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    """(len(shifts), len(cells), CROP, CROP): the crops of ``cells`` moved by each of
    ``shifts`` (pixels) on the rectified ``board``."""
    origins = (CROP_ORIGINS[cells][None, :, :] + shifts[:, None, :]).reshape(-1, 2)
    return crops(board, origins).reshape(len(shifts), len(cells), CROP, CROP)
