"""Grid fit from approximate grid corners (the stage after the learned segmenter).

The segmenter gives the four outer grid corners to within about half a cell (now and
then a whole cell). From there:

1. **Search image.** The photo is halved (``cv2.pyrDown``) until a cell is at most
   ``MAX_SEARCH_CELL_PX`` pixels. Every step below draws it rectified by the current
   model at ``PPC`` pixels per cell (one ``cv2.remap`` of 304 x 304, ~0.5 ms) and takes
   the line evidence for vertical and horizontal lines (``locate.directional_ridges``).
2. **Band profiles** (two passes, ``PROFILE_PASSES``). In eight bands (four per axis,
   ~4 cells wide) the evidence is summed across the band; the 16 line positions,
   weighted by how much of each line the layout has in the band, are matched to the
   profile with one scale and one shift per band (the first pass within 0.65 cell: the
   nearest phase of the periodic grid). Only the 16 predicted positions are sampled per
   trial, not the whole template. The band matches refit the model.
3. **Line search** (``ROUNDS``). Each of the ~1700 line samples moves to the strongest
   evidence along its normal within a shrinking window, and the samples refit the model.
4. **Phase.** The grid is periodic, so a start a whole cell off gives a fit a whole
   cell off. The board layout is not periodic: the model and its one-cell shifts are
   scored by evidence on the layout's lines against evidence on the extended grid's
   non-lines (margin, cut corners), as in ``locate.fix_layout``; after a shift one more
   line-search round follows, and the check again: the same shift again, winning by
   ``PHASE_CONTINUE_MARGIN``, goes on (a fit several cells off along one axis).
5. **Score.** On the final model's rectification: line contrast as
   ``locate.line_contrast`` (0 no grid, ~0.9 perfect), overall and per quarter.
6. **Polish.** One ridge search at full resolution (``locate.ridge_search``), kept when
   enough lines are seen. The model is relabelled upright (``locate.upright``).

Every fit is homography + one radial term (``fit_points``): least squares with
trimming, the radial term from a parabola through three trial values; a few DLTs
where ``locate.fit_model`` runs RANSAC and a pattern search.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from ..geometry import (
    GRID_EDGES,
    GridModel,
    HomographyFitter,
    blur_reach,
    covering_window,
    homography_from_corners,
)
from ..quantile import percentile
from .locate import (
    EDGE_NORMALS,
    EDGE_POINTS,
    K_RANGE,
    PHANTOM_EDGES,
    QUARTERS,
    directional_ridges,
    ridge_search,
    upright,
)

#: the search image is reduced (by halving) until a cell is at most this many pixels
MAX_SEARCH_CELL_PX = 24.0
#: rectified pixels per cell and rectified extent (grid units, both axes)
PPC = 16
EXT = (-2.0, 17.0)
#: band profiles: bands (position range across the lines), shift step (cells), and the
#: (shift range, scales) of the first and second pass
PROFILE_BANDS = ((0.0, 4.0), (4.0, 7.5), (7.5, 11.0), (11.0, 15.0))
PROFILE_STEP = 0.05
PROFILE_FIT_CELLS = 0.3
PROFILE_PASSES = ((0.65, np.linspace(0.92, 1.08, 17), False),
                  (0.25, np.linspace(0.98, 1.02, 9), True))
#: line-search windows (half-width, cells), one per round
ROUNDS = (0.25, 0.12, 0.06)
#: one-cell shifts tried by the phase check, and the margin a shift must win by
PHASE_SHIFTS = ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1),
                (-1, -1))
#: rounds of the phase check, and the margin a shift must win by. After a shift, the
#: check runs again and only the same shift again, by the larger margin, goes on: a fit
#: several cells off along one axis (a network outline cells off) walks back a cell a
#: round while the board's own lines keep showing beyond the fit's edge (seed 8101's
#: photo 267, 4.2 cells down, comes back; allowing any second shift moved fits two
#: cells away more often than it mended them, and continuing by the first margin moved
#: one real-print fit a cell off)
PHASE_ROUNDS = 5
PHASE_MARGIN = 0.02
PHASE_CONTINUE_MARGIN = 0.1
#: steps of the search for the radial term in ``fit_points``, one per iteration
K_STEPS = (0.025,)
K_SEARCH_POINTS = 300
#: full-resolution polish: window (cells) and the share of line samples it needs
POLISH_HALF = 0.08
#: the light blur the polish's ridge search looks at
POLISH_SIGMA = 0.7
POLISH_MIN_SHARE = 0.35


@dataclass(frozen=True)
class FitResult:
    """A grid fitted from approximate corners."""

    model: GridModel                  # full resolution, labelled upright
    score: float                      # line contrast (0: no grid, ~0.9: perfect)
    quarters: tuple[float, ...]       # line contrast per quarter (TL, TR, BL, BR)
    shift: tuple[int, int]            # whole cells the phase check moved the grid by

    @property
    def corners(self) -> np.ndarray:
        return self.model.corners()


# -- fitting ---------------------------------------------------------------------------

def _fit_k(fitter: HomographyFitter, grid_pts: np.ndarray, img_pts: np.ndarray,
           width: int, height: int, k: float) -> tuple[float, GridModel] | None:
    """Least-squares homography (``fitter``: from ``grid_pts``) on the image points
    undistorted with ``k``; mean squared image residual."""
    und = GridModel(np.eye(3), k, width, height).undistort(img_pts)
    hom = fitter.fit(und)
    if hom is None:
        return None
    m = GridModel(hom, k, width, height)
    r = m.to_image(grid_pts) - img_pts
    return float(np.einsum("ij,ij->", r, r)) / len(r), m


def fit_points(grid_pts: np.ndarray, img_pts: np.ndarray, width: int, height: int,
               k: float, thresh_px: float, fit_k: bool = True) -> GridModel | None:
    """Homography + radial term fitted to matches, robust by trimming.

    A least-squares homography for the current ``k``; points off by more than
    ``thresh_px`` (at first: also the worst 40 %) are dropped and the fit repeated.
    ``k`` (``fit_k``) is the vertex of a parabola through three trial values (on at most
    ``K_SEARCH_POINTS`` points), twice with a shrinking step; a final least-squares fit
    uses all points kept. A few DLTs instead of ``locate.fit_model``'s pattern search.
    """
    if len(grid_pts) < 12:
        return None
    keep = np.ones(len(grid_pts), bool)
    model = None
    for it, step in enumerate(K_STEPS + (0.0,)):
        g, ip = grid_pts[keep], img_pts[keep]
        if fit_k and step:
            sub = max(1, len(g) // K_SEARCH_POINTS)   # k is pinned by a few hundred
            g, ip = g[::sub], ip[::sub]
        fitter = HomographyFitter.of(g)
        if fitter is None:
            return None
        best = _fit_k(fitter, g, ip, width, height, k)
        if best is None:
            return None
        if fit_k and step:
            # trial terms stay within the lens range (a pincushion term bends the grid
            # to fit a wrong line)
            lo, hi = (_fit_k(fitter, g, ip, width, height, float(np.clip(k + d, *K_RANGE)))
                      for d in (-step, step))
            if lo is not None and hi is not None:
                den = lo[0] - 2 * best[0] + hi[0]
                kk = k + (0.5 * step * (lo[0] - hi[0]) / den if den > 1e-12 else
                          (step if hi[0] < lo[0] else -step) * 2)
                kk = float(np.clip(kk, max(K_RANGE[0], k - 2 * step),
                                   min(K_RANGE[1], k + 2 * step)))
                cand = min((r for r in (lo, hi, _fit_k(fitter, g, ip, width, height, kk))
                            if r is not None), key=lambda r: r[0])
                if cand[0] < best[0]:
                    best = cand
        model = best[1]
        k = model.k
        res = np.linalg.norm(model.to_image(grid_pts) - img_pts, axis=1)
        lim = thresh_px if it else max(thresh_px, float(percentile(res, 60)))
        keep = res < lim
        if keep.sum() < 12:
            return None
    return model


@dataclass(frozen=True)
class _Frame:
    """Line evidence of the search image, rectified by ``model``."""

    model: GridModel
    fv: np.ndarray                    # vertical-line evidence
    fh: np.ndarray                    # horizontal-line evidence

    def sample(self, grid_pts: np.ndarray, vertical: bool) -> np.ndarray:
        """Evidence at grid points (..., 2) for lines of one direction."""
        px = _rect_px(grid_pts)
        vals = self.sample_px(px[:, 0].reshape(1, -1), px[:, 1].reshape(1, -1), vertical)
        return vals.reshape(grid_pts.shape[:-1])

    def sample_px(self, x: np.ndarray, y: np.ndarray, vertical: bool) -> np.ndarray:
        """Evidence at rectified pixels (``x``, ``y``: 1 x N float32; 0 beyond the
        frame) for lines of one direction: 1 x N."""
        return cv2.remap(self.fv if vertical else self.fh, x, y, cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def _rect_px(grid_pts: np.ndarray) -> np.ndarray:
    """Rectified-frame pixel coordinates (N x 2 float32) of grid points (..., 2)."""
    return ((grid_pts.reshape(-1, 2) - EXT[0]) * PPC - 0.5).astype(np.float32)


def _frame(img: np.ndarray, model: GridModel) -> _Frame:
    """Rectify ``img`` at ``PPC`` and compute the line evidence."""
    xy = model.rectify_map(PPC, EXT[0], EXT[0], EXT[1], EXT[1])
    rect = cv2.remap(img, xy, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    fv, fh = directional_ridges(rect)
    return _Frame(model, fv, fh)


# -- band profiles -----------------------------------------------------------------------

def _line_weights() -> np.ndarray:
    """(axis, band, line) -> length of that grid line inside the band (layout aware)."""
    w = np.zeros((2, len(PROFILE_BANDS), 16))
    for u0, v0, u1, v1 in GRID_EDGES:
        axis = 0 if u0 == u1 else 1           # 0: vertical line at u = u0
        pos, along = (u0, (v0 + v1) / 2) if axis == 0 else (v0, (u0 + u1) / 2)
        for b, (b0, b1) in enumerate(PROFILE_BANDS):
            if b0 <= along < b1:
                w[axis, b, int(pos)] += 1.0
    return w


_LINE_WEIGHTS = _line_weights()
_LINE_WEIGHTS.flags.writeable = False


#: the profile of a band is smoothed by a Gaussian of this sigma (rectified px); kernel
#: size as OpenCV picks it for float images
PROFILE_SIGMA = 1.5
_PROFILE_KSIZE = (int(round(PROFILE_SIGMA * 8 + 1)) | 1, 1)


def _band_profiles(frame: _Frame) -> np.ndarray:
    """(axis x band, px) evidence summed across each band, smoothed along it and less
    its mean: vertical lines' bands first."""
    rows = []
    for axis, feat in ((0, frame.fv), (1, frame.fh)):
        for b0, b1 in PROFILE_BANDS:
            i0, i1 = (int(round((v - EXT[0]) * PPC)) for v in (b0, b1))
            rows.append(feat[i0:i1, :].sum(axis=0) if axis == 0 else
                        feat[:, i0:i1].sum(axis=1))
    prof = cv2.GaussianBlur(np.stack(rows), _PROFILE_KSIZE, PROFILE_SIGMA, sigmaY=0,
                            borderType=cv2.BORDER_REFLECT_101).astype(np.float64)
    return prof - prof.mean(axis=1, keepdims=True)


