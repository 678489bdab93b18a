"""Classical cross-check: count the pips on a tile by blob detection.

Works on the normalised cell crops of ``cells.py`` (bright level ~1). The tile is the
bright region over the crop centre; its pips are the dark blobs it encloses (holes in
the bright region), so the board's dark lines and cells around the tile never count.

A judge that is often wrong is worse than none: every disagreement sends a cell the
CNN read right to the table as uncertain. So the count is given only when every blob
on the tile looks like one pip (small, compact, round); on a blurred or streaked tile
(pips merged, smeared into lines, or cut by the tile's edge) the counter abstains.
A counter that merely ignores blobs of the wrong size undercounts: on the benchmark's
doubtful cells it contradicted a right CNN reading on 170 of 625 cells, this one on
about 30, catching the same wrong ones (docs/vision-reading.md).
"""

from __future__ import annotations

import cv2
import numpy as np

from ..quantile import row_percentiles
from .cells import CROP, PPC

#: a crop whose middle is darker than this (board bright level = 1) holds no tile
TILE_LEVEL = 0.45
#: the tile is the region brighter than this fraction of its own level
BRIGHT_FRACTION = 0.6
#: a tile covers at least this many crop pixels (tile side 0.8 cell: ~0.65 cell^2)
MIN_TILE_AREA = int(0.35 * PPC * PPC)
#: a pip's area in crop pixels: 2 px up to 0.06 cell^2 (a disc 0.28 cell across; the
#: pips are 0.15 to 0.2 cell, a little larger once blurred)
MIN_PIP_AREA = 2
MAX_PIP_AREA = int(0.06 * PPC * PPC)
#: a pip fills at least this much of its bounding box and is at most this elongated
MIN_FILL = 0.5
MAX_ASPECT = 1.6
#: a blob this small that fits in 2 x 2 pixels is a pip whatever its shape, when the
#: pips then lie symmetric about their middle as every face's do (within SYMMETRY_PX): at 20 px a cell a pip is 2-3 px, and one with a highlight inside
#: (hollow, glossy pips) keeps only a 2 x 1 dark sliver (sixes read as fours, the
#: counter abstaining on the 2 x 1 blob; outside-renderer photos). A speck of noise
#: counted as a pip breaks the symmetry.
TINY_PIP_AREA = 3
SYMMETRY_PX = 2.0
#: ... and when no pip is more than this many times larger than the smallest (a speck
#: beside a one's big pip would make it a two: two points are always symmetric)
TINY_SIZE_RATIO = 2.5

NOT_CHECKED = -2
CANNOT_TELL = -1


def middle(crops: np.ndarray) -> np.ndarray:
    """(N, 144): the pixels of each crop's middle, a 0.6 cell square."""
    m = CROP // 2
    return crops[:, m - 6:m + 6, m - 6:m + 6].reshape(len(crops), 144)


def middle_levels(crops: np.ndarray) -> np.ndarray:
    """Each crop's bright level: the 80th percentile of its middle."""
    return row_percentiles(middle(crops), 80)


def _tile_region(bright: np.ndarray) -> np.ndarray | None:
    """uint8 mask of the bright region over the crop centre, None if none is tile-sized."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats(bright, connectivity=4)
    m = CROP // 2
    centre = labels[m - 4:m + 4, m - 4:m + 4].ravel()
    centre = centre[centre > 0]
    if len(centre) == 0:
        return None
    tile = int(np.bincount(centre).argmax())
    if stats[tile, cv2.CC_STAT_AREA] < MIN_TILE_AREA:
        return None
    return (labels != tile).astype(np.uint8)


def _is_tiny_pip(area: int, width: int, height: int) -> bool:
    return MIN_PIP_AREA <= area <= TINY_PIP_AREA and max(width, height) <= 2


def _symmetric(points: np.ndarray, centre: np.ndarray) -> bool:
    """Does every point have a partner (itself for one in the middle) near its
    reflection through ``centre``?"""
    mirrored = 2 * centre - points
    d = np.linalg.norm(points[:, None, :] - mirrored[None, :, :], axis=2)
    return bool((d.min(axis=1) <= SYMMETRY_PX).all())


def _is_pip(area: int, width: int, height: int) -> bool:
    return (MIN_PIP_AREA <= area <= MAX_PIP_AREA
            and area >= MIN_FILL * width * height
            and max(width, height) <= MAX_ASPECT * min(width, height))


def _count_holes(bright: np.ndarray) -> int:
    """Pips in one crop's bright mask (uint8): the holes of the tile region."""
    outside = _tile_region(bright)
    if outside is None:
        return CANNOT_TELL
    _, _, stats, centroids = cv2.connectedComponentsWithStats(outside, connectivity=8)
    pips, tiny = [], False
    for k, (left, top, w, h, area) in enumerate(stats[1:], start=1):
        if left == 0 or top == 0 or left + w == CROP or top + h == CROP:
            continue  # around the tile, not in it
        if _is_pip(int(area), int(w), int(h)):
            pips.append(k)
        elif _is_tiny_pip(int(area), int(w), int(h)):
            pips.append(k)
            tiny = True
        else:
            return CANNOT_TELL
    if len(pips) > 6:
        return CANNOT_TELL
    if tiny:
        areas = stats[pips, cv2.CC_STAT_AREA]
        if (areas.max() > TINY_SIZE_RATIO * areas.min()
                or not _symmetric(centroids[pips], centroids[pips].mean(axis=0))):
            return CANNOT_TELL
    return len(pips)


def count_pips(crop: np.ndarray) -> int:
    """Pips on the tile of one normalised crop: 0 where no tile is seen, ``CANNOT_TELL``
    where a blob on the tile is not pip-shaped or there are more than six."""
    return int(count_all(crop[None], np.ones(1, bool))[0])


def count_all(crops: np.ndarray, which: np.ndarray) -> np.ndarray:
    """``count_pips`` of each crop selected by the boolean mask ``which``;
    ``NOT_CHECKED`` for the others. (The reader checks only the tiles the CNN is not
    nearly sure of, a handful a frame.)"""
    out = np.full(len(crops), NOT_CHECKED, np.int32)
    idx = np.flatnonzero(which)
    if len(idx) == 0:
        return out
    c = crops[idx]
    level = middle_levels(c)
    bright = (c > BRIGHT_FRACTION * level[:, None, None]).astype(np.uint8)
    for k, i in enumerate(idx):
        out[i] = 0 if level[k] < TILE_LEVEL else _count_holes(bright[k])
    return out
