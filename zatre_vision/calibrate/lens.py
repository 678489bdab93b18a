"""Lens intrinsics from photos of the printed target (OpenCV's calibrateCamera)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from .target import TargetSpec

MIN_VIEWS = 5
MIN_CHARUCO_CORNERS = 8


class LensError(ValueError):
    """Too few usable views, or a lens file that cannot be read (one line)."""


def _grey(img: np.ndarray) -> np.ndarray:
    return img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)


def find_points(img: np.ndarray, spec: TargetSpec) -> tuple[np.ndarray, np.ndarray] | None:
    """(object points in mm, image points) of the target in one photo, or None."""
    grey = _grey(img)
    if spec.kind == "charuco":
        board = spec.charuco_board()
        det = cv2.aruco.CharucoDetector(board)
        ch_corners, ch_ids, _, _ = det.detectBoard(grey)
        if ch_ids is None or len(ch_ids) < MIN_CHARUCO_CORNERS:
            return None
        obj, imgp = board.matchImagePoints(ch_corners, ch_ids)
        return obj.reshape(-1, 3).astype(np.float32), imgp.reshape(-1, 2).astype(np.float32)
    pattern = spec.inner_corners
    ok, corners = cv2.findChessboardCorners(grey, pattern, cv2.CALIB_CB_ADAPTIVE_THRESH
                                            | cv2.CALIB_CB_NORMALIZE_IMAGE)
    if not ok:
        return None
    corners = cv2.cornerSubPix(grey, corners, (5, 5), (-1, -1),
                               (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01))
    obj = np.zeros((pattern[0] * pattern[1], 3), np.float32)
    obj[:, :2] = np.mgrid[0:pattern[0], 0:pattern[1]].T.reshape(-1, 2) * spec.square_mm
    return obj, corners.reshape(-1, 2).astype(np.float32)


def calibrate_lens(images: list[tuple[str, np.ndarray]], spec: TargetSpec) -> dict:
    """Lens file contents from named photos; LensError when too few views are usable."""
    objs, imgs, used, size = [], [], [], None
    for name, img in images:
        h, w = img.shape[:2]
        if size is None:
            size = (w, h)
        elif (w, h) != size:
            raise LensError(f"{name}: size {w}x{h} differs from the first photo's "
                            f"{size[0]}x{size[1]}; take all photos with the same camera mode")
        pts = find_points(img, spec)
        if pts is not None:
            objs.append(pts[0])
            imgs.append(pts[1])
            used.append(name)
    if len(used) < MIN_VIEWS:
        raise LensError(f"the {spec.kind} target was found in {len(used)} of {len(images)} "
                        f"photos; at least {MIN_VIEWS} are needed (fill the view, tilt the "
                        "sheet, vary the position)")
    rms, k_mat, dist, _, _ = cv2.calibrateCamera(objs, imgs, size, None, None)
    return {"kind": "zatre-lens", "version": 1, "image_size": list(size),
            "K": np.asarray(k_mat).tolist(), "dist": np.asarray(dist).ravel().tolist(),
            "rms_px": round(float(rms), 4), "views": used, "target": spec.__dict__}


def load_lens(path: Path | str) -> dict:
    try:
        d = json.loads(Path(path).read_text(encoding="utf-8"))
        np.asarray(d["K"], np.float64).reshape(3, 3)
        np.asarray(d["dist"], np.float64).ravel()
        w, h = (int(v) for v in d["image_size"])
    except FileNotFoundError:
        raise LensError(f"{path}: no such lens file") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise LensError(f"{path}: not a lens file ({exc.__class__.__name__})") from None
    return d


def lens_for_size(lens: dict, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """K and distortion for a frame of this size (same aspect ratio, any scale)."""
    w0, h0 = lens["image_size"]
    f = width / w0
    if abs(height / h0 - f) > 0.01:
        raise LensError(f"the lens was calibrated at {w0}x{h0}, not the aspect ratio of "
                        f"{width}x{height}")
    k_mat = np.asarray(lens["K"], np.float64).reshape(3, 3).copy()
    k_mat[:2] *= f
    return k_mat, np.asarray(lens["dist"], np.float64).ravel()