def _profile_fit(frame: _Frame, shift: float, scales: np.ndarray, fit_k: bool
                 ) -> GridModel | None:
    """Per band, the scale and shift that best put the layout's lines on the evidence;
    the band matches refit the model."""
    lines = np.arange(16, dtype=np.float64)
    c = 7.5
    shifts = np.arange(-shift, shift + 1e-9, PROFILE_STEP)
    # positions (grid units) of line k for every scale a and shift s: c + a (k - c) + s
    pos = c + scales[:, None, None] * (lines - c)[None, None, :] + shifts[None, :, None]
    # every band's profile at those positions (linear between pixels, 0 beyond them)
    prof = _band_profiles(frame)
    n = prof.shape[1]
    pos_px = ((pos - EXT[0]) * PPC - 0.5).ravel()
    i0 = np.floor(pos_px).astype(np.intp)
    frac = pos_px - i0
    padded = np.zeros((len(prof), n + 2))
    padded[:, 1:-1] = prof
    left, right = np.clip(i0 + 1, 0, n + 1), np.clip(i0 + 2, 0, n + 1)
    vals = padded[:, left] * (1.0 - frac) + padded[:, right] * frac
    vals[:, (pos_px < 0) | (pos_px > n - 1)] = 0.0
    weights = _LINE_WEIGHTS.reshape(len(prof), 16)
    score = np.einsum("bpl,bl->bp", vals.reshape(len(prof), -1, 16), weights)
    best = score.argmax(axis=1)
    grid_pts, rect_pts = [], []
    for row, (axis, (b0, b1)) in enumerate((a, band) for a in (0, 1)
                                           for band in PROFILE_BANDS):
        found = pos.reshape(-1, 16)[best[row]]
        mid = np.full(16, (b0 + b1) / 2)
        if axis == 0:
            grid_pts.append(np.stack([lines, mid], 1))
            rect_pts.append(np.stack([found, mid], 1))
        else:
            grid_pts.append(np.stack([mid, lines], 1))
            rect_pts.append(np.stack([mid, found], 1))
    m = frame.model
    return fit_points(np.concatenate(grid_pts), m.to_image(np.concatenate(rect_pts)),
                      m.width, m.height, m.k, max(1.0, PROFILE_FIT_CELLS * m.cell_size_px()),
                      fit_k=fit_k)


