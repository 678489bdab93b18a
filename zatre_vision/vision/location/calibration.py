"""A saved calibration for a fixed camera: the grid model (homography + radial lens
term), optional lens intrinsics, the image size, and a reference line score for the
cheap "has the board moved?" check.

File format (JSON)::

    {"version": 1, "image_size": [w, h], "homography": [[...], [...], [...]], "k": 0.05,
     "lens": {"K": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]], "dist": [k1, k2, p1, p2, k3]},
     "line_score": 0.93}

``lens`` is optional; when given, frames are undistorted with it before the
homography is applied (and ``k`` should then be 0).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from ..geometry import GridModel, blur_reach, covering_window
from .grid_fit import polish
from .locate import ridge_pixels, ridge_response, to_grey

VERSION = 1


class CalibrationError(Exception):
    """A calibration file that cannot be used (one-line reason)."""


@dataclass(frozen=True)
class Calibration:
    model: GridModel
    line_score: float
    camera_matrix: np.ndarray | None = None
    dist_coeffs: np.ndarray | None = None
    #: how much more the lines scored than lines half a cell off them when the board
    #: was fitted (``line_contrast``); None in files saved before it was kept
    line_contrast: float | None = None
    #: ``line_pixels``' points, by frame size and shift: a fixed camera's line samples
    #: fall on the same pixels every frame (computing them was a third of the check)
    _pixels: dict = field(default_factory=dict, compare=False, repr=False)

    def line_pixels(self, width: int, height: int, du: float = 0.0, dv: float = 0.0
                    ) -> LinePixels:
        """The line score's sample points on a frame of this size (``line_pixels`` of
        the grid moved by ``du``, ``dv`` cells), kept for the next frame."""
        key = (width, height, du, dv)
        if key not in self._pixels:
            model = self.model_for(width, height)
            if du or dv:
                model = shifted(model, du, dv)
            if len(self._pixels) >= 12:   # frames of another size came and went
                self._pixels.clear()
            self._pixels[key] = line_pixels(model)
        return self._pixels[key]

    def model_for(self, width: int, height: int) -> GridModel:
        """The grid model for a frame of this size (same aspect ratio, any scale)."""
        m = self.model
        if (width, height) == (m.width, m.height):
            return m
        f = width / m.width
        if abs(height / m.height - f) > 0.01:
            raise CalibrationError(
                f"frame size {width}x{height} does not match the calibration's "
                f"{m.width}x{m.height}")
        return m.scaled(f)

    def undistort(self, image: np.ndarray) -> np.ndarray:
        if self.camera_matrix is None:
            return image
        return cv2.undistort(image, self.camera_matrix, self.dist_coeffs)

    def to_dict(self) -> dict:
        d = {"version": VERSION, **self.model.to_dict(), "line_score": round(self.line_score, 4)}
        if self.line_contrast is not None:
            d["line_contrast"] = round(self.line_contrast, 4)
        if self.camera_matrix is not None:
            d["lens"] = {"K": self.camera_matrix.tolist(),
                         "dist": np.asarray(self.dist_coeffs).ravel().tolist()}
        return d

    def save(self, path: Path | str) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path | str) -> Calibration:
        try:
            d = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CalibrationError(f"{path}: no such calibration file") from None
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise CalibrationError(f"{path}: not a calibration file ({exc.__class__.__name__})"
                                   ) from None
        if not isinstance(d, dict) or "homography" not in d:
            raise CalibrationError(f"{path}: not a calibration file (no board part: "
                                   "register the board first)")
        try:
            return cls.from_dict(d)
        except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError,
                OverflowError, FloatingPointError, np.linalg.LinAlgError) as exc:
            raise CalibrationError(f"{path}: bad calibration ({exc})") from None

    @classmethod
    def from_dict(cls, d: dict) -> Calibration:
        """The calibration in ``d``; ValueError (or TypeError, KeyError) when a value is
        unusable: a grid that maps nowhere, a lens term out of range, a frame size of
        nothing."""
        if int(d.get("version", 0)) != VERSION:
            raise ValueError(f"version {d.get('version')} is not {VERSION}")
        model = GridModel.from_dict(d)
        if not (16 <= model.width <= 20000 and 16 <= model.height <= 20000):
            raise ValueError(f"image size {model.width}x{model.height} is not a camera's")
        if not abs(model.k) <= 1.0:
            raise ValueError(f"lens term k {model.k} is out of range")
        with np.errstate(all="raise"):
            corners = model.corners()
            if not np.isfinite(corners).all() or abs(np.linalg.det(model.homography)) < 1e-12:
                raise ValueError("the homography does not map the grid into the image")
            k_mat = dist = None
            if d.get("lens"):
                k_mat = np.asarray(d["lens"]["K"], np.float64).reshape(3, 3)
                dist = np.asarray(d["lens"]["dist"], np.float64).ravel()
                if not (np.isfinite(k_mat).all() and np.isfinite(dist).all()):
                    raise ValueError("the lens must be finite numbers")
            score = float(d.get("line_score", 0.0))
            contrast = d.get("line_contrast")
            contrast = None if contrast is None else float(contrast)
        return cls(model, score, k_mat, dist, contrast)


#: how far (cells) each line sample looks for its ridge
LINE_HALF = 0.06
#: the grey frame is blurred this much (px) before the lines are sampled
LINE_BLUR = 0.7


@dataclass(frozen=True)
class LineView:
    """The blurred grey part of a frame the line samples read (float32), its top-left
    pixel, and the ridge strength a sample must pass (``noise``: a share of the whole
    frame's spread)."""

    grey: np.ndarray
    origin: tuple[int, int]
    noise: float

    def hits(self, pixels: LinePixels) -> float:
        """The share of line samples (``line_pixels``) with a ridge."""
        _, _, strength = ridge_response(self.grey, pixels.px, pixels.n, self.origin)
        return float(np.mean(strength > self.noise))

    def contrast(self, score: float, off: list[LinePixels]) -> float:
        """``score`` (the ``hits`` of a grid's own lines) over the best ``hits`` of the
        lines ``off`` it (half a cell away): well above 1 where the grid's lines show."""
        return score / max(max(self.hits(o) for o in off), 1e-3)


def line_view(image: np.ndarray, pixels: list[LinePixels]) -> LineView:
    """The view of ``image`` that the line samples ``pixels`` need: only the window
    around them is blurred (``geometry.covering_window``: the samples get the values a
    blur of the whole frame would give); the noise bar comes from the whole grey
    frame's spread (one cheap pass)."""
    grey = to_grey(image)
    h, w = grey.shape[:2]
    noise = max(4.0, float(cv2.meanStdDev(grey)[1][0, 0]) * 0.08)
    seen = [p for p in pixels if p.lo is not None]
    box = (None if not seen else
           covering_window(np.min([p.lo for p in seen], axis=0),
                           np.max([p.hi for p in seen], axis=0), w, h, blur_reach(LINE_BLUR)))
    if box is None:  # every sample off the frame: an empty view (no ridge anywhere)
        return LineView(np.zeros((1, 1), np.float32), (-10**6, -10**6), noise)
    x0, y0, x1, y1 = box
    g = cv2.GaussianBlur(grey[y0:y1, x0:x1], (0, 0), LINE_BLUR).astype(np.float32)
    return LineView(g, (x0, y0), noise)


@dataclass(frozen=True)
class LinePixels:
    """``ridge_pixels`` of a grid: the offsets searched, the points (N, 3n, 2), and
    their least and greatest finite x, y (None: none finite)."""

    n: int
    px: np.ndarray
    lo: np.ndarray | None
    hi: np.ndarray | None


def line_pixels(model: GridModel) -> LinePixels:
    """The line score's sample points of ``model`` (``ridge_pixels``) and their bounds."""
    ts, px = ridge_pixels(model, LINE_HALF)
    flat = px.reshape(-1, 2)
    flat = flat[np.isfinite(flat).all(axis=1)]
    if not len(flat):
        return LinePixels(len(ts), px, None, None)
    return LinePixels(len(ts), px, flat.min(axis=0), flat.max(axis=0))


def line_score(image: np.ndarray, model: GridModel) -> float:
    """Fraction of grid-line samples with a bright ridge within 0.06 cell of the model."""
    return line_scores(image, [model])[0]


def line_scores(image: np.ndarray, models: list[GridModel]) -> list[float]:
    """``line_score`` of each of ``models`` in one frame, from one view of it (the frame
    converted to grey, measured and blurred once)."""
    pixels = [line_pixels(m) for m in models]
    view = line_view(image, pixels)
    return [view.hits(p) for p in pixels]


def shifted(model: GridModel, du: float, dv: float) -> GridModel:
    """``model`` moved by (du, dv) cells along the grid."""
    move = np.array([[1.0, 0.0, du], [0.0, 1.0, dv], [0.0, 0.0, 1.0]])
    return GridModel(model.homography @ move, model.k, model.width, model.height)


def _score_and_contrast(image: np.ndarray, model: GridModel) -> tuple[float, float]:
    on = line_pixels(model)
    off = [line_pixels(shifted(model, 0.5, 0.0)), line_pixels(shifted(model, 0.0, 0.5))]
    view = line_view(image, [on, *off])
    score = view.hits(on)
    return score, view.contrast(score, off)


def line_contrast(image: np.ndarray, model: GridModel) -> float:
    """The line score over the score of lines half a cell off the model's: well above 1
    where the grid lines show; about 1 where the model's lines fall anywhere; below 1
    on a board so full of tiles that their faces and gaps outscore the lines."""
    return _score_and_contrast(image, model)[1]


#: The second test of ``board_moved``, used where the calibration's own lines stood out
#: (``LINES_SHOWED`` or more): on a board still in place the lines score clearly more
#: than the lines half a cell off them (1.17 times at the least, over 99 frames of three
#: recorded games with hands and arms over the board); where the board has moved, the
#: calibration's lines fall on tiles and other lines at random and score about the same
#: (1.04 times at the most, over 200 pairs of photos of different scenes, 13 of which
#: the line score alone took for the same board)
LINE_CONTRAST = 1.1
#: a calibration whose lines scored this many times the lines half a cell off (above the
#: 1.04 of a moved board; empty and half-full boards: 1.2-1.75; a board full of tiles:
#: 0.3, where the test says nothing)
LINES_SHOWED = 1.15


def make_calibration(image: np.ndarray, model: GridModel) -> Calibration:
    """The calibration of a fixed camera from a fit ``model`` of ``image``: the fit
    polished at full resolution (``grid_fit.polish``; the reader skips that for frames
    it searches, and a saved fit serves every later frame) where the polish finds the
    lines, and its line score."""
    grey = to_grey(image)
    model = polish(grey, model) or model
    score, contrast = _score_and_contrast(grey, model)
    return Calibration(model, score, line_contrast=contrast)


def board_moved(frame: np.ndarray, calibration: Calibration, ratio: float = 0.5,
                contrast: bool = True) -> bool:
    """Cheap check: are the grid lines still where the calibration says? ``frame`` is
    already undistorted with the calibration's lens, if it has one (the reader does it
    once per frame).

    Hands and tiles hide some lines, so the board counts as moved when fewer than
    ``ratio`` of the calibration's line samples are still found (a shift of a fifth of
    a cell already loses nearly all of them), or, where the calibration's lines stood
    out (``LINES_SHOWED``), when they score no better than lines half a cell off them
    (``LINE_CONTRAST``): a board moved elsewhere can leave enough bright edges under the
    old lines to pass the first test. ``contrast=False`` leaves the second test out
    (the live pipeline: its frames all come from the one camera over the one board,
    where a bump loses the lines anyway, and an arm over the board can bring the
    contrast of a board in place under the bar: ~4 ms a frame at 1280 x 960 saved).
    """
    h, w = frame.shape[:2]
    on = calibration.line_pixels(w, h)
    off = ([calibration.line_pixels(w, h, 0.5, 0.0), calibration.line_pixels(w, h, 0.0, 0.5)]
           if contrast and calibration.line_contrast is not None
           and calibration.line_contrast >= LINES_SHOWED else [])
    view = line_view(frame, [on, *off])
    score = view.hits(on)
    if score < ratio * calibration.line_score:
        return True
    if not off:
        return False
    return view.contrast(score, off) < LINE_CONTRAST
