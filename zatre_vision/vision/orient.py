"""Which way round is the board? Read from its print: the yellow publisher's label
(PERI) fills the cut-off bottom-right corner of the grid, on the real board and the
rendered one.

Without it the contract's rule labels the corners (the top edge is the one nearest the
top of the image, see ``locate.upright``), which is ambiguous when the board is turned
about 45 degrees. When the label is clearly seen in exactly one of the four cut
corners, the corners are labelled so that it is bottom right; when a hand covers it,
or the light makes everything yellow, the rule stands.
"""

from __future__ import annotations

import cv2
import numpy as np

from .geometry import GridModel
from .locate import relabelled

#: sample points inside the label, grid units (cells (14, 13) .. (14, 14) of the cut
#: bottom-right corner)
_U, _V = np.meshgrid(np.linspace(14.25, 14.85, 4), np.linspace(13.35, 14.85, 6))
LABEL_POINTS = np.stack([_U.ravel(), _V.ravel()], axis=1)
#: yellowness (min(R, G) - B) / min(R, G) the label reaches at least (it is ~0.9 under
#: neutral light; cream tiles and marble stay below ~0.3 even under warm light)
MIN_YELLOW = 0.4
#: and by this much more than in any other corner
MIN_LEAD = 0.25


def yellowness(image: np.ndarray, model: GridModel) -> np.ndarray:
    """Yellowness of the label area for each of the four labellings (quarter turns)."""
    out = np.zeros(4)
    h, w = image.shape[:2]
    for s in range(4):
        px = relabelled(model, s).to_image(LABEL_POINTS).astype(np.float32)
        inside = (px[:, 0] >= 0) & (px[:, 0] < w - 1) & (px[:, 1] >= 0) & (px[:, 1] < h - 1)
        if inside.mean() < 0.75:
            continue
        px = px[inside]
        bgr = cv2.remap(image, px[:, 0].reshape(1, -1), px[:, 1].reshape(1, -1),
                        cv2.INTER_LINEAR).reshape(-1, 3).astype(np.float64)
        rg = np.minimum(bgr[:, 1], bgr[:, 2])
        out[s] = float(np.median((rg - bgr[:, 0]) / np.maximum(rg, 16.0)))
    return out


def by_print(image: np.ndarray, model: GridModel) -> GridModel:
    """``model`` relabelled so the yellow label is bottom right, when it is clearly seen
    (a BGR frame); otherwise ``model`` unchanged."""
    if image.ndim != 3:
        return model
    y = yellowness(image, model)
    order = np.argsort(-y)
    best, second = y[order[0]], y[order[1]]
    if best < MIN_YELLOW or best - second < MIN_LEAD:
        return model
    return relabelled(model, int(order[0]))
