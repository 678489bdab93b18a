"""Board geometry: grid units, cell layout and the grid -> image model.

Grid units: (0, 0) is the top-left outer corner of the 15 x 15 grid, (15, 15) the
bottom-right one; one cell is 1.0 and cell A1 has its centre at (0.5, 0.5).

``GridModel`` maps grid units to image pixels: a homography to an ideal (undistorted)
image, then one radial lens term about the image centre (barrel: k < 0),
``x_d = c + (x_u - c) * (1 + k * |x_u - c|^2 / s^2)`` with ``s`` half the image's
larger side. The one term is enough for the Pi camera lenses (barrel, k > 0) and lets
the grid fit stay within a fraction of a line width at the board's edges.

The shared vocabulary of board location (``location/``) and cell reading
(``reading/``): both sides speak in ``GridModel``, ``CELL_NAMES`` and ``IS_LIGHT``, so it
lives beside them rather than in either.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from ..rules.board import CELLS, LIGHT, NAMES, START, row_col

#: Cell names in reading order (row by row), the order of every per-cell array here.
CELL_NAMES: tuple[str, ...] = tuple(NAMES[i] for i in CELLS)


def reading_key(name: str) -> tuple[int, int]:
    """Sort key of a cell name in reading order (``CELL_NAMES``'s): row by row, A to S
    within a row."""
    return int(name[1:]), ord(name[0])


#: (col, row), 0-based, of every cell in ``CELL_NAMES`` order.
CELL_COLROW = np.array([[row_col(i)[1], row_col(i)[0]] for i in CELLS], np.int32)
#: Centres of the cells in grid units.
CELL_CENTRES = CELL_COLROW.astype(np.float64) + 0.5
IS_LIGHT = np.array([i in LIGHT for i in CELLS])
START_INDEX = CELLS.index(START)
GRID_CORNERS = np.array([[0, 0], [15, 0], [15, 15], [0, 15]], np.float64)
#: Extent of the printed cardboard around the grid, in grid units (u0, v0, u1, v1).
CARDBOARD = (-0.92, -0.87, 15.96, 16.10)


def _cell_edges() -> np.ndarray:
    """Unique grid-line segments (u0, v0, u1, v1) bounding at least one existing cell."""
    edges: set[tuple[int, int, int, int]] = set()
    for c, r in CELL_COLROW:
        c, r = int(c), int(r)
        edges |= {(c, r, c + 1, r), (c, r + 1, c + 1, r + 1), (c, r, c, r + 1),
                  (c + 1, r, c + 1, r + 1)}
    return np.array(sorted(edges), np.float64)


#: Every unit-long grid-line segment of the board (about 420).
GRID_EDGES = _cell_edges()


#: Newton steps of ``GridModel.undistort`` (converged to 1e-9 px for any lens we meet)
UNDISTORT_STEPS = 4


@dataclass(frozen=True)
class GridModel:
    """Grid units -> image pixels for one image size."""

    homography: np.ndarray        # grid -> undistorted pixels
    k: float                      # radial term (0: none)
    width: int
    height: int

    @property
    def centre(self) -> np.ndarray:
        return np.array([self.width / 2.0, self.height / 2.0])

    @property
    def scale(self) -> float:
        return max(self.width, self.height) / 2.0

    def distort(self, pts: np.ndarray) -> np.ndarray:
        c = self.centre
        d = pts - c
        f = np.einsum("...i,...i->...", d, d)   # |d|^2, several times faster than sum()
        f *= self.k / self.scale ** 2
        f += 1.0
        d *= f[..., None]    # in place: no new arrays for the ~50,000 points of a polish
        d += c
        return d

    def undistort(self, pts: np.ndarray) -> np.ndarray:
        """Inverse of ``distort``: per point, the radius rho with
        rho (1 + k rho^2) = |d| (normalised), by Newton's method from rho = |d|."""
        d = np.asarray(pts, np.float64) - self.centre
        if not self.k:
            return self.centre + d
        r = np.sqrt(np.einsum("...i,...i->...", d, d))[..., None] / self.scale
        rho = r.copy()
        for _ in range(UNDISTORT_STEPS):
            kr2 = self.k * rho * rho
            # bounded steps: beyond the turning point of a strong barrel term (k < 0) there
            # is no inverse, and the points stay finite instead
            rho = np.maximum(rho - (rho * (1 + kr2) - r) / np.maximum(1 + 3 * kr2, 0.25), 0)
        return self.centre + d * (rho / np.maximum(r, 1e-12))

    def to_image(self, uv: np.ndarray) -> np.ndarray:
        uv = np.asarray(uv, np.float64).reshape(-1, 2)
        if not len(uv):             # OpenCV returns None for no points
            return uv.copy()
        p = cv2.perspectiveTransform(uv[None], self.homography)[0]
        return self.distort(p) if self.k else p

    def to_grid(self, px: np.ndarray) -> np.ndarray:
        und = self.undistort(np.asarray(px, np.float64).reshape(-1, 2))
        if not len(und):
            return und.copy()
        return cv2.perspectiveTransform(und[None], np.linalg.inv(self.homography))[0]

    def corners(self) -> np.ndarray:
        """Image positions of the grid's outer corners TL, TR, BR, BL."""
        return self.to_image(GRID_CORNERS)

    def cell_size_px(self) -> float:
        """Mean side of a cell in the image, near the board centre."""
        p = self.to_image(np.array([[6.5, 7.5], [8.5, 7.5], [7.5, 6.5], [7.5, 8.5]]))
        return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[3] - p[2])) / 4)

    def scaled(self, f: float) -> GridModel:
        """The same model for the image resized by ``f``."""
        s = np.diag([f, f, 1.0])
        return GridModel(s @ self.homography, self.k, int(round(self.width * f)),
                         int(round(self.height * f)))

    def rectify_map(self, ppc: int, u0: float = 0.0, v0: float = 0.0, u1: float = 15.0,
                    v1: float = 15.0) -> np.ndarray:
        """cv2.remap map (one two-channel array) that draws grid units [u0, u1] x
        [v0, v1] at ``ppc`` px per cell."""
        return sampled_map(self.to_image, ppc, u0, v0, u1, v1)

    def to_dict(self) -> dict:
        return {"homography": [[float(x) for x in row] for row in self.homography],
                "k": float(self.k), "image_size": [self.width, self.height]}

    @classmethod
    def from_dict(cls, d: dict) -> GridModel:
        h = np.asarray(d["homography"], np.float64)
        if h.shape != (3, 3) or not np.isfinite(h).all():
            raise ValueError("homography must be a finite 3 x 3 matrix")
        w, hh = (int(x) for x in d["image_size"])
        return cls(h, float(d.get("k", 0.0)), w, hh)


