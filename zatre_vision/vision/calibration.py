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
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .geometry import GridModel
from .grid_fit import polish
from .locate import ridge_search, to_grey

VERSION = 1


class CalibrationError(Exception):
    """A calibration file that cannot be used (one-line reason)."""


@dataclass(frozen=True)
class Calibration:
    model: GridModel
    line_score: float
    camera_matrix: np.ndarray | None = None
    dist_coeffs: np.ndarray | None = None

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
        return cls(model, score, k_mat, dist)


def line_score(image: np.ndarray, model: GridModel) -> float:
    """Fraction of grid-line samples with a bright ridge within 0.06 cell of the model."""
    g = cv2.GaussianBlur(to_grey(image), (0, 0), 0.7).astype(np.float32)
    _, _, s = ridge_search(g, model, 0.06)
    noise = max(4.0, float(np.std(g)) * 0.08)
    return float(np.mean(s > noise))


def make_calibration(image: np.ndarray, model: GridModel) -> Calibration:
    """The calibration of a fixed camera from a fit ``model`` of ``image``: the fit
    polished at full resolution (``grid_fit.polish``; the reader skips that for frames
    it searches, and a saved fit serves every later frame) where the polish finds the
    lines, and its line score."""
    grey = to_grey(image)
    model = polish(grey, model) or model
    return Calibration(model, line_score(grey, model))


def board_moved(frame: np.ndarray, calibration: Calibration, ratio: float = 0.5) -> bool:
    """Cheap check: are the grid lines still where the calibration says? ``frame`` is
    already undistorted with the calibration's lens, if it has one (the reader does it
    once per frame).

    Hands and tiles hide some lines, so the board counts as moved only when fewer than
    ``ratio`` of the calibration's line samples are still found (a shift of a fifth of
    a cell already loses nearly all of them).
    """
    h, w = frame.shape[:2]
    model = calibration.model_for(w, h)
    return line_score(frame, model) < ratio * calibration.line_score