# -- line search -------------------------------------------------------------------------

_VERT = EDGE_NORMALS[:, 0] > 0.5


@functools.lru_cache(maxsize=8)
def _search_pattern(half: float
                    ) -> tuple[np.ndarray, tuple[tuple[bool, np.ndarray, np.ndarray,
                                                       np.ndarray, np.ndarray], ...]]:
    """The steps along the normal (cells) of a line search within ``half`` cell, and per
    direction (vertical lines, then horizontal): its line samples, their normals and the
    rectified-px remap coordinates of every sample moved by every step (two 1 x N
    float32 rows)."""
    ts = np.arange(-half, half + 1e-9, 0.5 / PPC)
    ts.flags.writeable = False
    sides = []
    for vertical, sel in ((True, _VERT), (False, ~_VERT)):
        p, n = EDGE_POINTS[sel], EDGE_NORMALS[sel]
        px = _rect_px(p[:, None, :] + n[:, None, :] * ts[None, :, None])
        x, y = px[:, 0].reshape(1, -1), px[:, 1].reshape(1, -1)
        for a in (p, n, x, y):
            a.flags.writeable = False
        sides.append((vertical, p, n, x, y))
    return ts, tuple(sides)


def _line_search(frame: _Frame, half: float) -> GridModel | None:
    """Move every line sample to the strongest evidence within ``half`` cell; refit."""
    ts, sides = _search_pattern(half)
    grid_pts, found, strength = [], [], []
    for vertical, p, n, x, y in sides:
        vals = frame.sample_px(x, y, vertical).reshape(len(p), -1)
        best = vals.argmax(axis=1)
        grid_pts.append(p)
        found.append(p + n * ts[best][:, None])
        strength.append(vals[np.arange(len(best)), best])
    g, f, st = (np.concatenate(a) for a in (grid_pts, found, strength))
    ok = st > percentile(st, 30)
    if ok.sum() < 12:
        return None
    m = frame.model
    return fit_points(g[ok], m.to_image(f[ok]), m.width, m.height, m.k,
                      max(1.0, 0.5 * half * m.cell_size_px()))


