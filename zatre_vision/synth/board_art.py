"""The flat printed board, drawn procedurally in board-plane pixels.

The texture covers the whole cardboard (grid plus printed margin) in grid units:
``u`` from ``BOARD_U[0]`` to ``BOARD_U[1]`` and ``v`` likewise, where (0, 0) is the
top-left outer corner of the 15 x 15 grid and one cell is 1.0. It shows black marble
with white veins, white grid lines, light grey x2 cells, the red centre, the logo and
edge text, and the folds of a folding board. No photo or scan is read.

Other editions' prints of the same grid, each a profile in ``calibration/prints/``
(``board_prints``; ``BOARD_PRINTS``, drawn in training, and ``HELD_OUT_PRINTS``, never
drawn there): plain or marbled cells in other colours, white or grey x2 cells, other
lines, borders and logos.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import cv2
import numpy as np

from ..board_prints import PrintProfile, load_prints, training_print_names
from ..rules.board import CELLS, LIGHT, START, row_col
from .config import BoardConfig
from .noise import fbm, rotated_fbm

#: Extent of the cardboard in grid units (margins as on the printed board).
BOARD_U = (-0.92, 15.96)
BOARD_V = (-0.87, 16.10)


@dataclass(frozen=True)
class BoardTexture:
    """A board image (BGR uint8) and its mapping: pixel = (u - u0) * ppc."""

    image: np.ndarray
    ppc: float
    u0: float = BOARD_U[0]
    v0: float = BOARD_V[0]

    def to_px(self, u: float, v: float) -> tuple[float, float]:
        return (u - self.u0) * self.ppc, (v - self.v0) * self.ppc


def _marble(rng: np.random.Generator, shape: tuple[int, int], ppc: float,
            cfg: BoardConfig) -> np.ndarray:
    """Grey marble field, 0..255-ish (float32), veins white on black."""
    h, w = shape
    ncell = w / ppc
    angle = -float(rng.uniform(35, 60)) * (1 if rng.random() < 0.8 else -1)
    vein = np.zeros(shape, np.float32)
    for scale, weight, sharp in ((0.6, 1.0, 45.0), (1.0, 0.9, 55.0), (1.6, 0.7, 70.0),
                                 (2.6, 0.5, 90.0)):
        n = rotated_fbm(rng, shape, (ncell * scale * 0.9, ncell * scale * 0.12),
                        angle + float(rng.uniform(-15, 15)), 5)
        ridge = np.abs(n)
        fade = np.clip(fbm(rng, shape, (ncell * 0.3, ncell * 0.3), 2) * 2.5 + 0.55, 0, 1)
        vein = np.maximum(vein, weight * fade * np.exp(-ridge * sharp))
    cloud = np.clip(fbm(rng, shape, (ncell * 0.3, ncell * 0.3), 5) * 1.5 + 0.2, 0, 1)
    cloud = 0.6 * cloud + 1.6 * cv2.GaussianBlur(vein, (0, 0), 0.08 * ppc)
    vs = float(rng.uniform(*cfg.vein_strength))
    cs = float(rng.uniform(*cfg.cloud_strength))
    base = float(rng.uniform(*cfg.base_level))
    grain = rng.normal(0, 2.0, shape).astype(np.float32)
    return base + cs * 70 * cloud + vs * 200 * vein + grain


def _text_block(text: str, box_w: int, box_h: int, thickness_frac: float = 0.16,
                font: int = cv2.FONT_HERSHEY_DUPLEX) -> np.ndarray:
    """A float mask (0..1) of ``text`` stretched to box_w x box_h pixels."""
    scale = 4.0
    thick = max(1, int(round(30 * scale * thickness_frac)))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    pad = thick
    mask = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(mask, text, (pad, th + pad), font, scale, 255, thick, cv2.LINE_AA)
    ys, xs = np.nonzero(mask)
    mask = mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    return cv2.resize(mask, (max(1, box_w), max(1, box_h)),
                      interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def _paste(img: np.ndarray, mask: np.ndarray, x: int, y: int, colour: np.ndarray) -> None:
    """Blend ``colour`` (HxWx3 or 3) into img at (x, y) through ``mask``."""
    h, w = mask.shape
    y0, x0 = max(0, y), max(0, x)
    y1, x1 = min(img.shape[0], y + h), min(img.shape[1], x + w)
    if y1 <= y0 or x1 <= x0:
        return
    m = mask[y0 - y:y1 - y, x0 - x:x1 - x, None]
    col = colour if np.ndim(colour) == 1 else colour[y0 - y:y1 - y, x0 - x:x1 - x]
    img[y0:y1, x0:x1] = img[y0:y1, x0:x1] * (1 - m) + col * m


@dataclass(frozen=True)
class BoardPrint:
    """Another edition's print of the same grid (``BOARD_PRINTS``, or one of the print
    world's, ``print_world``): the cells' surface ("marble", "plain" or "wood") and
    colour, the x2 cells' grey level (a range) and tint, the red centre, the grid lines
    (grey level, width, tint), the border outside the cells and art on it, a logo and
    folds."""

    cells: str = "plain"
    cell_bgr: tuple[float, float, float] = (16.0, 16.0, 16.0)
    light_level: tuple[float, float] = (200.0, 225.0)
    light_tint: tuple[float, float, float] = (0.0, 0.0, 0.0)
    start_bgr: tuple[float, float, float] = (50.0, 60.0, 235.0)
    line_level: tuple[float, float] = (205.0, 240.0)
    line_width: float = 0.028
    #: colour of the cardboard outside the 193 cells; None: the cells' surface
    border_bgr: tuple[float, float, float] | None = None
    #: text, box (u0, v0, u1, v1 in grid units) and colour; None: no logo
    logo: tuple[str, tuple[float, float, float, float], tuple[float, float, float]] | None = None
    folds: bool = True
    #: added to the lines' grey level (coloured lines)
    line_tint: tuple[float, float, float] = (0.0, 0.0, 0.0)
    #: on the border: "none", "frame" (a line around the grid) or "band" (a wide band
    #: along the board's edge), in ``art_bgr``
    border_art: str = "none"
    art_bgr: tuple[float, float, float] = (200.0, 200.0, 200.0)


def _board_print(p: PrintProfile) -> BoardPrint:
    """The renderer's view of a print profile (``calibration/prints/``)."""
    logo = None if p.logo is None else (p.logo.text, p.logo.box, p.logo.bgr)
    return BoardPrint(p.cell_texture, p.cell_bgr, p.x2_level, p.x2_tint, p.start_bgr,
                      p.line_level, p.line_width, p.border_bgr, logo, p.folds)


