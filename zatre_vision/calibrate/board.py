"""Automatic board registration: find the grid in one frame of the fixed camera and
make the calibration, with a preview of the corners for the operator to confirm."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..vision.geometry import GridModel
from ..vision.location import Calibration, line_contrast, line_score
from ..vision.reader import BoardReader, work_image


class RegistrationError(ValueError):
    """No board found (one-line reason)."""


@dataclass
class Registration:
    calibration: Calibration
    corners: list[list[float]]  # in the input image's pixels, TL TR BR BL
    score: float
    method: str  # locate | markers
    preview: np.ndarray  # the frame with grid and corners drawn (BGR)

    def to_json(self) -> dict:
        return {"board_found": True, "corners": self.corners, "score": round(self.score, 3),
                "method": self.method, "line_score": round(self.calibration.line_score, 3),
                "image_size": [self.calibration.model.width, self.calibration.model.height],
                "lens": self.calibration.camera_matrix is not None}


def register_board(image: np.ndarray, lens: tuple[np.ndarray, np.ndarray] | None = None,
                   markers: bool = False) -> Registration:
    """Calibration from one frame (the size the reader works at, as ``zatre read
    --save-calibration`` saves it). ``lens``: (K, dist) for the input image's size."""
    work, f = work_image(image)
    k_mat = dist = None
    if lens is not None:
        k_mat = lens[0].copy()
        k_mat[:2] *= f
        dist = lens[1]
        work = cv2.undistort(work, k_mat, dist)
    # the reader's own location: every proposer, one refine, and the print proof, so
    # that a calibration is only ever made from a grid that proved itself
    board = BoardReader(markers=markers).locate(work).board
    if not board.found:
        raise RegistrationError("no board found: is the whole board in view, evenly lit and "
                                "free of tiles near its edge?")
    if not board.orientation_known:
        raise RegistrationError("which way round the board lies cannot be told: turn it "
                                "so that its edges run along the picture's")
    model: GridModel = board.model
    method = "markers" if board.source == "markers" else "locate"
    cal = Calibration(model, line_score(work, model), k_mat, dist,
                      line_contrast(work, model))
    corners = [[round(float(x) / f, 2), round(float(y) / f, 2)] for x, y in model.corners()]
    return Registration(cal, corners, board.score, method, draw_preview(work, model))


def draw_preview(image: np.ndarray, model: GridModel) -> np.ndarray:
    """The frame with the fitted grid lines (green) and the four corners (numbered)."""
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    t = np.linspace(0, 15, 61)
    for i in range(16):
        for pts in (np.stack([np.full_like(t, i), t], 1), np.stack([t, np.full_like(t, i)], 1)):
            p = model.to_image(pts).astype(np.int32)
            cv2.polylines(out, [p], False, (60, 200, 60), 1, cv2.LINE_AA)
    for n, (x, y) in enumerate(model.corners()):
        c = (int(round(x)), int(round(y)))
        cv2.circle(out, c, 9, (0, 0, 255), 2, cv2.LINE_AA)
        cv2.putText(out, ["TL", "TR", "BR", "BL"][n], (c[0] + 10, c[1] - 10),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 255), 2, cv2.LINE_AA)
    return out


def preview_jpeg(image: np.ndarray, side: int = 960) -> bytes:
    h, w = image.shape[:2]
    f = min(1.0, side / max(h, w))
    small = image if f == 1.0 else cv2.resize(image, (int(w * f), int(h * f)),
                                              interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise RegistrationError("cannot encode the preview")
    return buf.tobytes()