def sampled_map(fn: Callable[[np.ndarray], np.ndarray], ppc: int, u0: float, v0: float,
                u1: float, v1: float, step: int = 4) -> np.ndarray:
    """cv2.remap map (h x w x 2 float32, image px) that draws grid units [u0, u1] x
    [v0, v1] at ``ppc`` px per cell, for any grid -> image function ``fn`` (N x 2 ->
    N x 2). ``fn`` is evaluated every ``step`` px and interpolated (the mapping is
    smooth), which keeps this cheap; one two-channel map also spares cv2.remap a split.
    The outermost pixel or two on each side lie beyond the first and last samples and
    get their values (cv2.resize clamps), up to 1.5 px of the top view off there.
    """
    nw, nh = int(round((u1 - u0) * ppc)), int(round((v1 - v0) * ppc))
    cw, ch = -(-nw // step) + 1, -(-nh // step) + 1
    # cv2.resize by ``step`` puts coarse sample i at fine pixel step * i + (step - 1) / 2;
    # + 0.5: a fine pixel draws the grid point at its centre
    off = (step - 1) / 2.0 + 0.5
    uv = np.empty((ch, cw, 2))
    uv[..., 0] = (u0 + (np.arange(cw) * step + off) / ppc)[None, :]
    uv[..., 1] = (v0 + (np.arange(ch) * step + off) / ppc)[:, None]
    px = np.asarray(fn(uv.reshape(-1, 2)), np.float32).reshape(ch, cw, 2)
    return cv2.resize(px, (cw * step, ch * step), interpolation=cv2.INTER_LINEAR)[:nh, :nw]


#: blur before sampling an image down (anti-aliasing): sigma per unit of source px per
#: target px, and the sigma below which the image is sampled as it is
ANTIALIAS_SIGMA_PER_RATIO = 0.45
ANTIALIAS_MIN_SIGMA = 0.6


def smoothed_for_sampling(img: np.ndarray, src_ppc: float, ppc: float,
                          sigma_per_ratio: float = ANTIALIAS_SIGMA_PER_RATIO) -> np.ndarray:
    """``img`` blurred (Gaussian) before it is sampled from ``src_ppc`` down to ``ppc``
    pixels per cell, so that fine lines do not alias; as it is where little is lost."""
    sigma = sigma_per_ratio * src_ppc / ppc
    return cv2.GaussianBlur(img, (0, 0), sigma) if sigma > ANTIALIAS_MIN_SIGMA else img


def blur_reach(sigma: float) -> int:
    """How far (px) a ``cv2.GaussianBlur`` of ``sigma`` with the kernel size left to
    OpenCV reaches: at most 4 sigma + 1 on any image type."""
    return int(np.ceil(4 * sigma)) + 1 if sigma > 0 else 0


def covering_window(lo: np.ndarray, hi: np.ndarray, width: int, height: int, margin: int
                    ) -> tuple[int, int, int, int] | None:
    """The pixel box (x0, y0, x1, y1: columns x0..x1 - 1, rows y0..y1 - 1) of a
    ``width`` x ``height`` image that holds every pixel a bilinear sample at points
    between ``lo`` and ``hi`` (x, y: their least and greatest coordinates, image px)
    reads, ``margin`` px more on each side, clipped to the image; None when a bound is
    not finite or the box is empty. Blurring only this box (margin >= the kernel's
    reach) gives those samples exactly the values a blur of the whole image would:
    where the box is cut by the image's edge, the image's own border rule applies."""
    lo, hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
    if not (np.isfinite(lo).all() and np.isfinite(hi).all()):
        return None
    lo, hi = np.floor(lo) - margin, np.floor(hi) + 2 + margin
    x0, y0 = (int(np.clip(v, 0, n)) for v, n in zip(lo, (width, height), strict=True))
    x1, y1 = (int(np.clip(v, 0, n)) for v, n in zip(hi, (width, height), strict=True))
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


#: image coordinates beyond this (px) mean a degenerate fit, not a board
MAX_COORDINATE = 1e7


def _normalised(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points moved to their centroid and scaled to mean distance sqrt(2) (Hartley),
    and the 3 x 3 transform that does it. (Sums as products with a ones vector: numpy's
    reductions along the short axis of an N x 2 array cost several times more.)"""
    n = len(p)
    c = np.ones(n) @ p / n
    d = p - c
    s = np.sqrt(2) * n / max(float(np.sqrt(np.einsum("ij,ij->i", d, d)).sum()), 1e-12)
    d *= s
    return d, np.array([[s, 0, -s * c[0]], [0, s, -s * c[1]], [0, 0, 1]])


#: the upper triangle of a 3 x 3 matrix, as index arrays
_UPPER = np.triu_indices(3)


@dataclass(frozen=True)
class HomographyFitter:
    """Least-squares homographies (normalised DLT) from fixed source points to any
    number of destination point sets: what depends on the sources alone is computed
    once.

    The DLT system has rows ``[a, 0, -x a]`` and ``[0, a, -y a]`` per point (``a`` the
    normalised source in homogeneous form, ``(x, y)`` the normalised destination); its
    normal matrix M^T M is made of four weighted 3 x 3 moments of ``a`` (weights 1, x,
    y and x^2 + y^2), one small matrix product from the sources' pairwise products. The
    homography is the eigenvector of M^T M with the smallest eigenvalue."""

    source_transform: np.ndarray      # 3 x 3: source px -> normalised
    products: np.ndarray              # N x 6: a_i a_j over the upper triangle

    @classmethod
    def of(cls, src: np.ndarray) -> HomographyFitter | None:
        """None when there are too few points (4) or some are not finite."""
        src = np.asarray(src, np.float64)
        if len(src) < 4 or not np.isfinite(src).all():
            return None
        a, ts = _normalised(src)
        ah = np.empty((len(a), 3))
        ah[:, :2] = a
        ah[:, 2] = 1.0
        return cls(ts, ah[:, _UPPER[0]] * ah[:, _UPPER[1]])

    def fit(self, dst: np.ndarray) -> np.ndarray | None:
        """The homography (normalised to h[2, 2] = 1) taking the sources to ``dst``;
        None for points that are not finite or degenerate."""
        dst = np.asarray(dst, np.float64)
        if len(dst) != len(self.products) or not np.isfinite(dst).all():
            return None
        if np.abs(dst).max() > MAX_COORDINATE:
            return None          # a degenerate model threw the points far off the image
        b, td = _normalised(dst)
        w = np.empty((4, len(b)))
        w[0] = 1.0
        w[1:3] = b.T
        w[3] = w[1] * w[1] + w[2] * w[2]
        moments = np.empty((4, 3, 3))
        moments[:, _UPPER[0], _UPPER[1]] = moments[:, _UPPER[1], _UPPER[0]] = (
            w @ self.products)
        normal = np.zeros((9, 9))
        normal[:3, :3] = normal[3:6, 3:6] = moments[0]
        normal[:3, 6:] = normal[6:, :3] = -moments[1]
        normal[3:6, 6:] = normal[6:, 3:6] = -moments[2]
        normal[6:, 6:] = moments[3]
        try:
            _, vec = np.linalg.eigh(normal)
            h = np.linalg.inv(td) @ vec[:, 0].reshape(3, 3) @ self.source_transform
        except np.linalg.LinAlgError:
            return None
        if not np.isfinite(h).all() or abs(h[2, 2]) < 1e-12:
            return None
        return h / h[2, 2]


def dlt_homography(src: np.ndarray, dst: np.ndarray) -> np.ndarray | None:
    """Least-squares homography (normalised DLT); much faster than cv2's refined fit.
    (``HomographyFitter`` when several destination sets share the sources.)"""
    fitter = HomographyFitter.of(src)
    return None if fitter is None else fitter.fit(dst)


def homography_from_corners(corners_px: np.ndarray, grid_pts: np.ndarray = GRID_CORNERS
                            ) -> np.ndarray:
    return cv2.getPerspectiveTransform(grid_pts.astype(np.float32),
                                       np.asarray(corners_px, np.float32)).astype(np.float64)


__all__ = ["CARDBOARD", "CELL_CENTRES", "CELL_COLROW", "CELL_NAMES", "GRID_CORNERS",
           "GRID_EDGES", "GridModel", "HomographyFitter", "IS_LIGHT", "START_INDEX",
           "blur_reach", "covering_window", "dlt_homography", "homography_from_corners",
           "sampled_map", "smoothed_for_sampling"]