#: Board prints, from their profiles (``calibration/prints/``, ``board_prints``);
#: "peri" is the scanned Peri edition the renderer has always drawn
#: (``make_board_texture`` with ``print_name="peri"`` takes its own path, unchanged).
#: ``TRAINING_PRINTS`` may be drawn in training; ``HELD_OUT_PRINTS`` never are.
PROFILES: Mapping[str, PrintProfile] = MappingProxyType(load_prints())
BOARD_PRINTS: Mapping[str, BoardPrint] = MappingProxyType({
    n: _board_print(p) for n, p in PROFILES.items()
    if not p.held_out and p.drawing == "profile"})
TRAINING_PRINTS: tuple[str, ...] = training_print_names(PROFILES)
HELD_OUT_PRINTS: Mapping[str, BoardPrint] = MappingProxyType({
    n: _board_print(p) for n, p in PROFILES.items()
    if p.held_out and p.drawing == "profile"})


def print_names() -> tuple[str, ...]:
    return tuple(PROFILES)


def _profile_of(name: str) -> PrintProfile:
    if name not in PROFILES:
        raise ValueError(f"unknown board print {name!r} (known: {', '.join(print_names())})")
    return PROFILES[name]


def _cell_mask(h: int, w: int, px) -> np.ndarray:
    """1.0 on the 193 cells, 0.0 elsewhere (float32, h x w)."""
    mask = np.zeros((h, w), np.float32)
    for idx in CELLS:
        r, c = row_col(idx)
        (x0, y0), (x1, y1) = px(c, r), px(c + 1, r + 1)
        mask[y0:y1, x0:x1] = 1.0
    return mask


