"""Light: one or two lamps with hot spots, colour temperature, white balance, vignetting,
a specular glare on the glossy board, exposure, and the direction shadows fall."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .config import LightConfig


def kelvin_to_bgr(kelvin: float) -> np.ndarray:
    """Approximate colour of a black body (Tanner Helland's fit), BGR, green = 1."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * np.log(t) - 161.12 if t <= 66 else 288.12 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.52 * np.log(t - 10) - 305.04)
    rgb = np.clip(np.array([r, g, b]), 1, 255)
    return (rgb / rgb[1])[::-1].astype(np.float32)


@dataclass(frozen=True)
class Lamp:
    x: float              # position in the image, fractions (may lie outside 0..1)
    y: float
    sigma: float          # fraction of the diagonal
    strength: float
    tint: np.ndarray      # BGR gain after white balance


@dataclass(frozen=True)
class Light:
    lamps: tuple[Lamp, ...]
    ambient: float
    exposure: float
    vignette: float
    glare: tuple[float, float, float, float] | None   # x, y (fractions), sigma, strength
    shadow_dir: tuple[float, float]                   # unit vector, image/board plane
    shadow_len: float                                 # cells
    shadow_dark: float
    kelvin: float
    head_shadow: tuple[float, float, float, float] | None  # x, y, radius, darkness

    def params(self) -> dict:
        return {"lamps": [{"x": round(lp.x, 3), "y": round(lp.y, 3), "sigma": round(lp.sigma, 3),
                           "strength": round(lp.strength, 3)} for lp in self.lamps],
                "ambient": round(self.ambient, 3), "exposure": round(self.exposure, 3),
                "kelvin": round(self.kelvin), "vignette": round(self.vignette, 3),
                "glare": None if self.glare is None else [round(g, 3) for g in self.glare],
                "shadow_len_cells": round(self.shadow_len, 3),
                "head_shadow": self.head_shadow is not None}


def sample_light(rng: np.random.Generator, cfg: LightConfig) -> Light:
    kelvin = float(rng.uniform(*cfg.kelvin))
    wb = float(rng.uniform(*cfg.white_balance))
    n = int(rng.integers(cfg.lamps[0], cfg.lamps[1] + 1))
    lamps = []
    for i in range(n):
        k = kelvin if i == 0 else float(rng.uniform(*cfg.kelvin))
        tint = kelvin_to_bgr(k) ** (1 - wb)
        lamps.append(Lamp(float(rng.uniform(-0.3, 1.3)), float(rng.uniform(-0.3, 1.3)),
                          float(rng.uniform(*cfg.hotspot_sigma)),
                          float(rng.uniform(*cfg.hotspot_strength)) / (1 + 0.5 * i), tint))
    main = lamps[0]
    d = np.array([0.5 - main.x, 0.5 - main.y]) + rng.normal(0, 0.1, 2)
    d = d / (np.linalg.norm(d) + 1e-9)
    glare = None
    if rng.random() < cfg.glare_probability:
        glare = (float(np.clip(main.x + rng.normal(0, 0.1), 0.05, 0.95)),
                 float(np.clip(main.y + rng.normal(0, 0.1), 0.05, 0.95)),
                 float(rng.uniform(0.04, 0.15)), float(rng.uniform(*cfg.glare_strength)))
    head = None
    if rng.random() < cfg.head_shadow_probability:
        side = rng.integers(4)
        pos = float(rng.uniform(0.1, 0.9))
        x, y = [(pos, -0.05), (1.05, pos), (pos, 1.05), (-0.05, pos)][side]
        head = (x, y, float(rng.uniform(0.15, 0.35)), float(rng.uniform(0.15, 0.4)))
    return Light(tuple(lamps), float(rng.uniform(*cfg.ambient)), float(rng.uniform(*cfg.exposure)),
                 float(rng.uniform(*cfg.vignette)), glare, (float(d[0]), float(d[1])),
                 float(rng.uniform(*cfg.shadow_offset)), float(rng.uniform(*cfg.shadow_darkness)),
                 kelvin, head)


def gain_map(light: Light, width: int, height: int, exposure_scale: float = 1.0) -> np.ndarray:
    """Per-pixel BGR gain (H, W, 3) float32: ambient + lamps, vignette, head shadow."""
    gw, gh = 64, 48
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
    xs, ys = (xs + 0.5) / gw, (ys + 0.5) / gh
    aspect = height / width
    diag = np.hypot(1.0, aspect)
    total = np.zeros((gh, gw, 3), np.float32)
    total += light.ambient * light.lamps[0].tint
    for lp in light.lamps:
        d2 = ((xs - lp.x) ** 2 + ((ys - lp.y) * aspect) ** 2) / (lp.sigma * diag) ** 2
        total += (lp.strength * np.exp(-0.5 * d2))[:, :, None] * lp.tint
    r2 = ((xs - 0.5) ** 2 + ((ys - 0.5) * aspect) ** 2) / (0.25 * diag ** 2)
    total *= (1 - light.vignette * r2)[:, :, None]
    if light.head_shadow is not None:
        hx, hy, hr, hd = light.head_shadow
        d2 = ((xs - hx) ** 2 + ((ys - hy) * aspect) ** 2) / hr ** 2
        total *= (1 - hd * np.exp(-d2 ** 2))[:, :, None]
    total *= light.exposure * exposure_scale / max(0.6, light.ambient + light.lamps[0].strength * 0.6)
    return cv2.resize(total, (width, height), interpolation=cv2.INTER_LINEAR)


def glare_map(light: Light, width: int, height: int) -> np.ndarray | None:
    """Additive specular reflection (H, W) float32, or None."""
    if light.glare is None:
        return None
    gx, gy, gs, strength = light.glare
    gw, gh = 128, 96
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
    xs, ys = (xs + 0.5) / gw, (ys + 0.5) / gh
    aspect = height / width
    d2 = ((xs - gx) ** 2 + ((ys - gy) * aspect) ** 2) / gs ** 2
    g = strength * np.exp(-0.5 * d2)
    return cv2.resize(g.astype(np.float32), (width, height), interpolation=cv2.INTER_LINEAR)
