"""The real printed board, from a scan, as a ``BoardTexture`` for the renderer.

``board_art.make_board_texture`` draws the board procedurally and trains every model.
This module gives the renderer the real print instead, so a benchmark can ask how
well everything learned on drawn boards carries over to the real one (its marble,
its logo, its worn fold), with the tiles, hands, camera, light and sensor of the
synthetic scenes around it.

Data (``data/``): ``board-scan.jpg``, a flat scan of a real board (0.6 of the
reference scan's size, about 75 px a cell), and ``board-scan.json``, the scan's grid:
grid units ``(u, v)`` as two cubic polynomials of scan pixels, fitted to the grid
lines measured in the scan (``fit_scan_grid``; ``python -m zatre_vision.synth.fit_scan`` makes
both files). The texture is the scan drawn into grid units through that mapping, so
its grid is exactly 15 x 15 cells whatever the scanner bent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..vision.geometry import (
    GRID_CORNERS,
    GRID_EDGES,
    homography_from_corners,
    sampled_map,
    smoothed_for_sampling,
)
from .board_art import BOARD_U, BOARD_V, BoardTexture

DATA_DIR = Path(__file__).resolve().parent / "data"
SCAN_IMAGE = DATA_DIR / "board-scan.jpg"
SCAN_GRID = DATA_DIR / "board-scan.json"
#: polynomial degree of the scan -> grid mapping (cubic: a flat scan bends a little)
DEGREE = 3
#: line samples per unit segment of the grid, and the search window across the line
ALONG = (0.25, 0.5, 0.75)
SEARCH_CELLS = 0.3
#: a line is a ridge: brighter than both sides this many cells away ...
RIDGE_CELLS = 0.08
#: ... by at least this much (0-255) for its sample to count
MIN_LINE_CONTRAST = 30.0
#: trimming: samples off the fit by more than this many times the median residual
TRIM = 3.0


class ScanError(ValueError):
    """The scan or its grid file is missing or unusable."""


def _poly_basis(xy: np.ndarray, centre: tuple[float, float], scale: float, degree: int
                ) -> np.ndarray:
    """The monomials x^i y^j (i + j <= degree) of points normalised by centre and scale."""
    x = (xy[:, 0] - centre[0]) / scale
    y = (xy[:, 1] - centre[1]) / scale
    return np.stack([x ** i * y ** j for i in range(degree + 1)
                     for j in range(degree + 1 - i)], 1)


@dataclass(frozen=True)
class ScanGrid:
    """Grid units as polynomials of scan pixels (normalised by ``centre`` and ``scale``)."""

    u_coef: np.ndarray
    v_coef: np.ndarray
    centre: tuple[float, float]
    scale: float
    degree: int = DEGREE

    def to_grid(self, xy: np.ndarray) -> np.ndarray:
        b = _poly_basis(np.asarray(xy, np.float64).reshape(-1, 2), self.centre, self.scale,
                        self.degree)
        return np.stack([b @ self.u_coef, b @ self.v_coef], 1)

    def to_scan(self, uv: np.ndarray, start: np.ndarray, steps: int = 8) -> np.ndarray:
        """Scan pixels of grid points: Newton's method on ``to_grid`` from ``start``."""
        uv = np.asarray(uv, np.float64).reshape(-1, 2)
        xy = np.asarray(start, np.float64).reshape(-1, 2).copy()
        h = 0.5
        for _ in range(steps):
            err = self.to_grid(xy) - uv
            jac = np.empty((len(xy), 2, 2))
            for k in range(2):
                d = np.zeros(2)
                d[k] = h
                jac[:, :, k] = (self.to_grid(xy + d) - self.to_grid(xy - d)) / (2 * h)
            xy -= np.linalg.solve(jac, err[..., None])[..., 0]
        return xy

    def to_dict(self) -> dict:
        return {"degree": self.degree, "centre": list(self.centre), "scale": self.scale,
                "u_coef": [float(c) for c in self.u_coef],
                "v_coef": [float(c) for c in self.v_coef]}

    @classmethod
    def from_dict(cls, d: dict) -> ScanGrid:
        degree = int(d["degree"])
        n = (degree + 1) * (degree + 2) // 2
        u, v = (np.asarray(d[k], np.float64) for k in ("u_coef", "v_coef"))
        if u.shape != (n,) or v.shape != (n,) or not (np.isfinite(u).all()
                                                      and np.isfinite(v).all()):
            raise ScanError(f"board scan grid: expected {n} finite coefficients per axis")
        cx, cy = (float(c) for c in d["centre"])
        return cls(u, v, (cx, cy), float(d["scale"]), degree)


