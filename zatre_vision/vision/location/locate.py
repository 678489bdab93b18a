"""Markerless board location: find the grid and fit a ``GridModel`` to its white lines.

1. Coarse: the board is the large region of strong small-scale contrast (white lines
   and tiles on black marble); tables, cloth and skin are smooth in comparison. Its
   convex hull, reduced to a quadrilateral, gives a first homography for the cardboard.
2. Fine: every unit segment of the grid's ~420 line segments is searched along its
   normal for a bright ridge (a line brighter than both sides, so tile edges and
   bright tiles do not count). The matches fit the homography robustly (RANSAC), and
   one radial lens term is chosen by least squares. Three rounds with a shrinking
   search window reach a small fraction of a cell.
3. Check: a board is reported only when enough of the predicted lines are there.

Orientation follows ``contracts.md``: the top edge is the one nearest the top of the
image (the board is upright within 45 degrees).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..geometry import (
    CARDBOARD,
    GRID_CORNERS,
    GRID_EDGES,
    GridModel,
    dlt_homography,
    smoothed_for_sampling,
)
from ..quantile import percentile
from .quads import order_corners, quad_from_lines

#: Working size of the coarse step (longer side, pixels).
COARSE_SIDE = 320
#: Grid-fit search windows (half-width, cells), one per round.
ROUNDS = (0.15, 0.08)
K_RANGE = (-0.3, 0.06)  # radial term; barrel lenses have k < 0 here
#: about this many matches are used in the search for the radial term
K_SEARCH_POINTS = 400
STRATEGIES = ("direct", "profile", "ridge")
MIN_POLISH_INLIERS = 150
POLISH_ROUNDS = (0.25, 0.12, 0.06)
#: the search stops at a fit whose line contrast is at least this in each quarter of the
#: board (a fit a cell off at one edge or corner fails there; an exact fit on a clean
#: photo reaches ~0.93), without trying the other strategies and outlines
GOOD_ENOUGH = 0.8
#: when no fit reaches the minimum line contrast, fits down to this much below it are
#: kept if two of them agree within ``AGREE`` cell at all four grid corners
RESCUE_BELOW, AGREE = 0.1, 0.3


@dataclass(frozen=True)
class LocateResult:
    model: GridModel | None
    score: float              # line contrast of the fit (0: no grid, ~0.95: perfect)
    inliers: int
    #: every accepted fit, best score first (the reader may prefer one whose cells
    #: the classifier reads more confidently)
    candidates: tuple[tuple[GridModel, float], ...] = ()

    @property
    def found(self) -> bool:
        return self.model is not None


def to_grey(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


# -- coarse ------------------------------------------------------------------------------

def board_mask(grey: np.ndarray) -> tuple[np.ndarray, float]:
    """Binary mask of the textured board region at coarse size, and the scale used."""
    h, w = grey.shape
    s = COARSE_SIDE / max(h, w)
    g = cv2.resize(grey, (int(round(w * s)), int(round(h * s))),
                   interpolation=cv2.INTER_AREA).astype(np.float32)
    k = np.ones((5, 5), np.uint8)
    mx, mn = cv2.dilate(g, k), cv2.erode(g, k)
    energy = cv2.blur((mx - mn) / (mx + 20.0), (9, 9))
    e8 = np.clip(energy * 255, 0, 255).astype(np.uint8)
    thr, _ = cv2.threshold(e8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = (e8 > max(thr, 60)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((7, 7), np.uint8))
    return mask, s


def coarse_quads(grey: np.ndarray) -> list[np.ndarray]:
    """Candidate board outlines (4 x 2, TL TR BR BL, full-image pixels), best first."""
    mask, s = board_mask(grey)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return []
    quads = []
    order = np.argsort(-stats[1:, cv2.CC_STAT_AREA]) + 1
    for lab in order[:1]:
        if stats[lab, cv2.CC_STAT_AREA] < 0.02 * mask.size:
            break
        comp = (labels == lab).astype(np.uint8)
        contours, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        contour = max(contours, key=len).reshape(-1, 2).astype(np.float64)
        hull = cv2.convexHull(contour.astype(np.float32))
        box = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
        fitted = quad_from_lines(contour, order_corners(box))
        if fitted is not None:
            quads.append(order_corners(fitted / s))
        quad = _hull_to_quad(hull)
        if quad is not None:
            quads.append(order_corners(quad / s))
        quads.append(order_corners(box / s))
    return quads


def _hull_to_quad(hull: np.ndarray) -> np.ndarray | None:
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.04, 0.06, 0.09, 0.12):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float64)
        if len(approx) < 4:
            break
    # fall back: the rotated bounding rectangle
    return cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)


# -- fine --------------------------------------------------------------------------------

def _sample(img: np.ndarray, pts: np.ndarray, origin: tuple[int, int] = (0, 0)
            ) -> np.ndarray:
    """Bilinear samples of ``img`` at ``pts`` (..., 2), 0 beyond it; ``img`` may be a
    window of the frame whose top-left pixel is ``origin`` (frame px)."""
    m = pts.reshape(pts.shape[0], -1, 2).astype(np.float32)
    if origin != (0, 0):
        m -= np.array(origin, np.float32)   # exact: whole pixels off float32 coordinates
    out = cv2.remap(img, m[..., 0], m[..., 1], cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out.reshape(pts.shape[:-1])


_ALONG = np.array([0.2, 0.4, 0.6, 0.8])


def _edge_samples() -> tuple[np.ndarray, np.ndarray]:
    """Points on the grid lines (grid units) and their unit normals."""
    e = GRID_EDGES
    a, b = e[:, :2], e[:, 2:]
    pts = a[:, None, :] + (b - a)[:, None, :] * _ALONG[None, :, None]
    horiz = (e[:, 1] == e[:, 3])
    normal = np.where(horiz[:, None], [0.0, 1.0], [1.0, 0.0])
    normal = np.repeat(normal[:, None, :], len(_ALONG), axis=1)
    return pts.reshape(-1, 2), normal.reshape(-1, 2)


EDGE_POINTS, EDGE_NORMALS = _edge_samples()


def ridge_pixels(model: GridModel, half: float, ridge_px: float = 1.6
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Where ``ridge_search`` samples: the offsets ``ts`` (grid units) searched along
    each grid-line sample's normal, and the image points (N, 3 * len(ts), 2) of the
    ridge's left side, middle and right side at each. A fixed camera's are the same
    every frame (``calibration.Calibration.line_pixels`` keeps them)."""
    cell = model.cell_size_px()
    steps = max(7, int(np.ceil(2 * half * cell / 1.0)) | 1)
    ts = np.linspace(-half, half, steps)
    d = max(ridge_px, 0.07 * cell) / cell  # side offset, grid units
    offs = np.concatenate([ts - d, ts, ts + d])
    grid = EDGE_POINTS[:, None, :] + EDGE_NORMALS[:, None, :] * offs[None, :, None]
    px = model.to_image(grid.reshape(-1, 2)).reshape(len(EDGE_POINTS), len(offs), 2)
    return ts, px


