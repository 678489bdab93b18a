"""The learned board finder (``models/board.onnx``): where is the grid in a small copy
of the frame?

The frame is reduced to fit ``INPUT_W`` x ``INPUT_H`` (aspect kept, the rest padded
black). A small fully convolutional network returns two maps at half that resolution:
the probability that a pixel lies inside the outer outline of the 15 x 15 grid (hands
and tiles included) and a heat map of the four outer grid corners. The largest region
of the mask gives the outline; one straight line is fitted to each of its sides, and
each corner moves to the heat map's peak nearby when the network is sure of it.
The result is four grid corners in frame pixels, about a third of a cell off at
worst, which the grid fit then takes to a fraction of a line width.

Only onnxruntime is needed at run time; ``training/board_train.py`` makes the model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..onnx_session import open_session
from .quads import order_corners, quad_from_lines

DEFAULT_BOARD_MODEL = Path(__file__).resolve().parents[3] / "models" / "board.onnx"
INPUT_W, INPUT_H = 224, 168
OUT_STRIDE = 2
#: mask probability that counts as board
MASK_LEVEL = 0.5
#: smallest board region, in output pixels (a board filling 20 % of the frame height
#: covers ~280)
MIN_AREA = 120
#: a heat-map peak at least this high moves its corner
CORNER_LEVEL = 0.35
#: and only when it is at most this far from the outline's corner: output pixels, or
#: this fraction of the outline's mean side when that is more (about two cells)
CORNER_REACH = 4.0
CORNER_REACH_SIDE = 0.13
#: the outline is traced on the mask enlarged this many times (smoother sides)
TRACE_UP = 4


class BoardModelError(Exception):
    """The board model file or its card is missing or unusable."""


@dataclass(frozen=True)
class BoardOutline:
    corners: np.ndarray       # (4, 2) frame pixels, outer grid corners TL TR BR BL
    confidence: float         # mean mask probability inside the region (0..1)
    #: the corners of the mask's outline alone (before the heat map moved them)
    outline_corners: np.ndarray | None = None

    def starts(self) -> list[np.ndarray]:
        """Start corners for the grid fit, best guess first: the heat-map corners, then
        the outline's own corners when they differ."""
        out = [self.corners]
        if self.outline_corners is not None and \
                np.abs(self.outline_corners - self.corners).max() > 1.0:
            out.append(self.outline_corners)
        return out