def _line_samples(grey: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Rows (x, y, axis, line, contrast): the strongest bright ridge across each
    grid-line sample near where the homography of ``corners`` puts it (axis 0: a
    vertical line, x measured on scan row y; axis 1: a horizontal one)."""
    hom = homography_from_corners(corners)
    cell = float(np.linalg.norm(corners[1] - corners[0])) / 15.0
    d = max(2, int(round(RIDGE_CELLS * cell)))
    half = max(3, int(SEARCH_CELLS * cell)) + d
    g = cv2.GaussianBlur(grey.astype(np.float32), (0, 0), 1.0)
    h, w = g.shape
    rows = []
    for u0, v0, u1, v1 in GRID_EDGES:
        vertical = u0 == u1
        for t in ALONG:
            uv = np.array([[[u0 + (u1 - u0) * t, v0 + (v1 - v0) * t]]])
            x, y = cv2.perspectiveTransform(uv, hom)[0, 0]
            xi, yi = int(round(x)), int(round(y))
            if not (half + 2 <= xi < w - half - 2 and half + 2 <= yi < h - half - 2):
                continue
            if vertical:
                prof = g[yi - 2:yi + 3, xi - half:xi + half + 1].mean(axis=0)
            else:
                prof = g[yi - half:yi + half + 1, xi - 2:xi + 3].mean(axis=1)
            # a ridge: brighter than both sides d px away (not the inside of a light cell)
            ridge = prof[d:-d] - np.maximum(prof[:-2 * d], prof[2 * d:])
            b = int(np.argmax(ridge))
            if b in (0, len(ridge) - 1):
                continue
            den = ridge[b - 1] - 2 * ridge[b] + ridge[b + 1]
            frac = 0.5 * (ridge[b - 1] - ridge[b + 1]) / den if abs(den) > 1e-6 else 0.0
            at = b + d - half + frac
            contrast = float(ridge[b])
            rows.append((xi + at, yi, 0, u0, contrast) if vertical
                        else (xi, yi + at, 1, v0, contrast))
    return np.array(rows, np.float64).reshape(-1, 5)


def fit_scan_grid(grey: np.ndarray, corners: np.ndarray, rounds: int = 3
                  ) -> tuple[ScanGrid, dict]:
    """The scan's grid from a grey scan and its four outer grid corners (TL, TR, BR,
    BL) to within a quarter cell: each grid-line sample is found across the line, and
    ``u`` (vertical lines) and ``v`` (horizontal lines) are fitted as polynomials of
    the scan position, with trimming. Also returns the fit's residuals (cells)."""
    corners = np.asarray(corners, np.float64).reshape(4, 2)
    s = _line_samples(grey, corners)
    h, w = grey.shape[:2]
    centre, scale = (w / 2.0, h / 2.0), max(w, h) / 2.0
    keep = s[:, 4] > MIN_LINE_CONTRAST
    n = (DEGREE + 1) * (DEGREE + 2) // 2
    if keep.sum() < 4 * n:
        raise ScanError("board scan: too few grid lines found near the given corners")
    resid = np.zeros(len(s))
    grid = None
    for _ in range(rounds):
        coefs = []
        for axis in (0, 1):
            m = keep & (s[:, 2] == axis)
            basis = _poly_basis(s[m, :2], centre, scale, DEGREE)
            coefs.append(np.linalg.lstsq(basis, s[m, 3], rcond=None)[0])
        grid = ScanGrid(coefs[0], coefs[1], centre, scale)
        fitted = grid.to_grid(s[:, :2])
        resid = np.abs(np.where(s[:, 2] == 0, fitted[:, 0], fitted[:, 1]) - s[:, 3])
        keep = (s[:, 4] > MIN_LINE_CONTRAST) & (
            resid < max(0.02, TRIM * float(np.median(resid[keep]))))
    report = {"samples": len(s), "kept": int(keep.sum()),
              "residual_cells_median": round(float(np.median(resid[keep])), 4),
              "residual_cells_p95": round(float(np.percentile(resid[keep], 95)), 4)}
    return grid, report


def scan_corners(grid: ScanGrid, start: np.ndarray) -> np.ndarray:
    """The four outer grid corners (TL, TR, BR, BL) in scan pixels."""
    return grid.to_scan(GRID_CORNERS, start)


def load_scan(image_path: Path = SCAN_IMAGE, grid_path: Path = SCAN_GRID
              ) -> tuple[np.ndarray, ScanGrid, np.ndarray]:
    """The scan (BGR), its grid and its outer grid corners in scan pixels."""
    img = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
    if img is None:
        raise ScanError(f"board scan: cannot read {image_path}")
    try:
        d = json.loads(Path(grid_path).read_text(encoding="utf-8"))
        grid = ScanGrid.from_dict(d["grid"])
        corners = np.asarray(d["corners"], np.float64).reshape(4, 2)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ScanError(f"board scan grid {grid_path}: {exc}") from exc
    return img, grid, scan_corners(grid, corners)


def scanned_board_texture(ppc: float, image_path: Path = SCAN_IMAGE,
                          grid_path: Path = SCAN_GRID) -> BoardTexture:
    """The scanned board drawn into grid units at ``ppc`` pixels per cell, covering the
    cardboard (``BOARD_U`` x ``BOARD_V``) as ``make_board_texture`` does."""
    img, grid, corners = load_scan(image_path, grid_path)
    hom = homography_from_corners(corners)

    def to_scan(uv: np.ndarray) -> np.ndarray:
        return grid.to_scan(uv, cv2.perspectiveTransform(uv[None], hom)[0])

    # texture pixel i holds u = u0 + i / ppc; sampled_map draws grid units at pixel
    # centres, hence the half-pixel shift
    half = 0.5 / ppc
    xy = sampled_map(to_scan, ppc, BOARD_U[0] - half, BOARD_V[0] - half,
                     BOARD_U[1] - half, BOARD_V[1] - half)
    # sample the scan, blurred first where it is finer than the texture
    src_ppc = float(np.linalg.norm(corners[1] - corners[0])) / 15.0
    src = smoothed_for_sampling(img, src_ppc, ppc)
    tex = cv2.remap(src, xy, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return BoardTexture(tex, float(ppc))


__all__ = ["SCAN_GRID", "SCAN_IMAGE", "ScanError", "ScanGrid", "fit_scan_grid",
           "load_scan", "scan_corners", "scanned_board_texture"]