def _canvas(ppc: float):
    """The drawing canvas at twice ``ppc`` pixels per cell unit: the supersampling
    factor, pixels per unit, width, height, and board coordinates -> pixel."""
    ss = 2.0
    p = ppc * ss
    w = int(round((BOARD_U[1] - BOARD_U[0]) * p))
    h = int(round((BOARD_V[1] - BOARD_V[0]) * p))

    def px(u: float, v: float) -> tuple[int, int]:
        return int(round((u - BOARD_U[0]) * p)), int(round((v - BOARD_V[0]) * p))

    return ss, p, w, h, px


def _wood(rng: np.random.Generator, shape: tuple[int, int], ppc: float) -> np.ndarray:
    """Wood grain about 0 (float32, -1..1-ish): long fibres along one axis, growth
    rings bent by a slow warp, a few knots' worth of cloud."""
    h, w = shape
    along_x = rng.random() < 0.5
    n_cells = (w if along_x else h) / ppc
    warp = rotated_fbm(rng, shape, (n_cells * 0.15, n_cells * 0.05), 0 if along_x else 90, 3)
    across = (np.arange(h, dtype=np.float32)[:, None] if along_x
              else np.arange(w, dtype=np.float32)[None, :]) / ppc
    rings = np.sin(2 * np.pi * (across * float(rng.uniform(1.5, 4.0)) + 3.0 * warp))
    fibre = rotated_fbm(rng, shape, (n_cells * 3.0, n_cells * 0.08), 0 if along_x else 90, 3)
    cloud = fbm(rng, shape, (n_cells * 0.2, n_cells * 0.2), 2)
    return (0.5 * rings + 0.35 * fibre + 0.3 * cloud).astype(np.float32)


def _border_art(img: np.ndarray, pr: BoardPrint, p: float, px) -> None:
    """A frame line around the grid, or a band along the board's edge, in ``art_bgr``."""
    colour = tuple(float(c) for c in pr.art_bgr)
    if pr.border_art == "frame":
        x0, y0 = px(-0.4, -0.4)
        x1, y1 = px(15.4, 15.4)
        cv2.rectangle(img, (x0, y0), (x1, y1), colour, max(1, int(0.06 * p)), cv2.LINE_AA)
    elif pr.border_art == "band":
        band = max(2, int(0.25 * p))
        h, w = img.shape[:2]
        for sl in (np.s_[:band], np.s_[h - band:], np.s_[:, :band], np.s_[:, w - band:]):
            img[sl] = colour