def net_input(image: np.ndarray) -> tuple[np.ndarray, float, tuple[float, float]]:
    """(3, INPUT_H, INPUT_W) uint8 network input of a BGR (or grey) frame, the scale
    applied, and the padding (x, y) in input pixels."""
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    h, w = image.shape[:2]
    s = min(INPUT_W / w, INPUT_H / h)
    nw, nh = max(1, int(round(w * s))), max(1, int(round(h * s)))
    small = image
    k = int(1.0 / s)
    if k >= 2:  # by a whole factor first: OpenCV's fast path, ~5x quicker than one step
        small = cv2.resize(image, (w // k, h // k), interpolation=cv2.INTER_AREA)
    small = cv2.resize(small, (nw, nh), interpolation=cv2.INTER_AREA)
    px, py = (INPUT_W - nw) // 2, (INPUT_H - nh) // 2
    canvas = np.zeros((INPUT_H, INPUT_W, 3), np.uint8)
    canvas[py:py + nh, px:px + nw] = small
    # the scale actually applied on each axis differs from s by rounding; use x's
    return np.ascontiguousarray(canvas.transpose(2, 0, 1)), nw / w, (float(px), float(py))


def _to_frame(pts_out: np.ndarray, scale: float, pad: tuple[float, float]) -> np.ndarray:
    """Output-map pixel centres -> frame pixel centres."""
    edge = (pts_out + 0.5) * OUT_STRIDE - np.array(pad)
    return edge / scale - 0.5


def _peak(heat: np.ndarray, near: np.ndarray, reach: float = CORNER_REACH
          ) -> tuple[np.ndarray, float] | None:
    """Sub-pixel heat-map peak within ``reach`` of ``near`` (output pixels)."""
    h, w = heat.shape
    r = int(np.ceil(reach))
    x0, y0 = int(round(near[0])), int(round(near[1]))
    xa, xb, ya, yb = max(0, x0 - r), min(w, x0 + r + 1), max(0, y0 - r), min(h, y0 + r + 1)
    if xa >= xb or ya >= yb:
        return None
    win = heat[ya:yb, xa:xb]
    iy, ix = np.unravel_index(int(np.argmax(win)), win.shape)
    level = float(win[iy, ix])
    cy, cx = ya + iy, xa + ix
    # sub-pixel: a parabola through the log of the peak and its neighbours on each axis
    # (exact for a Gaussian bump)
    p = np.array([float(cx), float(cy)])
    for axis, (c, n) in enumerate(((cx, w), (cy, h))):
        if 0 < c < n - 1:
            trio = [heat[cy, cx - 1], heat[cy, cx], heat[cy, cx + 1]] if axis == 0 else \
                [heat[cy - 1, cx], heat[cy, cx], heat[cy + 1, cx]]
            a, b, d = np.log(np.maximum(trio, 1e-6))
            den = a - 2 * b + d
            if den < -1e-9:
                p[axis] += float(np.clip(0.5 * (a - d) / den, -0.5, 0.5))
    if np.linalg.norm(p - near) > reach:
        return None
    return p, level


def decode(maps: np.ndarray, scale: float, pad: tuple[float, float]) -> BoardOutline | None:
    """Board outline from the network's probability maps (2, h, w), or None."""
    mask_p, heat = maps[0], maps[1]
    mask = (mask_p > MASK_LEVEL).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return None
    lab = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[lab, cv2.CC_STAT_AREA] < MIN_AREA:
        return None
    region = labels == lab
    confidence = float(mask_p[region].mean())
    # trace the outline on an enlarged copy of the probabilities around the region
    up = cv2.resize(np.where(cv2.dilate(region.astype(np.uint8), np.ones((3, 3))) > 0,
                             mask_p, 0).astype(np.float32),
                    None, fx=TRACE_UP, fy=TRACE_UP, interpolation=cv2.INTER_LINEAR)
    big = (up > MASK_LEVEL).astype(np.uint8)
    contours, _ = cv2.findContours(big, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    contour = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)
    contour = (contour + 0.5) / TRACE_UP - 0.5          # output-map pixel centres
    hull = cv2.convexHull(contour.astype(np.float32))
    box = order_corners(cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64))
    quad = quad_from_lines(contour, box)
    if quad is None:
        quad = box
    quad = order_corners(quad)
    corners = quad.copy()
    side = float(np.mean(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)))
    reach = max(CORNER_REACH, CORNER_REACH_SIDE * side)
    for i in range(4):
        pk = _peak(heat, quad[i], reach)
        if pk is not None and pk[1] >= CORNER_LEVEL:
            corners[i] = pk[0]
    return BoardOutline(_to_frame(corners, scale, pad), confidence,
                        _to_frame(quad, scale, pad))


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


class BoardFinder:
    """onnxruntime session of the board model, single-threaded by default."""

    def __init__(self, model_path: Path | str = DEFAULT_BOARD_MODEL, threads: int = 1):
        self.path = Path(model_path)
        if not self.path.is_file():
            raise BoardModelError(f"{self.path}: board model file not found")
        card_path = self.path.with_suffix(self.path.suffix + ".json")
        try:
            card = json.loads(card_path.read_text(encoding="utf-8"))
            size = tuple(card["input_size"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise BoardModelError(f"{card_path}: unusable model card ({exc})") from None
        #: the model card (``find_board`` reads its ``locate_fallbacks``)
        self.card: dict = card
        if size != (INPUT_W, INPUT_H):
            raise BoardModelError(f"{self.path}: input size {size} is not "
                                  f"{(INPUT_W, INPUT_H)}")
        self.session = open_session(self.path, threads, BoardModelError)
        self.input_name = self.session.get_inputs()[0].name
        self.maps(np.zeros((INPUT_H, INPUT_W, 3), np.uint8))  # warm-up

    def maps(self, image: np.ndarray) -> tuple[np.ndarray, float, tuple[float, float]]:
        """Probability maps (2, h, w) of a frame, with the scale and padding used."""
        x, scale, pad = net_input(image)
        logits = self.session.run(None, {self.input_name: x[None].astype(np.float32)})[0]
        return _sigmoid(logits[0].astype(np.float64)), scale, pad

    def find(self, image: np.ndarray) -> BoardOutline | None:
        maps, scale, pad = self.maps(image)
        return decode(maps, scale, pad)


__all__ = ["BoardFinder", "BoardModelError", "BoardOutline", "DEFAULT_BOARD_MODEL",
           "decode", "net_input"]
