"""Class probabilities for all 193 cells, for tests of ``BoardReader.decide``."""

from __future__ import annotations

import numpy as np

from zatre_vision.vision.classify import CLASSES
from zatre_vision.vision.geometry import CELL_NAMES


def cell_probs(rows: dict[int, dict[int, float]]) -> np.ndarray:
    """Every cell surely empty, except the cells in ``rows`` (index -> {class: p})."""
    p = np.zeros((len(CELL_NAMES), len(CLASSES)), np.float32)
    p[:, 0] = 1.0
    for i, row in rows.items():
        p[i] = 0.0
        for c, v in row.items():
            p[i, c] = v
    return p
