"""Optional ArUco markers for hard set-ups (dark tables, strong glare, heavy occlusion).

Print four markers of ``cv2.aruco.DICT_4X4_50`` and lay them beside the board's outer
corners: id 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left (board upright,
logo top-left). Each marker's centre goes at ``MARKER_CENTRES`` in grid units: one
cell outside the grid's outer corner along both axes (on the cardboard's corner area
or just beyond it). Three or four found markers give the homography; the grid-line
fit then takes it to the lines as the classical search does (``locate.line_search_fit``).
"""

from __future__ import annotations

import cv2
import numpy as np

from ..geometry import GridModel
from .locate import LocateResult, line_search_fit, to_grey

MARKER_IDS = (0, 1, 2, 3)
MARKER_CENTRES = np.array([[-1.0, -1.0], [16.0, -1.0], [16.0, 16.0], [-1.0, 16.0]], np.float64)
DICTIONARY = cv2.aruco.DICT_4X4_50


def marker_image(marker_id: int, side_px: int = 200) -> np.ndarray:
    d = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    return cv2.aruco.generateImageMarker(d, marker_id, side_px)


def detect_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """Centres (pixels) of the board's corner markers found in ``image``."""
    d = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    det = cv2.aruco.ArucoDetector(d, cv2.aruco.DetectorParameters())
    corners, ids, _ = det.detectMarkers(to_grey(image))
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel(), strict=True):
        if int(i) in MARKER_IDS:
            found[int(i)] = c.reshape(4, 2).mean(axis=0).astype(np.float64)
    return found


def locate_with_markers(image: np.ndarray, min_score: float = 0.3) -> LocateResult:
    found = detect_markers(image)
    if len(found) < 3:
        return LocateResult(None, 0.0, 0)
    ids = sorted(found)
    src = MARKER_CENTRES[ids]
    dst = np.array([found[i] for i in ids])
    if len(ids) == 4:
        h, _ = cv2.findHomography(src, dst, 0)
    else:  # three markers: an affine map is the best they can give
        a = cv2.getAffineTransform(src.astype(np.float32), dst.astype(np.float32))
        h = np.vstack([a, [0, 0, 1]])
    grey = to_grey(image)
    model = GridModel(np.asarray(h, np.float64), 0.0, grey.shape[1], grey.shape[0])
    img = cv2.GaussianBlur(grey, (0, 0), 0.7).astype(np.float32)
    r = line_search_fit(img, model)
    if r is None or r[1] < min_score:
        return LocateResult(model, 0.0 if r is None else r[1], 0)
    return LocateResult(r[0], r[1], r[2])
