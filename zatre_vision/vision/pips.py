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


def count_all(crops: np.ndarray, which: np.ndarray) -> np.ndarray:
    """Pips on the tile of each crop selected by the boolean mask ``which`` (normalised
    crops, bright level ~1); -2 for crops not selected, 0 where no tile is seen and -1
    where the count is not plausible (more than six blobs).

    The selected crops are laid side by side in one image (a dark-free border between
    them) so that one connected-components pass counts the blobs of all of them.
    """
    out = np.full(len(crops), -2, np.int32)
    idx = np.nonzero(which)[0]
    if len(idx) == 0:
        return out
    c = crops[idx].astype(np.float32)
    m = CROP // 2
    tile = np.percentile(c[:, m - 6:m + 6, m - 6:m + 6].reshape(len(c), -1), 80, axis=1)
    has_tile = tile >= 0.45
    out[idx[~has_tile]] = 0
    idx, c, tile = idx[has_tile], c[has_tile], tile[has_tile]
    if len(idx) == 0:
        return out
    dark = (c < 0.55 * tile[:, None, None]) & (_INNER[None] > 0)
    n = len(idx)
    strip = np.zeros((CROP + 2, n * (CROP + 2)), np.uint8)
    view = strip.reshape(CROP + 2, n, CROP + 2)
    view[1:-1, :, 1:-1] = dark.transpose(1, 0, 2)
    _, _, stats, _ = cv2.connectedComponentsWithStats(strip, connectivity=4)
    stats = stats[1:]
    area = stats[:, cv2.CC_STAT_AREA]
    owner = stats[:, cv2.CC_STAT_LEFT] // (CROP + 2)
    pip = (area >= MIN_AREA) & (area <= MAX_AREA)
    k = np.bincount(owner[pip], minlength=n)
    out[idx] = np.where(k <= 6, k, -1)
    return out

