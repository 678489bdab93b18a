"""Printable lens-calibration targets: a ChArUco board or a chessboard on A4 at 300 dpi,
with the square size printed on the sheet (print at 100 %, then measure it)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

DPI = 300
A4_MM = (210.0, 297.0)
ARUCO_DICT = cv2.aruco.DICT_5X5_100


def mm_to_px(mm: float, dpi: int = DPI) -> int:
    return int(round(mm / 25.4 * dpi))


@dataclass(frozen=True)
class TargetSpec:
    kind: str = "charuco"  # charuco | chessboard
    cols: int = 5  # squares across
    rows: int = 7  # squares down
    square_mm: float = 35.0
    marker_ratio: float = 0.75  # ChArUco marker side / square side

    @property
    def inner_corners(self) -> tuple[int, int]:
        return self.cols - 1, self.rows - 1

    def charuco_board(self) -> cv2.aruco.CharucoBoard:
        d = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
        return cv2.aruco.CharucoBoard((self.cols, self.rows), self.square_mm,
                                      self.square_mm * self.marker_ratio, d)


def render_target(spec: TargetSpec, dpi: int = DPI) -> np.ndarray:
    """The sheet as a grey image of A4 at ``dpi`` (portrait)."""
    page_w, page_h = mm_to_px(A4_MM[0], dpi), mm_to_px(A4_MM[1], dpi)
    sq = mm_to_px(spec.square_mm, dpi)
    bw, bh = spec.cols * sq, spec.rows * sq
    if bw > page_w - mm_to_px(20, dpi) or bh > page_h - mm_to_px(30, dpi):
        raise ValueError(f"{spec.cols} x {spec.rows} squares of {spec.square_mm:g} mm do not "
                         "fit on A4 with margins")
    page = np.full((page_h, page_w), 255, np.uint8)
    if spec.kind == "charuco":
        board = spec.charuco_board().generateImage((bw, bh), marginSize=0, borderBits=1)
    else:
        yy, xx = np.mgrid[0:bh, 0:bw]
        board = np.where(((yy // sq) + (xx // sq)) % 2 == 0, 0, 255).astype(np.uint8)
    x0, y0 = (page_w - bw) // 2, mm_to_px(15, dpi)
    page[y0:y0 + bh, x0:x0 + bw] = board
    real_mm = sq / dpi * 25.4
    lines = [f"Zatre Vision lens target: {spec.kind} {spec.cols} x {spec.rows} squares",
             f"square side {real_mm:.2f} mm"
             + (f", marker {real_mm * spec.marker_ratio:.2f} mm, DICT_5X5_100"
                if spec.kind == "charuco" else
                f", {spec.inner_corners[0]} x {spec.inner_corners[1]} inner corners"),
             "Print at 100 % (no 'fit to page'); measure a square and pass --square-mm if "
             "it differs."]
    y = y0 + bh + mm_to_px(12, dpi)
    for text in lines:
        cv2.putText(page, text, (x0, y), cv2.FONT_HERSHEY_SIMPLEX, dpi / 300 * 1.1, 0,
                    max(1, dpi // 150), cv2.LINE_AA)
        y += mm_to_px(8, dpi)
    return page
