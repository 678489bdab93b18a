"""Doubtful cells read again from the frame at the resolution the camera gives.

The reader draws the board at ``cells.PPC`` (20) pixels per cell, blurred first against
aliasing (``geometry.smoothed_for_sampling``): at that size a pip is about 3 px wide and
4 px from its neighbour, and a frame larger than ``reader.WORK_SIDE`` has already been
shrunk before that. ``HiresReader`` takes the cells the network doubts, draws each one's
crop from the ORIGINAL frame at ``k`` times the crop's size (``k`` = the frame's own
pixels per cell over PPC, rounded, 2..``max_factor``; each crop pixel is then the mean of
k x k samples one frame pixel apart) and reduces it by area (``cv2.INTER_AREA``: a box
average, no Gaussian), then shows it to the same network. The new reading is averaged
with the one it had (``weight``).

Brightness: the crops are divided by the factor that maps their mean onto the mean of
the same cells' crops in the reader's normalised board (the median over the cells), so
they are on the scale the network was trained on without a second full rectification.

Left alone: frames the reader undistorted first (a calibration with lens intrinsics:
its grid lives in undistorted pixels), and frames whose board has fewer than
``min_source_ppc`` pixels per cell (nothing to gain).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..geometry import GridModel
from .cells import CROP, CROP_ORIGINS, MARGIN, PPC


@dataclass
class HiresReader:
    #: a cell is re-read when its top-class probability is below this
    doubt_below: float = 0.96
    #: weight of the high-resolution reading in the average with the first one
    weight: float = 0.5
    #: the frame must give at least this many pixels per cell (2 x PPC: a factor of 2)
    min_source_ppc: float = 2 * PPC
    #: at most this many samples per crop pixel on each axis
    max_factor: int = 4
    #: cells re-read on the last frame (for the benchmark), and their factor
    last_cells: int = 0
    last_factor: int = 0

    def factor(self, model_full: GridModel) -> int:
        """Samples per crop pixel on each axis for a grid of the original frame; 0 when
        the frame gives too few pixels per cell."""
        ppc = model_full.cell_size_px()
        if ppc < self.min_source_ppc:
            return 0
        return int(np.clip(round(ppc / PPC), 2, self.max_factor))

    def crops(self, image: np.ndarray, model_full: GridModel, cells: np.ndarray,
              k: int) -> np.ndarray:
        """(len(cells), CROP, CROP) float32 crops of ``cells`` (``CELL_NAMES`` indices)
        drawn from ``image`` (the original frame, BGR or grey) at ``k`` x the crop's
        size and reduced by area; raw grey levels (not normalised)."""
        s = CROP * k
        # crop pixel i of the reader's board draws grid unit -MARGIN + (origin + i + 0.5)
        # / PPC; its k x k sub-samples sit at (origin + (i' + 0.5) / k) for i' in i's block
        sub = (np.arange(s) + 0.5) / k
        o = CROP_ORIGINS[cells].astype(np.float64)
        u = -MARGIN + (o[:, 0, None] + sub[None, :]) / PPC           # (n, s)
        v = -MARGIN + (o[:, 1, None] + sub[None, :]) / PPC
        uv = np.empty((len(cells), s, s, 2))
        uv[..., 0] = u[:, None, :]
        uv[..., 1] = v[:, :, None]
        xy = model_full.to_image(uv.reshape(-1, 2)).astype(np.float32)
        h, w = image.shape[:2]
        lo = np.floor(np.nanmin(xy, axis=0)).astype(int) - 2
        hi = np.ceil(np.nanmax(xy, axis=0)).astype(int) + 2
        x0, y0 = max(0, lo[0]), max(0, lo[1])
        x1, y1 = min(w, hi[0]), min(h, hi[1])
        if x1 <= x0 or y1 <= y0:
            return np.zeros((len(cells), CROP, CROP), np.float32)
        window = image[y0:y1, x0:x1]
        grey = window if window.ndim == 2 else cv2.cvtColor(window, cv2.COLOR_BGR2GRAY)
        xy -= np.array([x0, y0], np.float32)
        big = cv2.remap(grey, xy.reshape(len(cells) * s, s, 2), None, cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        small = cv2.resize(big, (CROP, CROP * len(cells)), interpolation=cv2.INTER_AREA)
        return small.reshape(len(cells), CROP, CROP)

    def reread(self, classifier, image: np.ndarray, model_work: GridModel, f: float,
               probs: np.ndarray, cr: np.ndarray) -> np.ndarray:
        """``probs`` (193 x 8) with each doubtful cell's row averaged with a reading of
        its crop drawn from ``image`` at the camera's resolution. ``model_work`` is the
        grid in the reader's work image, which is ``image`` resized by ``f``; ``cr`` the
        reader's normalised crops (brightness reference)."""
        self.last_cells = self.last_factor = 0
        doubtful = np.flatnonzero(probs.max(axis=1) < self.doubt_below)
        if len(doubtful) == 0:
            return probs
        full = model_work.scaled(1.0 / f) if f != 1.0 else model_work
        k = self.factor(full)
        if k == 0:
            return probs
        raw = self.crops(image, full, doubtful, k)
        ref = cr[doubtful].reshape(len(doubtful), -1).mean(axis=1)
        own = raw.reshape(len(doubtful), -1).mean(axis=1)
        ok = own > 1.0
        if not ok.any():
            return probs
        scale = float(np.median(ref[ok] / own[ok]))
        readings = classifier.probabilities(raw * scale, doubtful)
        out = probs.copy()
        out[doubtful] = (1 - self.weight) * probs[doubtful] + self.weight * readings
        self.last_cells, self.last_factor = len(doubtful), k
        return out
