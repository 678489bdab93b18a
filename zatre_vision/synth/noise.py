"""Smooth random fields (value noise by upsampling random grids) for procedural textures."""

from __future__ import annotations

import cv2
import numpy as np


def value_noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    """Smooth noise in [-1, 1] of ``shape`` (h, w) with about ``cells`` (rows, cols) features."""
    gh, gw = max(2, int(cells[0])), max(2, int(cells[1]))
    grid = rng.uniform(-1.0, 1.0, size=(gh + 2, gw + 2)).astype(np.float32)
    h, w = shape
    big = cv2.resize(grid, (w + 2 * w // gw, h + 2 * h // gh), interpolation=cv2.INTER_CUBIC)
    oy, ox = h // gh, w // gw
    return np.ascontiguousarray(big[oy:oy + h, ox:ox + w])


def fbm(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[float, float],
        octaves: int = 4, gain: float = 0.5, lacunarity: float = 2.0) -> np.ndarray:
    """Fractal sum of value noise, roughly in [-1, 1]."""
    total = np.zeros(shape, np.float32)
    amp, norm = 1.0, 0.0
    cy, cx = cells
    for _ in range(octaves):
        total += amp * value_noise(rng, shape, (int(round(cy)), int(round(cx))))
        norm += amp
        amp *= gain
        cy *= lacunarity
        cx *= lacunarity
    return total / norm


def rotated_fbm(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[float, float],
                angle_deg: float, octaves: int = 4) -> np.ndarray:
    """Anisotropic fBm (``cells`` = features across, along) turned by ``angle_deg``."""
    h, w = shape
    side = int(np.ceil(np.hypot(h, w))) + 2
    field = fbm(rng, (side, side), cells, octaves)
    m = cv2.getRotationMatrix2D((side / 2, side / 2), angle_deg, 1.0)
    m[0, 2] -= (side - w) / 2
    m[1, 2] -= (side - h) / 2
    return cv2.warpAffine(field, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