def ridge_response(img: np.ndarray, px: np.ndarray, n: int, origin: tuple[int, int] = (0, 0)
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """At the points ``px`` of ``ridge_pixels`` (``n`` offsets): each sample's response
    (middle over the brighter side, N x n), its best offset, and the best's strength (0
    where the best is the first or last offset: no ridge inside the search)."""
    vals = _sample(img, px, origin)
    left, mid, right = vals[:, :n], vals[:, n:2 * n], vals[:, 2 * n:]
    resp = mid - np.maximum(left, right)
    best = resp.argmax(axis=1)
    strength = resp[np.arange(len(best)), best]
    on_edge = (best == 0) | (best == n - 1)
    return resp, best, np.where(on_edge, 0.0, strength)


def ridge_search(img: np.ndarray, model: GridModel, half: float, ridge_px: float = 1.6,
                 origin: tuple[int, int] = (0, 0)
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Search each grid-line sample along its normal for the strongest bright ridge.
    ``img`` may be a window of the frame whose top-left pixel is ``origin``; ``model``
    is the frame's.

    Returns grid points (N, 2), matched image points (N, 2) and their ridge strength (N,).
    """
    ts, px = ridge_pixels(model, half, ridge_px)
    n = len(ts)
    resp, best, strength = ridge_response(img, px, n, origin)
    # sub-sample peak by parabola
    b0 = np.clip(best, 1, n - 2)
    y0, y1, y2 = (resp[np.arange(len(best)), b0 + k] for k in (-1, 0, 1))
    den = y0 - 2 * y1 + y2
    frac = np.where(np.abs(den) > 1e-6, 0.5 * (y0 - y2) / np.where(den == 0, 1, den), 0.0)
    frac = np.clip(frac, -0.5, 0.5)
    t = ts[b0] + frac * (ts[1] - ts[0])
    t = np.where((best == 0) | (best == n - 1), ts[best], t)
    gpts = EDGE_POINTS + EDGE_NORMALS * t[:, None]
    ipts = model.to_image(gpts)
    return EDGE_POINTS, ipts, strength


def fit_model(grid_pts: np.ndarray, img_pts: np.ndarray, width: int, height: int,
              k_prev: float, thresh_px: float, k_step: float = 0.02
              ) -> tuple[GridModel, np.ndarray] | None:
    """Fit homography + radial term to matches; returns the model and its inlier mask.

    RANSAC on the matches (undistorted with the previous ``k``) removes outliers; the
    radial term is then searched around ``k_prev`` with a least-squares homography each.
    """
    if len(grid_pts) < 12:
        return None
    probe = GridModel(np.eye(3), k_prev, width, height)
    und = probe.undistort(img_pts)
    h, inl = cv2.findHomography(grid_pts, und, cv2.RANSAC, thresh_px, maxIters=300,
                                confidence=0.99)
    if h is None or inl is None or inl.sum() < 12:
        return None
    inl = inl.ravel().astype(bool)
    g_all, ip_all = grid_pts[inl], img_pts[inl]
    # the radial term is searched on an even subset of the inliers (a few hundred points
    # pin it down as well), the final model is fitted to all of them
    sub = max(1, len(g_all) // K_SEARCH_POINTS)
    g, ip = g_all[::sub], ip_all[::sub]

    def evaluate(k: float) -> tuple[float, GridModel] | None:
        m = GridModel(np.eye(3), float(k), width, height)
        hk = dlt_homography(g, m.undistort(ip))
        if hk is None:
            return None
        m = GridModel(hk, float(k), width, height)
        return float(np.mean(np.linalg.norm(m.to_image(g) - ip, axis=1) ** 2)), m

    best = evaluate(k_prev)
    if best is None:
        return None
    step = k_step
    k = k_prev
    for _ in range(12):  # pattern search on k
        moved = False
        for cand in (k - step, k + step):
            if not K_RANGE[0] <= cand <= K_RANGE[1]:
                continue
            r = evaluate(cand)
            if r is not None and r[0] < best[0]:
                best, k, moved = r, cand, True
                break
        if not moved:
            step /= 2
            if step < 0.004:
                break
    if sub > 1:
        g, ip = g_all, ip_all
        final = evaluate(k)
        if final is None:
            return None
        best = final
    model = best[1]
    err = np.linalg.norm(model.to_image(grid_pts) - img_pts, axis=1)
    return model, err < thresh_px


def line_search_fit(img: np.ndarray, model: GridModel, rounds=ROUNDS
           ) -> tuple[GridModel, float, int] | None:
    """Fit the grid to the ridges near ``model``; returns model, score, inliers."""
    h, w = img.shape[:2]
    noise = max(4.0, float(np.std(img)) * 0.08)
    inl = None
    for half in rounds:
        g, p, s = ridge_search(img, model, half)
        ok = s > noise
        cell = model.cell_size_px()
        fit = fit_model(g[ok], p[ok], w, h, model.k, max(1.5, 0.5 * half * cell))
        if fit is None:
            return None
        model, inl = fit
    # score on the final model: fraction of line samples with a ridge close to prediction
    g, p, s = ridge_search(img, model, 0.06)
    score = float(np.mean(s > noise))
    return model, score, int(0 if inl is None else inl.sum())


def _initial_models(quad: np.ndarray, width: int, height: int) -> list[GridModel]:
    u0, v0, u1, v1 = CARDBOARD
    models = []
    for grow in (0.1,):
        src = np.array([[u0 - grow, v0 - grow], [u1 + grow, v0 - grow],
                        [u1 + grow, v1 + grow], [u0 - grow, v1 + grow]], np.float32)
        h = cv2.getPerspectiveTransform(src, quad.astype(np.float32)).astype(np.float64)
        models.append(GridModel(h, 0.0, width, height))
    return models


def coarse_grid_corners(grey: np.ndarray) -> list[np.ndarray]:
    """Outer grid corners (4 x 2, TL TR BR BL, full-image pixels) implied by each of the
    ``coarse_quads`` taken as the cardboard's outline: starts for a grid fit that owe
    nothing to the board network."""
    h, w = grey.shape[:2]
    return [_initial_models(q, w, h)[0].corners() for q in coarse_quads(grey)]


# -- profile alignment (coarse -> about a tenth of a cell) -------------------------------

PPC = 16                    # rectified pixels per cell for the profile step
EXT = (-2.0, 17.0)          # rectified extent (grid units) on both axes
#: bands: (axis of the lines' position, band range on the other axis)
BANDS = ((0, (1.0, 7.0)), (0, (8.0, 14.0)), (1, (1.0, 7.0)), (1, (8.0, 14.0)))
FINE_BANDS = tuple((axis, (b, b + 3.0)) for axis in (0, 1) for b in (1.0, 4.0, 8.0, 11.0))
SCALES = np.linspace(0.9, 1.1, 21)
SHIFTS = np.linspace(-1.5, 1.5, 61)
FINE_SCALES = np.linspace(0.97, 1.03, 13)
FINE_SHIFTS = np.linspace(-0.4, 0.4, 33)


def _band_profile(resp: np.ndarray, axis: int, b0: float, b1: float) -> np.ndarray:
    i0, i1 = (int((b - EXT[0]) * PPC) for b in (b0, b1))
    band = resp[i0:i1, :] if axis == 0 else resp[:, i0:i1].T
    p = band.sum(axis=0).astype(np.float32)
    return cv2.GaussianBlur(p.reshape(1, -1), (0, 0), 1.5).ravel()


def _template_profiles(bands) -> list[np.ndarray]:
    n = int((EXT[1] - EXT[0]) * PPC)
    out = []
    for axis, (b0, b1) in bands:
        t = np.zeros((n, n), np.float32)
        for u0, v0, u1, v1 in GRID_EDGES:
            if (u0 == u1) != (axis == 0):
                continue
            p0 = (int(round((u0 - EXT[0]) * PPC)), int(round((v0 - EXT[0]) * PPC)))
            p1 = (int(round((u1 - EXT[0]) * PPC)), int(round((v1 - EXT[0]) * PPC)))
            cv2.line(t, p0, p1, 1.0, 1)
        out.append(_band_profile(t, axis, b0, b1))
    return out


TEMPLATE_PROFILES = _template_profiles(BANDS)
FINE_TEMPLATE_PROFILES = _template_profiles(FINE_BANDS)


def directional_ridges(rect: np.ndarray, d: int = 2, run: int = 7, edges: bool = True
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Line evidence for vertical and horizontal grid lines in a rectified grey image.

    Two cues, both kept only where they run ``run`` px along the line (so pips and
    diagonal marble veins drop out): a bright line brighter than both neighbours ``d`` px
    away (empty board), and the gradient across the line (tile edges on both sides of
    the gap between tiles, light cells). Both peak on the grid lines.
    """
    r = rect.astype(np.float32)
    # the brighter of the two neighbours d px away (wrapping round at the borders): a
    # dilation by a two-point kernel of the wrapped image (cv2 throughout: numpy's
    # temporaries cost more than the filters on this small image)
    pair = np.zeros((1, 2 * d + 1), np.uint8)
    pair[0, 0] = pair[0, -1] = 1
    wrapped = cv2.copyMakeBorder(r, d, d, d, d, cv2.BORDER_WRAP)
    rv = cv2.subtract(r, cv2.dilate(wrapped, pair)[d:-d, d:-d])
    rh = cv2.subtract(r, cv2.dilate(wrapped, pair.T)[d:-d, d:-d])
    cv2.threshold(rv, 0, 0, cv2.THRESH_TOZERO, dst=rv)
    cv2.threshold(rh, 0, 0, cv2.THRESH_TOZERO, dst=rh)
    if not edges:
        return (cv2.erode(rv, np.ones((run, 1), np.uint8)),
                cv2.erode(rh, np.ones((1, run), np.uint8)))
    gv = cv2.Sobel(r, cv2.CV_32F, 1, 0, ksize=3, scale=0.25)
    gh = cv2.Sobel(r, cv2.CV_32F, 0, 1, ksize=3, scale=0.25)
    gv = cv2.GaussianBlur(np.abs(gv, out=gv), (5, 1), 0)
    gh = cv2.GaussianBlur(np.abs(gh, out=gh), (1, 5), 0)
    fv = cv2.erode(cv2.scaleAdd(rv, 2.0, gv), np.ones((run, 1), np.uint8))
    fh = cv2.erode(cv2.scaleAdd(rh, 2.0, gh), np.ones((1, run), np.uint8))
    return fv, fh


def rectify(img: np.ndarray, model: GridModel, ppc: int, ext: tuple[float, float],
            blur: bool = True) -> np.ndarray:
    """Draw grid units ``ext`` x ``ext`` at ``ppc``, blurring first to avoid aliasing
    (``blur=False``: ``img`` is already smoothed, see ``presmooth``)."""
    if blur:
        img = smoothed_for_sampling(img, model.cell_size_px(), ppc)
    xy = model.rectify_map(ppc, ext[0], ext[0], ext[1], ext[1])
    return cv2.remap(img, xy, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


def presmooth(grey: np.ndarray, model: GridModel) -> np.ndarray:
    """``grey`` smoothed once for every rectification at ``PPC`` near ``model``'s scale."""
    return smoothed_for_sampling(grey, model.cell_size_px(), PPC)


def align_profiles(grey: np.ndarray, model: GridModel, fine: bool = False,
                   edges: bool = True, blur: bool = True) -> GridModel | None:
    """Correct ``model`` by matching line-position profiles of four bands to the layout."""
    rect = rectify(grey, model, PPC, EXT, blur)
    rv, rh = directional_ridges(rect, edges=edges)
    n = rect.shape[0]
    x = np.arange(n, dtype=np.float64)
    c = (7.5 - EXT[0]) * PPC
    grid_pts, rect_pts = [], []
    bands, tps = (FINE_BANDS, FINE_TEMPLATE_PROFILES) if fine else (BANDS, TEMPLATE_PROFILES)
    scales, shifts = (FINE_SCALES, FINE_SHIFTS) if fine else (SCALES, SHIFTS)
    for (axis, (b0, b1)), tp in zip(bands, tps, strict=True):
        prof = _band_profile(rv if axis == 0 else rh, axis, b0, b1)
        prof = prof - prof.mean()
        # template position x corresponds to image position a * (x - c) + c + sh
        xi = (scales[:, None, None] * (x - c)[None, None, :] + c
              + shifts[None, :, None] * PPC)
        vals = np.interp(xi.ravel(), x, prof, left=0.0, right=0.0).reshape(xi.shape)
        sc = vals @ tp
        ia, ish = np.unravel_index(int(np.argmax(sc)), sc.shape)
        a, sh = scales[ia], shifts[ish]
        mid = (b0 + b1) / 2
        for k in range(16):
            pos = (a * ((k - EXT[0]) * PPC - c) + c + sh * PPC) / PPC + EXT[0]
            if axis == 0:
                grid_pts.append((k, mid))
                rect_pts.append((pos, mid))
            else:
                grid_pts.append((mid, k))
                rect_pts.append((mid, pos))
    g = np.array(grid_pts, np.float64)
    img_pts = model.to_image(np.array(rect_pts, np.float64))
    h = dlt_homography(g, model.undistort(img_pts))
    if h is None:
        return None
    return GridModel(h, model.k, model.width, model.height)


def _rect_features(grey: np.ndarray, model: GridModel, blur: bool = True
                   ) -> tuple[np.ndarray, np.ndarray]:
    return directional_ridges(rectify(grey, model, PPC, EXT, blur))


def _rect_px(g: np.ndarray) -> np.ndarray:
    return (g - EXT[0]) * PPC - 0.5


def rectified_line_fit(grey: np.ndarray, model: GridModel, half: float, blur: bool = True
                       ) -> GridModel | None:
    """Move every line sample to the strongest line evidence within ``half`` cell."""
    fv, fh = _rect_features(grey, model, blur)
    ts = np.arange(-half, half + 1e-9, 1.0 / PPC / 2)
    vert = EDGE_NORMALS[:, 0] > 0.5
    grid_pts, found, strength = [], [], []
    for feat, sel in ((fv, vert), (fh, ~vert)):
        p, n = EDGE_POINTS[sel], EDGE_NORMALS[sel]
        q = p[:, None, :] + n[:, None, :] * ts[None, :, None]
        vals = _sample(feat, _rect_px(q))
        best = vals.argmax(axis=1)
        t = ts[best]
        grid_pts.append(p)
        found.append(p + n * t[:, None])
        strength.append(vals[np.arange(len(best)), best])
    g, f, st = (np.concatenate(a) for a in (grid_pts, found, strength))
    ok = st > percentile(st, 30)
    img_pts = model.to_image(f[ok])
    fit = fit_model(g[ok], img_pts, model.width, model.height, model.k,
                    max(1.5, 0.08 * model.cell_size_px()))
    return None if fit is None else fit[0]


_MID_POINTS = EDGE_POINTS + EDGE_NORMALS * 0.5
_MID_OK = (_MID_POINTS >= 0).all(axis=1) & (_MID_POINTS <= 15).all(axis=1)


def line_contrast(grey: np.ndarray, model: GridModel, blur: bool = True) -> float:
    """(on-line - mid-cell) / (on-line + mid-cell) line evidence: near 0 for no grid."""
    fv, fh = _rect_features(grey, model, blur)
    vert = EDGE_NORMALS[:, 0] > 0.5
    on = np.concatenate([_sample(fv, _rect_px(EDGE_POINTS[vert])[None])[0],
                         _sample(fh, _rect_px(EDGE_POINTS[~vert])[None])[0]])
    mid_v = _sample(fv, _rect_px(EDGE_POINTS[vert] + [0.5, 0])[None])[0]
    mid_h = _sample(fh, _rect_px(EDGE_POINTS[~vert] + [0, 0.5])[None])[0]
    a, b = float(np.mean(on)), float(np.mean(np.concatenate([mid_v, mid_h])))
    return (a - b) / (a + b + 1e-6)


#: line samples of each quarter of the board (TL, TR, BL, BR), shared with grid_fit
QUARTERS = [((EDGE_POINTS[:, 0] < 7.5) == (qx == 0)) & ((EDGE_POINTS[:, 1] < 7.5) == (qy == 0))
            for qy in (0, 1) for qx in (0, 1)]


def quarter_contrasts(grey: np.ndarray, model: GridModel, blur: bool = True
                      ) -> list[float]:
    """``line_contrast`` in each quarter of the board (TL, TR, BL, BR)."""
    fv, fh = _rect_features(grey, model, blur)
    vert = EDGE_NORMALS[:, 0] > 0.5
    on = np.empty(len(EDGE_POINTS))
    mid = np.empty(len(EDGE_POINTS))
    on[vert] = _sample(fv, _rect_px(EDGE_POINTS[vert])[None])[0]
    on[~vert] = _sample(fh, _rect_px(EDGE_POINTS[~vert])[None])[0]
    mid[vert] = _sample(fv, _rect_px(EDGE_POINTS[vert] + [0.5, 0])[None])[0]
    mid[~vert] = _sample(fh, _rect_px(EDGE_POINTS[~vert] + [0, 0.5])[None])[0]
    out = []
    for q in QUARTERS:
        a, b = float(on[q].mean()), float(mid[q].mean())
        out.append((a - b) / (a + b + 1e-6))
    return out


def _phantom_edges() -> np.ndarray:
    """Unit segments of the extended grid (-1..16) that are no grid line of the board."""
    real = {tuple(e) for e in GRID_EDGES.astype(int).tolist()}
    out = []
    for a in range(-1, 17):
        for b in range(-1, 16):
            for e in ((b, a, b + 1, a), (a, b, a, b + 1)):
                if e not in real:
                    out.append(e)
    return np.array(out, np.float64)


#: the extended grid's unit segments that are no line of the board (margin, cut corners)
PHANTOM_EDGES = _phantom_edges()


def _edge_mid_evidence(fv: np.ndarray, fh: np.ndarray, edges: np.ndarray,
                       shift: tuple[float, float]) -> np.ndarray:
    mids = (edges[:, :2] + edges[:, 2:]) / 2 + np.array(shift)
    vert = edges[:, 0] == edges[:, 2]
    out = np.empty(len(edges))
    for along in (-0.25, 0.25):
        off = np.where(vert[:, None], [0.0, along], [along, 0.0])
        q = _rect_px(mids + off)
        v = _sample(fv, q[None])[0]
        h = _sample(fh, q[None])[0]
        out = np.where(vert, v, h) if along < 0 else out + np.where(vert, v, h)
    return out / 2


def fix_layout(grey: np.ndarray, model: GridModel, blur: bool = True) -> GridModel:
    """Choose among the model and its one-cell shifts the one whose predicted lines
    are there and whose non-lines (margin, cut corners) are not."""
    fv, fh = _rect_features(grey, model, blur)
    best, best_shift = -np.inf, (0.0, 0.0)
    for shift in ((0.0, 0.0), (1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)):
        on = _edge_mid_evidence(fv, fh, GRID_EDGES, shift).mean()
        off = _edge_mid_evidence(fv, fh, PHANTOM_EDGES, shift).mean()
        score = (on - off) / (on + off + 1e-6)
        if score > best + 0.02 * (shift != (0.0, 0.0)):
            best, best_shift = score, shift
    if best_shift == (0.0, 0.0):
        return model
    t = np.array([[1, 0, best_shift[0]], [0, 1, best_shift[1]], [0, 0, 1]], np.float64)
    return GridModel(model.homography @ t, model.k, model.width, model.height)


def fit_grid(smooth: np.ndarray, ridge_img: np.ndarray, m0: GridModel, strategy: str
             ) -> tuple[GridModel, float] | None:
    """One way from a rough model to a fitted grid, and the fit's line contrast.

    ``smooth`` is the frame after ``presmooth``, ``ridge_img`` the frame lightly blurred
    (float32) for the ridge search. ``direct``: line search from the rough model;
    ``profile``: band profiles (lines and tile edges) first; ``ridge``: band profiles of
    bright lines only, then the ridge search in the image (best on sparse boards).
    Every fit ends with a polish on the bright lines where enough of them are seen.
    """
    m: GridModel | None = m0
    if strategy in ("profile", "ridge"):
        edges = strategy == "profile"
        m = align_profiles(smooth, m0, edges=edges, blur=False)
        if m is not None:
            m = align_profiles(smooth, m, fine=True, edges=edges, blur=False)
    if strategy == "ridge":
        if m is None:
            return None
        r = line_search_fit(ridge_img, m)
        if r is None:
            return None
        m = r[0]
    for half in (0.3, 0.15, 0.08) if strategy != "ridge" else (0.08,):
        if m is None:
            return None
        m = rectified_line_fit(smooth, m, half, blur=False)
    if m is None:
        return None
    m = fix_layout(smooth, m, blur=False)
    if strategy != "ridge":
        r = line_search_fit(ridge_img, m, rounds=POLISH_ROUNDS)
        if r is not None and r[2] >= MIN_POLISH_INLIERS:
            m = r[0]
    return m, line_contrast(smooth, m, blur=False)


def _agreeing(fits: list[tuple[GridModel, float]], floor: float
              ) -> list[tuple[GridModel, float]]:
    """Fits of line contrast >= ``floor`` that another such fit (another start or
    strategy) confirms: all four grid corners within ``AGREE`` cell. Rescues boards
    whose lines are faint (blur, dark, noise); texture without a grid does not give two
    fits that agree."""
    weak = sorted((r for r in fits if r[1] >= floor), key=lambda r: -r[1])
    out = []
    for i, (a, sa) in enumerate(weak):
        ca, tol = a.corners(), AGREE * a.cell_size_px()
        if any(np.linalg.norm(ca - b.corners(), axis=1).max() < tol
               for j, (b, _) in enumerate(weak) if j != i):
            out.append((a, sa))
    return out


#: the grid is fitted on a copy reduced so that a cell is about this many pixels,
#: then polished on the bright lines at full resolution
FIT_CELL_PX = 22.0


def relabelled(model: GridModel, s: int) -> GridModel:
    """The same grid with its corner labels moved by ``s`` quarter turns (corner ``s``
    of ``model`` becomes the top-left one)."""
    if s % 4 == 0:
        return model
    src = GRID_CORNERS.astype(np.float32)
    dst = np.roll(GRID_CORNERS, -(s % 4), axis=0).astype(np.float32)
    t = cv2.getPerspectiveTransform(src, dst).astype(np.float64)
    return GridModel(model.homography @ t, model.k, model.width, model.height)


def upright(model: GridModel) -> GridModel:
    """The same grid, its corners relabelled so the top edge (TL -> TR) is the most
    nearly horizontal edge running left to right (contracts.md: board upright within
    45 degrees). Under perspective two edges can both lie within 45 degrees of
    horizontal; the more horizontal one wins, whatever the labels were before."""
    return relabelled(model, int(np.argmin(top_edge_angles(model))))


def top_edge_angles(model: GridModel) -> np.ndarray:
    """Per labelling (``relabelled`` by s quarter turns), how far (degrees) its top edge
    is from running left to right."""
    c = model.corners()
    d = np.roll(c, -1, axis=0) - c
    return np.abs(np.degrees(np.arctan2(d[:, 1], d[:, 0])))


def locate(image: np.ndarray, min_score: float = 0.6) -> LocateResult:
    """Find the board in a BGR or grey image of any size."""
    grey = to_grey(image)
    h, w = grey.shape
    quads = coarse_quads(grey)
    if not quads:
        return LocateResult(None, 0.0, 0)
    cell = _initial_models(quads[0], w, h)[0].cell_size_px()
    f = min(1.0, FIT_CELL_PX / max(cell, 1.0))
    small = grey if f == 1.0 else cv2.resize(grey, (int(round(w * f)), int(round(h * f))),
                                             interpolation=cv2.INTER_AREA)
    sh, sw = small.shape
    smooth = presmooth(small, _initial_models(quads[0] * [sw / w, sh / h], sw, sh)[0])
    ridge_small = cv2.GaussianBlur(small, (0, 0), 0.7).astype(np.float32)
    fits: list[tuple[GridModel, float]] = []
    tried: list[tuple[np.ndarray, str]] = []
    done = False
    for quad in quads:
        m0 = _initial_models(quad * [sw / w, sh / h], sw, sh)[0]
        c0, tol = m0.corners(), 0.25 * m0.cell_size_px()
        for strategy in STRATEGIES:
            if any(st == strategy and np.abs(c - c0).max() < tol for c, st in tried):
                continue  # (nearly) the same start, the same way: the same fit
            tried.append((c0, strategy))
            r = fit_grid(smooth, ridge_small, m0, strategy)
            if r is None:
                continue
            fits.append(r)
            if r[1] >= GOOD_ENOUGH and min(quarter_contrasts(smooth, r[0], blur=False)) \
                    >= GOOD_ENOUGH:
                done = True
                break
        if done or (fits and max(r[1] for r in fits) > min_score):
            break
    accepted = sorted((r for r in fits if r[1] >= min_score), key=lambda r: -r[1])
    if not accepted:
        accepted = _agreeing(fits, min_score - RESCUE_BELOW)
    fits = accepted
    if not fits:
        return LocateResult(None, 0.0, 0)
    full = cv2.GaussianBlur(grey, (0, 0), 0.7).astype(np.float32) if f != 1.0 else None
    out: list[tuple[GridModel, float]] = []
    for model, score in fits:
        if full is not None:
            model = GridModel(np.diag([w / sw, h / sh, 1.0]) @ model.homography, model.k, w, h)
            r = line_search_fit(full, model, rounds=(0.12, 0.06))
            if r is not None and r[2] >= MIN_POLISH_INLIERS:
                model = r[0]
        model = upright(model)
        if any(np.abs(model.corners() - m.corners()).max() < 0.05 * model.cell_size_px()
               for m, _ in out):
            continue  # the same fit found twice
        out.append((model, score))
    return LocateResult(out[0][0], out[0][1], 0, tuple(out))
