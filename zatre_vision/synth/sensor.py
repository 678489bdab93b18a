"""Sensor and processing effects: noise, defocus, motion blur, saturation, JPEG."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .config import SensorConfig


@dataclass(frozen=True)
class Sensor:
    read_noise: float
    shot_noise: float
    defocus: float            # Gaussian sigma in pixels at 1280 wide, 0 = sharp
    motion: float             # blur length in pixels at 1280 wide, 0 = none
    motion_angle: float
    saturation: float
    quality: int

    def params(self) -> dict:
        return {"read_noise": round(self.read_noise, 3), "shot_noise": round(self.shot_noise, 3),
                "defocus_sigma": round(self.defocus, 3), "motion_px": round(self.motion, 2),
                "motion_angle": round(self.motion_angle, 1),
                "saturation": round(self.saturation, 3), "jpeg_quality": self.quality}


def sample_sensor(rng: np.random.Generator, cfg: SensorConfig, quality: int | None = None) -> Sensor:
    defocus = float(rng.uniform(*cfg.defocus_sigma)) if rng.random() < cfg.defocus_probability else 0.0
    motion = float(rng.uniform(*cfg.motion_length)) if rng.random() < cfg.motion_probability else 0.0
    q = int(round(rng.uniform(*cfg.jpeg_quality)))
    return Sensor(float(rng.uniform(*cfg.read_noise)), float(rng.uniform(*cfg.shot_noise)),
                  defocus, motion, float(rng.uniform(0, 180)), float(rng.uniform(*cfg.saturation)),
                  q if quality is None else int(quality))


def _motion_kernel(length: float, angle_deg: float) -> np.ndarray:
    n = int(np.ceil(length)) | 1
    k = np.zeros((n, n), np.float32)
    c = n // 2
    a = np.deg2rad(angle_deg)
    dx, dy = np.cos(a) * (length - 1) / 2, np.sin(a) * (length - 1) / 2
    cv2.line(k, (int(round((c - dx) * 16)), int(round((c - dy) * 16))),
             (int(round((c + dx) * 16)), int(round((c + dy) * 16))), 1.0, 1, cv2.LINE_AA, 4)
    return k / max(k.sum(), 1e-6)


def apply_sensor(img: np.ndarray, sensor: Sensor, rng: np.random.Generator) -> np.ndarray:
    """float32 BGR (0..255-ish) -> uint8 BGR with optics and sensor effects."""
    h, w = img.shape[:2]
    px = w / 1280.0
    if sensor.saturation != 1.0:
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        img = cv2.addWeighted(img, sensor.saturation, cv2.merge([grey, grey, grey]),
                              1 - sensor.saturation, 0)
    if sensor.defocus > 0:
        img = cv2.GaussianBlur(img, (0, 0), sensor.defocus * px)
    if sensor.motion > 1.5 * px:
        img = cv2.filter2D(img, -1, _motion_kernel(sensor.motion * px, sensor.motion_angle))
    # noise at half resolution, scaled up: a demosaiced, denoised look; shot noise ~ sqrt(I)
    nh, nw = (h + 1) // 2, (w + 1) // 2
    half = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA)
    sigma = 1.4 * (sensor.read_noise + sensor.shot_noise * np.sqrt(np.maximum(half, 0) / 64.0))
    noise = rng.standard_normal((nh, nw, 3), dtype=np.float32) * sigma
    img = cv2.add(img, cv2.resize(noise, (w, h), interpolation=cv2.INTER_LINEAR))
    return np.clip(img, 0, 255).astype(np.uint8)


def encode_jpeg(img: np.ndarray, quality: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:  # pragma: no cover - OpenCV always encodes a valid uint8 image
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()
