"""The camera: intrinsics like a Pi Camera Module 3 (or its wide version), radial
distortion, a pose above the table, and projection of board-plane points to the image.

World frame, in grid units: x along the board's columns (``u``), y along its rows
(``v``), z into the table; the board is the plane z = 0 and a point ``h`` above it has
z = -h. The render model of the lens maps a distorted normalised image point to the
undistorted one: ``x_u = x_d * (1 + k1 r_d^2 + k2 r_d^4)``; projecting a world point
inverts it by fixed-point iteration.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from .config import CameraConfig

GRID_CORNERS = np.array([[0, 0], [15, 0], [15, 15], [0, 15]], np.float64)


def _rot_z(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def _rot_x(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


@dataclass(frozen=True)
class Camera:
    width: int
    height: int
    f: float
    cx: float
    cy: float
    k1: float
    k2: float
    rot: np.ndarray       # camera-to-world rotation (columns: camera x, y, z axes)
    centre: np.ndarray    # camera centre in world (grid units)
    lens: str
    tilt_deg: float
    azimuth_deg: float
    roll_deg: float

    # -- projection -------------------------------------------------------------------
    def _distort(self, xu: np.ndarray, yu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        xd, yd = xu.copy(), yu.copy()
        for _ in range(25):
            r2 = xd * xd + yd * yd
            fac = 1 + self.k1 * r2 + self.k2 * r2 * r2
            xd, yd = xu / fac, yu / fac
        return xd, yd

    def project(self, pts: np.ndarray) -> np.ndarray:
        """Image pixels (N, 2) of world points (N, 2) on the board or (N, 3) as (u, v, h)."""
        pts = np.asarray(pts, np.float64)
        if pts.shape[1] == 2:
            pts = np.column_stack([pts, np.zeros(len(pts))])
        world = np.column_stack([pts[:, 0], pts[:, 1], -pts[:, 2]])
        cam = (world - self.centre) @ self.rot
        z = np.maximum(cam[:, 2], 1e-6)
        xd, yd = self._distort(cam[:, 0] / z, cam[:, 1] / z)
        return np.column_stack([self.f * xd + self.cx, self.f * yd + self.cy])

    def homography(self) -> np.ndarray:
        """Board plane (u, v, 1) -> undistorted pixel (pinhole part of the model)."""
        k = np.array([[self.f, 0, self.cx], [0, self.f, self.cy], [0, 0, 1]])
        rt = self.rot.T
        t = -rt @ self.centre
        h = k @ np.column_stack([rt[:, 0], rt[:, 1], t])
        return h / h[2, 2]

    def plane_map(self, step: int = 4) -> tuple[np.ndarray, int]:
        """Board-plane (u, v) on a coarse grid (every ``step`` pixels), float32, and ``step``.

        Rays that miss the plane (above the horizon) get far-away coordinates.
        """
        gw, gh = self.width // step + 2, self.height // step + 2
        xs = np.arange(gw, dtype=np.float64) * step
        ys = np.arange(gh, dtype=np.float64) * step
        xg, yg = np.meshgrid(xs, ys)
        xd, yd = (xg - self.cx) / self.f, (yg - self.cy) / self.f
        r2 = xd * xd + yd * yd
        fac = 1 + self.k1 * r2 + self.k2 * r2 * r2
        rays = np.stack([xd * fac, yd * fac, np.ones_like(xd)], axis=-1) @ self.rot.T
        rz = rays[..., 2]
        t = np.where(rz > 1e-3, -self.centre[2] / np.maximum(rz, 1e-3), 1e4)
        uv = self.centre[:2] + rays[..., :2] * t[..., None]
        uv = np.clip(uv, -1e4, 1e4).astype(np.float32)
        return uv, step

    def cell_size_px(self, u: float, v: float) -> float:
        p = self.project(np.array([[u - 0.5, v], [u + 0.5, v], [u, v - 0.5], [u, v + 0.5]]))
        return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[3] - p[2])) / 2)

    def jittered(self, rng: np.random.Generator, deg: float) -> Camera:
        """The same camera wobbled by a tiny rotation (a game's fixed camera over time)."""
        a = np.deg2rad(rng.normal(0, deg, 3))
        small = _rot_z(a[2]) @ _rot_x(a[0]) @ np.array(
            [[np.cos(a[1]), 0, np.sin(a[1])], [0, 1, 0], [-np.sin(a[1]), 0, np.cos(a[1])]])
        return replace(self, rot=self.rot @ small)

    def moved(self, du: float, dv: float, deg: float) -> Camera:
        """The camera seen from a board that was pushed by (du, dv) grid units and
        turned by ``deg`` degrees on the table (a bumped board)."""
        a = np.deg2rad(deg)
        turn = _rot_z(a)
        centre = turn @ (self.centre - np.array([du, dv, 0.0]) - np.array([7.5, 7.5, 0.0]))
        centre += np.array([7.5, 7.5, 0.0])
        return replace(self, rot=turn @ self.rot, centre=centre)

    def params(self, cell_mm: float) -> dict:
        return {"lens": self.lens, "f_px": round(self.f, 2), "cx": round(self.cx, 2),
                "cy": round(self.cy, 2), "k1": round(self.k1, 5), "k2": round(self.k2, 5),
                "distortion_model": "x_u = x_d * (1 + k1 r^2 + k2 r^4), normalised",
                "tilt_deg": round(self.tilt_deg, 2), "azimuth_deg": round(self.azimuth_deg, 2),
                "roll_deg": round(self.roll_deg, 2),
                "height_mm": round(float(-self.centre[2]) * cell_mm, 1),
                "centre_grid": [round(float(c), 3) for c in self.centre]}


def _pose(tilt: float, azimuth: float, roll: float) -> np.ndarray:
    """Camera-to-world rotation: looking down (+z), tilted by ``tilt`` toward ``azimuth``,
    turned by ``roll`` about its axis."""
    return _rot_z(azimuth) @ _rot_x(tilt) @ _rot_z(-azimuth) @ _rot_z(roll)


def _top_edge_angle(corners: np.ndarray) -> float:
    d = corners[1] - corners[0]
    return float(np.degrees(np.arctan2(d[1], d[0])))


Side = Literal["top", "bottom", "left", "right"]
SIDES: tuple[Side, ...] = ("top", "bottom", "left", "right")


def pushed_to_edge(cam: Camera, side: Side, gap_cells: float) -> Camera:
    """``cam`` with the image moved (its principal point: the picture shifts whole, lens
    and perspective unchanged) so that the grid's outermost point on ``side`` lies
    ``gap_cells`` cells (at the board's middle) from that edge of the frame. The board's
    printed border, about 0.9 cell wide, then leaves the frame for gaps under it."""
    pc = cam.project(GRID_CORNERS)
    gap = gap_cells * cam.cell_size_px(7.5, 7.5)
    if side == "top":
        return replace(cam, cy=cam.cy + gap - float(pc[:, 1].min()))
    if side == "bottom":
        return replace(cam, cy=cam.cy + (cam.height - 1 - gap) - float(pc[:, 1].max()))
    if side == "left":
        return replace(cam, cx=cam.cx + gap - float(pc[:, 0].min()))
    return replace(cam, cx=cam.cx + (cam.width - 1 - gap) - float(pc[:, 0].max()))


def grid_in_frame(cam: Camera) -> bool:
    """Is the whole grid (its four outer corners) inside the frame?"""
    pc = cam.project(GRID_CORNERS)
    return bool((pc[:, 0] >= 0).all() and (pc[:, 0] <= cam.width - 1).all()
                and (pc[:, 1] >= 0).all() and (pc[:, 1] <= cam.height - 1).all())


def sample_camera(rng: np.random.Generator, cfg: CameraConfig, width: int, height: int,
                  board: bool = True) -> Camera:
    """A camera that sees the whole grid, upright within 45 degrees, filling ``cfg.fill``;
    with ``cfg.edge_probability`` pushed against one side of the frame
    (``pushed_to_edge``)."""
    cam = _sample_camera(rng, cfg, width, height, board)
    if not board or cfg.edge_probability <= 0.0:
        return cam          # no draw: the training ranges' photos stay as they were
    edge = np.random.default_rng(rng.integers(2**63))
    if edge.random() >= cfg.edge_probability:
        return cam
    moved = pushed_to_edge(cam, SIDES[int(edge.integers(4))],
                           float(edge.uniform(*cfg.edge_gap_cells)))
    return moved if grid_in_frame(moved) else cam


def _sample_camera(rng: np.random.Generator, cfg: CameraConfig, width: int, height: int,
                   board: bool) -> Camera:
    weights = np.asarray(cfg.lens_weights, np.float64)
    lens = cfg.lenses[int(rng.choice(len(cfg.lenses), p=weights / weights.sum()))]
    for _attempt in range(60):
        hfov = np.deg2rad(rng.uniform(*lens.hfov_deg))
        f = width / 2 / np.tan(hfov / 2)
        cx = width / 2 + rng.uniform(*cfg.principal_jitter) * width
        cy = height / 2 + rng.uniform(*cfg.principal_jitter) * height
        k1, k2 = float(rng.uniform(*lens.k1)), float(rng.uniform(*lens.k2))
        tilt = float(rng.uniform(*cfg.tilt_deg))
        azimuth = float(rng.uniform(0, 360))
        roll = float(rng.uniform(*cfg.roll_deg))
        rot = _pose(np.deg2rad(tilt), np.deg2rad(azimuth), np.deg2rad(roll))
        fill = float(rng.uniform(*cfg.fill))
        aim = np.array([7.5 + rng.uniform(*cfg.centre_offset),
                        7.5 + rng.uniform(*cfg.centre_offset), 0.0])
        dist = 30.0
        cam = None
        for _ in range(6):
            cam = Camera(width, height, f, cx, cy, k1, k2, rot, aim - dist * rot[:, 2],
                         lens.name, tilt, azimuth, roll)
            pc = cam.project(GRID_CORNERS)
            span = (pc[:, 1].max() - pc[:, 1].min()) / height
            dist *= span / fill
        pc = cam.project(GRID_CORNERS)
        if not board:
            return cam
        m = cfg.edge_margin
        inside = ((pc[:, 0] > m * width).all() and (pc[:, 0] < (1 - m) * width).all()
                  and (pc[:, 1] > m * height).all() and (pc[:, 1] < (1 - m) * height).all())
        if inside and abs(_top_edge_angle(pc)) < 45.0 and cam.centre[2] < -3.0:
            return cam
        # aim closer to the centre next time
    # fall back: straight down, centred, medium fill
    rot = _pose(0.0, 0.0, 0.0)
    f = width / 2 / np.tan(np.deg2rad(lens.hfov_deg[0]) / 2)
    dist = f * 15 / (0.7 * height)
    return Camera(width, height, f, width / 2, height / 2, 0.0, 0.0, rot,
                  np.array([7.5, 7.5, -dist]), lens.name, 0.0, 0.0, 0.0)
