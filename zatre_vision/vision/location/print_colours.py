"""Which print is it? Of the prints a proved grid proves itself against (prints alike in
grey: the print proof sees brightness only), the one whose colours the frame shows.

Three colours are read through the grid: the x2 cells', the bare dark cells' (the
darker half of the dark cells: tiles are bright) and the border's (the ring of
positions one cell outside the cells, away from every candidate's logo and label).
Each print profile says what they are. A colour cast of the light multiplies all three
alike, so the dark cells and the border are compared as ratios to the x2 cells, in
logarithms with ``OFFSET`` added (near black, noise is not a colour). The print the
proof found likeliest is named unless another's sum of differences is clearly smaller
(``CLEARLY_NEARER``): prints alike in the proof's eyes are often alike in colour too.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from ...board_prints import PrintProfile
from ...rules.board import CELLS, LIGHT, START, row_col
from ..geometry import GridModel

#: rectified pixels per cell
PPC = 8
#: the extent read: the grid and one cell around it
LO, HI = -1, 16
N = HI - LO
#: added to every channel (0-255) before the ratios
OFFSET = 30.0


def _kinds() -> np.ndarray:
    kind = np.zeros((N, N), np.int8)          # 0 border ring, 1 dark cell, 2 x2 cell
    for i in CELLS:
        r, c = row_col(i)
        kind[r - LO, c - LO] = 2 if i in LIGHT and i != START else 1
    start_r, start_c = row_col(START)
    kind[start_r - LO, start_c - LO] = -1
    return kind


KIND = _kinds()


def _looks(p: PrintProfile) -> list[dict[str, np.ndarray]]:
    """The print's colours: each look measured (``appearance``: its scan, its
    drawing), else as declared."""
    x2 = float(np.mean(p.x2_level)) + np.asarray(p.x2_tint, np.float64)
    cells = np.asarray(p.cell_bgr, np.float64)
    border = cells if p.border_bgr is None else np.asarray(p.border_bgr, np.float64)
    declared = {"x2": np.clip(x2, 0, 255), "cells": cells, "border": border}
    return [{**declared, **{k: np.asarray(v, np.float64) for k, v in look.items()}}
            for look in p.appearance] or [declared]


def observed(work: np.ndarray, model: GridModel,
             zones: Sequence[tuple[float, float, float, float]] = ()
             ) -> dict[str, np.ndarray] | None:
    """The frame's median BGR of the x2 cells, the bare dark cells and the border
    (None for a part not seen; None altogether without colour or x2 cells)."""
    if work.ndim != 3:
        return None
    h, w = work.shape[:2]
    xy = model.rectify_map(PPC, LO, LO, HI, HI)
    inside = ((xy[..., 0] >= 0) & (xy[..., 0] <= w - 1)
              & (xy[..., 1] >= 0) & (xy[..., 1] <= h - 1))
    img = cv2.remap(work, xy, None, cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    q0, q1 = PPC // 4, PPC - PPC // 4
    cells = img.reshape(N, PPC, N, PPC, 3)[:, q0:q1, :, q0:q1]
    colour = np.median(cells.transpose(0, 2, 1, 3, 4).reshape(N, N, -1, 3), axis=2)
    seen = inside.reshape(N, PPC, N, PPC).all(axis=(1, 3))
    centre = np.arange(N) + LO + 0.5
    zone = np.zeros((N, N), bool)
    for u0, v0, u1, v1 in zones:
        zone |= (((centre >= v0) & (centre < v1))[:, None]
                 & ((centre >= u0) & (centre < u1))[None, :])
    x2 = colour[(KIND == 2) & seen]
    if len(x2) < 4:
        return None
    dark = colour[(KIND == 1) & seen]
    out: dict[str, np.ndarray] = {"x2": np.median(x2, axis=0)}
    if len(dark) >= 8:
        grey = dark.mean(axis=1)
        out["cells"] = np.median(dark[grey <= np.median(grey)], axis=0)
    border = colour[(KIND == 0) & seen & ~zone]
    if len(border) >= 8:
        out["border"] = np.median(border, axis=0)
    return out


def _ratios(c: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    x2 = np.log(c["x2"] + OFFSET)
    return {k: np.log(v + OFFSET) - x2 for k, v in c.items() if k != "x2"}


def distance(seen: dict[str, np.ndarray], profile: PrintProfile) -> float:
    """How far the seen colours are from the print's (sum of log-ratio differences, to
    its nearest look)."""
    a = _ratios(seen)
    return min(float(sum(np.abs(a[k] - b[k]).sum() for k in a if k in b))
               for b in map(_ratios, _looks(profile)))


#: another print is named instead of the first (the one the proof found likeliest)
#: only when its colours are nearer by this much
CLEARLY_NEARER = 1.0


def closest(work: np.ndarray, model: GridModel,
            profiles: Sequence[PrintProfile]) -> str | None:
    """The name of the print among ``profiles`` whose colours the frame shows through
    ``model``: the first (the proof's likeliest), unless another is ``CLEARLY_NEARER``
    (None where none is given)."""
    if not profiles:
        return None
    if len(profiles) == 1:
        return profiles[0].name
    zones = [z for p in profiles for z in p.proof_zones]
    seen = observed(work, model, zones)
    if seen is None:
        return profiles[0].name
    d = [distance(seen, p) for p in profiles]
    best = int(np.argmin(d))
    return profiles[best].name if d[best] < d[0] - CLEARLY_NEARER else profiles[0].name


__all__ = ["closest", "distance", "observed"]