# -- phase -------------------------------------------------------------------------------

def _segment_evidence(frame: _Frame, edges: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    """Mean evidence at a quarter and three quarters along each unit segment, the
    segments moved by each of ``shifts`` (S x 2 cells): S x len(edges)."""
    a = edges[None, :, :2] + shifts[:, None, :]
    b = edges[None, :, 2:] + shifts[:, None, :]
    vert = edges[:, 0] == edges[:, 2]
    out = np.zeros((len(shifts), len(edges)))
    for t in (0.25, 0.75):
        p = a + (b - a) * t
        out[:, vert] += frame.sample(p[:, vert], True)
        out[:, ~vert] += frame.sample(p[:, ~vert], False)
    return out / 2


def shifted(model: GridModel, du: float, dv: float) -> GridModel:
    """``model`` moved by (du, dv) cells along its own grid."""
    t = np.array([[1.0, 0.0, du], [0.0, 1.0, dv], [0.0, 0.0, 1.0]])
    return GridModel(model.homography @ t, model.k, model.width, model.height)


def _phase(frame: _Frame, margin: float = PHASE_MARGIN) -> tuple[int, int]:
    """The one-cell shift of the frame's model whose layout lines are there and whose
    non-lines (margin, cut corners) are not (``locate.fix_layout``); a move must win by
    ``margin``."""
    shifts = np.array(PHASE_SHIFTS, np.float64)
    on = _segment_evidence(frame, GRID_EDGES, shifts).mean(axis=1)
    off = _segment_evidence(frame, PHANTOM_EDGES, shifts).mean(axis=1)
    moved = np.any(shifts != 0, axis=1)
    score = (on - off) / (on + off + 1e-6) - margin * moved
    best = int(np.argmax(score))          # the first of equals, as PHASE_SHIFTS orders
    return PHASE_SHIFTS[best]


# -- score -----------------------------------------------------------------------------

def contrasts(frame: _Frame) -> tuple[float, tuple[float, ...]]:
    """Line contrast of the frame's model (as ``locate.line_contrast``: on-line against
    mid-cell evidence, 0 no grid, ~0.9 perfect), overall and per quarter of the board
    (TL, TR, BL, BR)."""
    on, mid = np.empty(len(EDGE_POINTS)), np.empty(len(EDGE_POINTS))
    for vertical, step in ((True, (0.5, 0.0)), (False, (0.0, 0.5))):
        sel = _VERT if vertical else ~_VERT
        on[sel] = frame.sample(EDGE_POINTS[sel], vertical)
        mid[sel] = frame.sample(EDGE_POINTS[sel] + step, vertical)

    def ratio(a: float, b: float) -> float:
        return (a - b) / (a + b + 1e-6)

    quarters = tuple(ratio(float(on[q].mean()), float(mid[q].mean())) for q in QUARTERS)
    return ratio(float(on.mean()), float(mid.mean())), quarters


# -- main --------------------------------------------------------------------------------

def _search_image(grey: np.ndarray, cell_px: float) -> np.ndarray:
    """``grey`` halved (``cv2.pyrDown``) while a cell stays above ``MAX_SEARCH_CELL_PX``."""
    img = grey
    while cell_px > MAX_SEARCH_CELL_PX and min(img.shape) > 64:
        img = cv2.pyrDown(img)
        cell_px /= 2
    return img


def _rescaled(model: GridModel, width: int, height: int) -> GridModel:
    s = np.diag([width / model.width, height / model.height, 1.0])
    return GridModel(s @ model.homography, model.k, width, height)


def plain_model(corners: np.ndarray, width: int, height: int) -> GridModel:
    """The homography through four outer grid corners (TL, TR, BR, BL), no lens term."""
    return GridModel(homography_from_corners(corners), 0.0, width, height)


def _on_search_image(grey: np.ndarray, model: GridModel) -> tuple[np.ndarray, GridModel]:
    """The search image for ``model``'s cell size, and the model rescaled to it."""
    small = _search_image(grey, model.cell_size_px())
    sh, sw = small.shape
    return small, _rescaled(model, sw, sh)


#: the grid's outline, cells beyond the outer lines, that holds every sample of the
#: polish's ridge search (it reaches half a window plus a ridge's side offset, < 0.2 cell)
_POLISH_REACH = 0.5
_OUTLINE_ALONG = np.linspace(-_POLISH_REACH, 15 + _POLISH_REACH, 33)
_OUTLINE = np.concatenate(
    [np.stack([_OUTLINE_ALONG, np.full_like(_OUTLINE_ALONG, e)], 1) for e in (_OUTLINE_ALONG[0], _OUTLINE_ALONG[-1])]
    + [np.stack([np.full_like(_OUTLINE_ALONG, e), _OUTLINE_ALONG], 1) for e in (_OUTLINE_ALONG[0], _OUTLINE_ALONG[-1])])


def polish_window(model: GridModel, sigma: float) -> tuple[int, int, int, int] | None:
    """The part of the frame (``geometry.covering_window``) that a blur of ``sigma``
    followed by the polish's ridge search reads: the model's image of the grid's outline
    ``_POLISH_REACH`` cells out, 4 px more for the outline's curve between its samples."""
    pts = model.to_image(_OUTLINE)
    return covering_window(pts.min(axis=0), pts.max(axis=0), model.width, model.height,
                           blur_reach(sigma) + 4)


def polish(grey: np.ndarray, model: GridModel, half: float = POLISH_HALF
           ) -> GridModel | None:
    """One ridge search (``locate.ridge_search``) at full resolution and a refit. Only
    the part of the frame the search reads is blurred (``polish_window``)."""
    h, w = grey.shape
    x0, y0, x1, y1 = polish_window(model, POLISH_SIGMA) or (0, 0, w, h)
    ridge = cv2.GaussianBlur(grey[y0:y1, x0:x1], (0, 0), POLISH_SIGMA).astype(np.float32)
    g, p, s = ridge_search(ridge, model, half, origin=(x0, y0))
    ok = s > max(4.0, 0.5 * float(percentile(s, 75)))
    if ok.mean() < POLISH_MIN_SHARE or ok.sum() < 12:
        return None
    return fit_points(g[ok], p[ok], model.width, model.height, model.k,
                      max(1.0, 0.5 * half * model.cell_size_px()))


def score_model(grey: np.ndarray, model: GridModel) -> tuple[float, tuple[float, ...]]:
    """Line contrast of ``model`` as it stands (no fitting), overall and per quarter,
    measured like a fit's (``contrasts``)."""
    small, on_small = _on_search_image(grey, model)
    return contrasts(_frame(small, on_small))


def score_corner_sets(grey: np.ndarray, corner_sets: np.ndarray
                      ) -> list[tuple[float, tuple[float, ...]]]:
    """``score_model`` of the plain homography of each of ``corner_sets`` (N x 4 x 2
    image px, TL, TR, BR, BL; no fitting), on one search image sized for the first."""
    h, w = grey.shape[:2]
    sets = np.asarray(corner_sets, np.float64).reshape(-1, 4, 2)
    if len(sets) == 0:
        return []
    small, _ = _on_search_image(grey, plain_model(sets[0], w, h))
    sh, sw = small.shape
    return [contrasts(_frame(small, _rescaled(plain_model(c, w, h), sw, sh))) for c in sets]


def fit_from_corners(grey: np.ndarray, corners: np.ndarray, full_polish: bool = True
                     ) -> FitResult | None:
    """Fit the grid near ``corners`` (4 x 2 image px of the outer grid corners TL, TR,
    BR, BL, within about a cell); None when no consistent grid is found there."""
    grey = grey if grey.ndim == 2 else cv2.cvtColor(grey, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape
    corners = np.asarray(corners, np.float64).reshape(4, 2)
    if not np.isfinite(corners).all():
        return None
    small, start = _on_search_image(grey, plain_model(corners, w, h))
    sh, sw = small.shape
    model: GridModel | None = start
    for shift, scales, fit_k in PROFILE_PASSES:
        if model is None:
            return None
        model = _profile_fit(_frame(small, model), shift, scales, fit_k)
    for half in ROUNDS:
        if model is None:
            return None
        model = _line_search(_frame(small, model), half)
    if model is None:
        return None
    frame = _frame(small, model)
    shift = (0, 0)
    last = None
    for _ in range(PHASE_ROUNDS):
        step = _phase(frame, PHASE_MARGIN if last is None else PHASE_CONTINUE_MARGIN)
        if step == (0, 0) or (last is not None and step != last):
            break
        last = step
        shift = (shift[0] + step[0], shift[1] + step[1])
        model = _line_search(_frame(small, shifted(model, *step)), ROUNDS[-1])
        if model is None:
            return None
        frame = _frame(small, model)
    score, quarters = contrasts(frame)
    model = _rescaled(model, w, h)
    if full_polish and (sw, sh) != (w, h):
        model = polish(grey, model) or model
    return FitResult(upright(model), score, quarters, shift)
