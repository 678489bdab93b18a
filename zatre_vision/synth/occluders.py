"""Occluders in image space: forearms reaching in from the table edge, sleeves, open
hands or fingers pinching a tile, and their soft shadows on the board.

Hands are drawn at half the output resolution (they are smooth) and scaled up.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .config import OccluderConfig
from .tiles import TileSprites

SHIFT = 4  # fixed-point bits for cv2 drawing


@dataclass(frozen=True)
class Arm:
    entry: tuple[float, float]          # where the forearm comes from (outside the frame), px
    target: tuple[float, float]         # where the fingertips point at full reach, px
    reach: float                        # 0..1: how far along the way the hand is
    cell_px: float                      # size of a cell near the target, px
    scale: float
    skin: tuple[float, float, float]
    sleeve: tuple[float, float, float] | None
    sleeve_frac: float
    pinch: bool
    held: tuple[int, int] | None        # (value, quarter) of a tile in the fingers
    held_angle: float
    finger_spread: float

    def params(self) -> dict:
        return {"target": [round(self.target[0], 1), round(self.target[1], 1)],
                "reach": round(self.reach, 3), "sleeve": self.sleeve is not None,
                "pinch": self.pinch, "held_tile": None if self.held is None else self.held[0]}


def sample_arm(rng: np.random.Generator, cfg: OccluderConfig, width: int, height: int,
               target: tuple[float, float], cell_px: float, reach: float = 1.0,
               held: tuple[int, int] | None = None, side: int | None = None,
               look: dict | None = None) -> Arm:
    """An arm reaching from a random frame side (or ``side``: 0 top, 1 right, 2 bottom,
    3 left) toward ``target``. ``look`` fixes skin/sleeve for one player over a game."""
    if side is None:
        side = int(rng.choice(4, p=[0.15, 0.2, 0.45, 0.2]))
    t = float(rng.uniform(0.15, 0.85))
    out = 0.25
    entry = [(t * width, -out * height), ((1 + out) * width, t * height),
             (t * width, (1 + out) * height), (-out * width, t * height)][side]
    look = look or sample_look(rng, cfg)
    return Arm((float(entry[0]), float(entry[1])), (float(target[0]), float(target[1])),
               float(reach), float(cell_px), look["scale"], look["skin"], look["sleeve"],
               float(rng.uniform(0.15, 0.7)), held is not None or bool(rng.random() < 0.3), held,
               float(rng.uniform(-30, 30)), float(rng.uniform(0.8, 1.2)))


def sample_look(rng: np.random.Generator, cfg: OccluderConfig) -> dict:
    skin = np.asarray(cfg.skin_tones[int(rng.integers(len(cfg.skin_tones)))], np.float64)
    skin = tuple(float(c) for c in np.clip(skin + rng.normal(0, 8, 3), 20, 255))
    sleeve = None
    if rng.random() < cfg.sleeve_probability:
        s = np.asarray(cfg.sleeve_colours[int(rng.integers(len(cfg.sleeve_colours)))], np.float64)
        sleeve = tuple(float(c) for c in np.clip(s + rng.normal(0, 10, 3), 5, 250))
    return {"skin": skin, "sleeve": sleeve, "scale": float(rng.uniform(*cfg.hand_scale))}


def _pt(p: np.ndarray) -> tuple[int, int]:
    return int(round(p[0] * (1 << SHIFT))), int(round(p[1] * (1 << SHIFT)))


def _capsule(img: np.ndarray, a: np.ndarray, b: np.ndarray, width: float, value) -> None:
    cv2.line(img, _pt(a), _pt(b), value, max(1, int(round(width))), cv2.LINE_AA, SHIFT)


def _quad(img: np.ndarray, a: np.ndarray, b: np.ndarray, wa: float, wb: float, value) -> None:
    d = b - a
    d = d / (np.linalg.norm(d) + 1e-9)
    n = np.array([-d[1], d[0]])
    poly = np.array([a + n * wa / 2, b + n * wb / 2, b - n * wb / 2, a - n * wa / 2])
    cv2.fillConvexPoly(img, np.round(poly * (1 << SHIFT)).astype(np.int32), value,
                       cv2.LINE_AA, SHIFT)


def _draw_arm(arm: Arm, colour: np.ndarray, alpha: np.ndarray, ds: float,
              sprites: TileSprites | None) -> None:
    c = arm.cell_px * arm.scale / ds
    entry = np.array(arm.entry) / ds
    target = np.array(arm.target) / ds
    d = target - entry
    d = d / (np.linalg.norm(d) + 1e-9)
    n = np.array([-d[1], d[0]])
    tip = entry + (target - entry) * arm.reach
    hand_len, palm_w = 7.2 * c, 3.3 * c
    wrist = tip - d * hand_len
    skin = np.asarray(arm.skin, np.float32)
    h, w = alpha.shape
    mask = np.zeros((h, w), np.uint8)       # skin parts
    lines = np.zeros((h, w), np.uint8)      # creases between fingers
    # forearm and wrist
    _quad(mask, entry - d * 2 * c, wrist + d * 0.3 * c, 3.4 * c, 2.5 * c, 255)
    palm_c = wrist + d * 0.33 * hand_len
    ang = float(np.degrees(np.arctan2(d[1], d[0])))
    cv2.ellipse(mask, _pt(palm_c), _pt(np.array([0.3 * hand_len, 0.5 * palm_w])), ang, 0, 360,
                255, -1, cv2.LINE_AA, SHIFT)
    fw = 0.23 * palm_w
    finger_base = wrist + d * 0.58 * hand_len
    offsets = np.array([-0.37, -0.12, 0.12, 0.37]) * palm_w * arm.finger_spread
    extra = np.array([0.06, 0.0, 0.03, 0.12]) * hand_len
    side = 1.0 if (arm.held_angle > 0) else -1.0
    fingers = []
    for i, (o, e) in enumerate(zip(offsets, extra, strict=True)):
        if arm.pinch:
            end = wrist + d * (0.78 * hand_len) + n * o * 0.8
            if i == (0 if side > 0 else 3):
                end = tip + n * o * 0.25
        else:
            end = tip - d * e + n * o * 1.2
        fingers.append((finger_base + n * o, end))
    thumb_a = wrist + d * 0.18 * hand_len + n * side * 0.42 * palm_w
    thumb_b = (tip + n * side * 0.25 * palm_w) if arm.pinch else (
        wrist + d * 0.62 * hand_len + n * side * 0.95 * palm_w)
    for a, b in fingers:
        _capsule(mask, a, b, fw, 255)
        _capsule(lines, a, b, fw + 2, 255)
        _capsule(lines, a, b, fw - 1.5, 0)
    _capsule(mask, thumb_a, thumb_b, 0.27 * palm_w, 255)
    m = mask.astype(np.float32) / 255.0
    # cylindrical shading: the middle of arm and fingers catches the light
    small = cv2.resize(m, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
    blur = cv2.GaussianBlur(small, (0, 0), max(0.8, fw / 8))
    shade = cv2.resize(blur, (w, h), interpolation=cv2.INTER_LINEAR)
    shade = 0.55 + 0.6 * shade - 0.25 * (lines.astype(np.float32) / 255.0)
    layer = skin[None, None, :] * shade[:, :, None]
    colour[:] = colour * (1 - m[:, :, None]) + layer * m[:, :, None]
    np.maximum(alpha, m, out=alpha)
    if arm.sleeve is not None:
        smask = np.zeros((h, w), np.uint8)
        cuff = entry + (wrist - entry) * arm.sleeve_frac
        _quad(smask, entry - d * 2 * c, cuff, 4.4 * c, 3.9 * c, 255)
        cv2.ellipse(smask, _pt(cuff), _pt(np.array([0.5 * c, 1.95 * c])), ang, 0, 360, 255, -1,
                    cv2.LINE_AA, SHIFT)
        sm = smask.astype(np.float32) / 255.0
        folds = 0.85 + 0.15 * np.sin(np.linspace(0, 9, w, dtype=np.float32))[None, :]
        layer = np.asarray(arm.sleeve, np.float32)[None, None, :] * (
            0.6 + 0.45 * cv2.GaussianBlur(sm, (0, 0), max(1.0, c)) * folds)[:, :, None]
        colour[:] = colour * (1 - sm[:, :, None]) + layer * sm[:, :, None]
        np.maximum(alpha, sm, out=alpha)
    if arm.held is not None and sprites is not None:
        face = sprites.face(*arm.held)
        k = 0.95 * c / sprites.side_px
        centre = tip + d * 0.15 * c
        nn = sprites.n
        mat = cv2.getRotationMatrix2D(((nn - 1) / 2, (nn - 1) / 2), arm.held_angle - ang, k)
        mat[:, 2] += centre - (nn - 1) / 2
        fwarp = cv2.warpAffine(face, mat, (w, h))
        awarp = cv2.warpAffine(sprites.alpha, mat, (w, h))[:, :, None]
        colour[:] = colour * (1 - awarp) + fwarp * awarp
        np.maximum(alpha, awarp[:, :, 0], out=alpha)
        # fingertips over the tile edges
        tips = np.zeros((h, w), np.uint8)
        _capsule(tips, thumb_b - d * 0.6 * c, thumb_b, 0.27 * palm_w, 255)
        tm = tips.astype(np.float32)[:, :, None] / 255.0
        colour[:] = colour * (1 - tm) + skin * 0.85 * tm


def draw_arms(arms: list[Arm], width: int, height: int, sprites: TileSprites | None,
              shadow_dir: tuple[float, float], shadow_len_cells: float
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Colour (H/2, W/2, 3), alpha (H/2, W/2) and shadow (H/2, W/2) layers at half size."""
    ds = 2.0
    w, h = int(width / ds), int(height / ds)
    colour = np.zeros((h, w, 3), np.float32)
    alpha = np.zeros((h, w), np.float32)
    for arm in arms:
        _draw_arm(arm, colour, alpha, ds, sprites)
    shadow = np.zeros((h, w), np.float32)
    if arms:
        c = float(np.mean([a.cell_px for a in arms])) / ds
        off = np.array(shadow_dir) * c * (1.5 + 6 * shadow_len_cells)
        m = np.float32([[1, 0, off[0]], [0, 1, off[1]]])
        shifted = cv2.warpAffine(alpha, m, (w, h))
        small = cv2.resize(shifted, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), max(1.0, c / 3))
        shadow = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return colour, alpha, shadow