def draw_print(rng: np.random.Generator, cfg: BoardConfig, ppc: float,
               pr: BoardPrint) -> BoardTexture:
    """``make_board_texture`` for a print other than Peri's (``BoardPrint``)."""
    ss, p, w, h, px = _canvas(ppc)

    cell_bgr = np.asarray(pr.cell_bgr, np.float32)
    if pr.cells == "marble":
        marble = cv2.resize(_marble(rng, (int(h / ss), int(w / ss)), ppc, cfg), (w, h),
                            interpolation=cv2.INTER_LINEAR)
        show = marble - marble.mean()
        surface = marble[:, :, None] + (cell_bgr - cell_bgr.mean())[None, None, :]
    elif pr.cells == "wood":
        grain = _wood(rng, (int(h / ss), int(w / ss)), ppc)
        show = cv2.resize(grain, (w, h), interpolation=cv2.INTER_LINEAR) * 18.0
        surface = cell_bgr[None, None, :] * (1.0 + show[:, :, None] / 60.0) \
            + rng.normal(0, 1.5, (h, w, 1)).astype(np.float32)
    else:
        grain = fbm(rng, (int(h / ss), int(w / ss)), (w / p * 0.5, w / p * 0.5), 3) * 8.0
        show = cv2.resize(grain.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        surface = cell_bgr[None, None, :] + show[:, :, None] \
            + rng.normal(0, 1.5, (h, w, 1)).astype(np.float32)
    img = np.ascontiguousarray(surface, np.float32)
    if pr.border_bgr is not None:
        m = _cell_mask(h, w, px)[:, :, None]
        border = np.asarray(pr.border_bgr, np.float32) + 0.3 * show[:, :, None]
        img = img * m + border * (1 - m)
    if pr.border_art != "none":
        _border_art(img, pr, p, px)
    img += np.asarray(rng.uniform(*cfg.tint, size=3), np.float32)

    light = float(rng.uniform(*pr.light_level)) + np.asarray(pr.light_tint, np.float32)
    start = np.asarray(pr.start_bgr, np.float32) + rng.uniform(-12, 12, 3).astype(np.float32)
    for idx in LIGHT:
        r, c = row_col(idx)
        x0, y0 = px(c, r)
        x1, y1 = px(c + 1, r + 1)
        col = start if idx == START else light
        img[y0:y1, x0:x1] = col + 0.1 * show[y0:y1, x0:x1, None]

    if pr.folds:
        vis = float(rng.uniform(*cfg.fold_visibility))
        fy = px(0, 7.5)[1]
        band = max(2, int(0.035 * p))
        crease = cv2.GaussianBlur(rng.uniform(0.3, 1.0, size=(2 * band, w)).astype(np.float32),
                                  (0, 0), 1.2)
        img[fy - band:fy + band] += (vis * 60 * crease * np.hanning(2 * band)[:, None])[:, :, None]

    line_level = float(rng.uniform(*pr.line_level))
    lw = max(1, int(round(pr.line_width * p)))
    lines = np.zeros((h, w), np.uint8)
    for idx in CELLS:
        r, c = row_col(idx)
        cv2.rectangle(lines, px(c, r), px(c + 1, r + 1), 255, lw, cv2.LINE_AA)
    lm = lines.astype(np.float32)[:, :, None] / 255.0
    line = np.clip(line_level + np.asarray(pr.line_tint, np.float32), 0, 255)
    img = img * (1 - lm) + line * lm

    if pr.logo is not None:
        text, (u0, v0, u1, v1), colour = pr.logo
        x0, y0 = px(u0, v0)
        x1, y1 = px(u1, v1)
        _paste(img, _text_block(text, x1 - x0, y1 - y0, 0.2), x0, y0,
               np.asarray(colour, np.float32))

    rim = max(1, int(0.03 * p))
    for sl in (np.s_[:rim], np.s_[-rim:], np.s_[:, :rim], np.s_[:, -rim:]):
        img[sl] = img[sl] * 0.5 + 60
    img = np.clip(img, 0, 255).astype(np.uint8)
    small = cv2.resize(img, (int(round(w / ss)), int(round(h / ss))), interpolation=cv2.INTER_AREA)
    return BoardTexture(small, ppc)


def make_board_texture(rng: np.random.Generator, cfg: BoardConfig, ppc: float,
                       print_name: str = "peri") -> BoardTexture:
    """Draw one board variant at ``ppc`` pixels per cell (supersampled 2x, then reduced),
    in the print ``print_name`` (a profile of ``calibration/prints/``: "peri", or one of
    ``BOARD_PRINTS`` / ``HELD_OUT_PRINTS``; the same grid in each). A profile drawn
    "peri" takes the Peri drawing below (its ranges from ``cfg``); the others are drawn
    from their fields."""
    profile = _profile_of(print_name)
    if profile.drawing != "peri":
        return draw_print(rng, cfg, ppc, _board_print(profile))
    ss, p, w, h, px = _canvas(ppc)

    # the marble is smooth enough to draw at 1x and scale up
    marble = cv2.resize(_marble(rng, (int(h / ss), int(w / ss)), ppc, cfg), (w, h),
                        interpolation=cv2.INTER_LINEAR)
    img = np.repeat(marble[:, :, None], 3, axis=2)
    img += np.asarray(rng.uniform(*cfg.tint, size=3), np.float32)

    # Light cells and the red centre, with the marble faintly showing through.
    light_level = float(rng.uniform(*cfg.light_cell_level))
    show = (marble - marble.mean())[:, :, None]
    red = np.array([float(rng.uniform(40, 70)), float(rng.uniform(55, 85)),
                    float(rng.uniform(225, 250))], np.float32)
    for idx in LIGHT:
        r, c = row_col(idx)
        x0, y0 = px(c, r)
        x1, y1 = px(c + 1, r + 1)
        if idx == START:
            img[y0:y1, x0:x1] = red + 0.08 * show[y0:y1, x0:x1]
        else:
            img[y0:y1, x0:x1] = light_level + 0.22 * show[y0:y1, x0:x1]

    # Folds: a worn horizontal crease through row 8 and a faint vertical one.
    vis = float(rng.uniform(*cfg.fold_visibility))
    fy = px(0, 7.5)[1]
    band = max(2, int(0.035 * p))
    crease = rng.uniform(0.3, 1.0, size=(2 * band, w)).astype(np.float32)
    crease = cv2.GaussianBlur(crease, (0, 0), 1.2)
    img[fy - band:fy + band] += (vis * 90 * crease * np.hanning(2 * band)[:, None])[:, :, None]
    fx = px(7.5, 0)[0]
    vb = max(1, int(0.012 * p))
    img[:, fx - vb:fx + vb] = img[:, fx - vb:fx + vb] * (1 - 0.5 * vis) + 110 * vis * 0.5

    # Grid lines around every existing cell.
    line_level = float(rng.uniform(*cfg.line_level))
    lw = max(1, int(round(0.028 * p)))
    lines = np.zeros((h, w), np.uint8)
    for idx in CELLS:
        r, c = row_col(idx)
        cv2.rectangle(lines, px(c, r), px(c + 1, r + 1), 255, lw, cv2.LINE_AA)
    lm = lines.astype(np.float32)[:, :, None] / 255.0
    img = img * (1 - lm) + line_level * lm

    # Logo "ZATRE" top left, silver, with a dark drop edge.
    lx0, ly0 = px(-0.58, -0.53)
    lx1, ly1 = px(3.47, 0.49)
    logo = _text_block("ZATRE", lx1 - lx0, ly1 - ly0, 0.22)
    shadow = cv2.GaussianBlur(logo, (0, 0), 0.02 * p)
    _paste(img, shadow * 0.8, lx0 + int(0.03 * p), ly0 + int(0.03 * p), np.zeros(3, np.float32))
    grad = np.linspace(250, 150, ly1 - ly0, dtype=np.float32)[:, None, None]
    sheen = grad + rng.normal(0, 6, (ly1 - ly0, lx1 - lx0, 1)).astype(np.float32)
    _paste(img, logo, lx0, ly0, np.repeat(sheen, 3, axis=2))
    rx, ry = px(3.55, -0.55)
    rr = max(2, int(0.09 * p))
    cv2.circle(img, (rx + rr, ry + rr), rr, (230, 230, 230), max(1, int(0.015 * p)), cv2.LINE_AA)

    # Edge text: author top right, rights line at the bottom, publisher label.
    for text, (u0, v0, u1, v1) in (
        ("AUTHOR: MANFRED SCHULING", (13.3, -0.62, 14.95, -0.47)),
        ("All rights reserved. Design and components approved by the ZATRE Federation, Berlin.",
         (-0.75, 15.72, 8.85, 15.86)),
    ):
        x0, y0 = px(u0, v0)
        x1, y1 = px(u1, v1)
        _paste(img, _text_block(text, x1 - x0, y1 - y0, 0.12, cv2.FONT_HERSHEY_SIMPLEX) * 0.9,
               x0, y0, np.full(3, 235, np.float32))
    x0, y0 = px(14.08, 13.15)
    x1, y1 = px(15.5, 15.75)
    img[y0:y1, x0:x1] = np.array([20, 225, 245], np.float32)
    tx0, ty0 = px(14.15, 13.2)
    tx1, ty1 = px(15.45, 13.75)
    _paste(img, _text_block("PERI", tx1 - tx0, ty1 - ty0, 0.2), tx0, ty0,
           np.full(3, 20, np.float32))

    # Cardboard edge: a slightly lighter, worn rim.
    rim = max(1, int(0.03 * p))
    img[:rim] = img[:rim] * 0.5 + 60
    img[-rim:] = img[-rim:] * 0.5 + 60
    img[:, :rim] = img[:, :rim] * 0.5 + 60
    img[:, -rim:] = img[:, -rim:] * 0.5 + 60

    img = np.clip(img, 0, 255).astype(np.uint8)
    small = cv2.resize(img, (int(round(w / ss)), int(round(h / ss))), interpolation=cv2.INTER_AREA)
    return BoardTexture(small, ppc)
