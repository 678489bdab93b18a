"""Table surfaces under the board: wood (planks and grain), cloth (weave), laminate.

A table texture lies in the board plane, in grid units, covering ``TABLE_EXTENT`` on
both axes; beyond that it repeats mirrored, which no camera in the default ranges sees.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .noise import fbm, value_noise

TABLE_EXTENT = (-30.0, 45.0)

WOOD = ((70, 120, 170), (40, 75, 120), (95, 150, 195), (30, 50, 80), (60, 100, 150))
CLOTH = ((60, 110, 40), (110, 60, 30), (90, 90, 90), (40, 40, 120), (150, 170, 180),
         (50, 50, 50), (120, 100, 70))
LAMINATE = ((225, 228, 230), (190, 195, 200), (170, 190, 205), (60, 60, 60), (210, 215, 210))


@dataclass(frozen=True)
class TableTexture:
    kind: str
    image: np.ndarray     # BGR uint8
    ppu: float            # pixels per grid unit
    u0: float = TABLE_EXTENT[0]


def _wood(rng: np.random.Generator, n: int, ppu: float) -> np.ndarray:
    units = n / ppu
    plank_w = rng.uniform(4.0, 7.0) * ppu
    ys = np.arange(n, dtype=np.float32)[:, None]
    plank = np.floor(ys / plank_w)
    # grain runs along x: long stretched noise + ring bands
    stretched = fbm(rng, (n, n), (units * 1.2, units * 0.05), 4)
    rings = np.sin((ys / ppu * rng.uniform(3, 7) + 6 * stretched + plank * 1.7) * 2.0)
    fine = value_noise(rng, (n, n), (units * 6, units * 0.3))
    tone = (plank * 0.37) % 1.0 - 0.5
    base = np.asarray(WOOD[int(rng.integers(len(WOOD)))], np.float32)
    light = 1 + 0.12 * rings + 0.08 * fine + 0.12 * tone
    img = base[None, None, :] * light[:, :, None]
    seam = (np.abs(ys - (plank + 1) * plank_w) < max(1.0, 0.05 * ppu)) | (
        np.abs(ys - plank * plank_w) < max(1.0, 0.05 * ppu))
    img[np.broadcast_to(seam, (n, n))] *= 0.55
    return img


def _cloth(rng: np.random.Generator, n: int, ppu: float) -> np.ndarray:
    units = n / ppu
    base = np.asarray(CLOTH[int(rng.integers(len(CLOTH)))], np.float32)
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32)
    period = rng.uniform(2.0, 3.5)
    weave = 0.06 * np.sin(xs * 2 * np.pi / period) * np.sin(ys * 2 * np.pi / period)
    wrinkles = 0.1 * fbm(rng, (n, n), (units * 0.15, units * 0.15), 3)
    fuzz = rng.normal(0, 0.05, (n, n)).astype(np.float32)
    return base[None, None, :] * (1 + weave + wrinkles + fuzz)[:, :, None]


def _laminate(rng: np.random.Generator, n: int, ppu: float) -> np.ndarray:
    units = n / ppu
    if rng.random() < 0.4:  # wood-print laminate: low-contrast wood
        img = _wood(rng, n, ppu)
        return img * 0.6 + img.mean() * 0.4
    base = np.asarray(LAMINATE[int(rng.integers(len(LAMINATE)))], np.float32)
    speckle = rng.normal(0, 0.025, (n, n)).astype(np.float32)
    smooth = 0.04 * fbm(rng, (n, n), (units * 0.1, units * 0.1), 2)
    return base[None, None, :] * (1 + speckle + smooth)[:, :, None]


def make_table_texture(rng: np.random.Generator, kind: str, ppu: float) -> TableTexture:
    n = int(round((TABLE_EXTENT[1] - TABLE_EXTENT[0]) * ppu))
    draw = {"wood": _wood, "cloth": _cloth, "laminate": _laminate}[kind]
    img = draw(rng, n, ppu)
    img = cv2.GaussianBlur(img, (0, 0), 0.6)
    return TableTexture(kind, np.clip(img, 0, 255).astype(np.uint8), ppu)
