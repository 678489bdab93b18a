"""Classical cross-check: count the dark pips on a bright tile by blob detection.

Works on the normalised cell crops of ``cells.py``: the tile is the bright region
around the crop centre; pips are dark blobs of the expected size inside it. Returns 0
when no tile is seen and -1 when the count is not plausible (more than six blobs).
"""

from __future__ import annotations

import cv2
import numpy as np

from .cells import CROP, PPC

#: pip area in rectified pixels: diameter 0.13 to 0.2 cell
MIN_AREA = max(2, int(0.25 * np.pi * (0.08 * PPC) ** 2))
MAX_AREA = int(np.pi * (0.16 * PPC) ** 2)
_INNER = np.zeros((CROP, CROP), np.uint8)
_r = int(round(0.33 * PPC))
cv2.rectangle(_INNER, (CROP // 2 - _r, CROP // 2 - _r), (CROP // 2 + _r - 1, CROP // 2 + _r - 1),
              1, -1)


def count_pips(crop: np.ndarray) -> int:
    """Pips on the tile in one normalised crop (float, bright level ~1)."""
    c = crop.astype(np.float32)
    centre = c[CROP // 2 - 6:CROP // 2 + 6, CROP // 2 - 6:CROP // 2 + 6]
    tile = float(np.percentile(centre, 80))
    if tile < 0.45:
        return 0
    dark = ((c < 0.55 * tile) & (_INNER > 0)).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=4)
    areas = stats[1:, cv2.CC_STAT_AREA]
    k = int(((areas >= MIN_AREA) & (areas <= MAX_AREA)).sum())
    return k if k <= 6 else -1


def count_all(crops: np.ndarray, which: np.ndarray) -> np.ndarray:
    """Pip counts for the crops selected by the boolean mask ``which`` (others -2)."""
    out = np.full(len(crops), -2, np.int32)
    for i in np.nonzero(which)[0]:
        out[i] = count_pips(crops[i])
    return out
