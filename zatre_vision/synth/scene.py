"""Composes one photo and its ground truth: table, board with tiles (drawn on the board
plane, so they follow perspective), arms, light, lens and sensor.

``Renderer`` holds per-run caches (a few board and table textures per seed); every
random choice comes from the ``np.random.Generator`` passed in, so output depends only
on the seeds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from ..rules.board import CELLS, NAMES, row_col
from ..vision.geometry import reading_key
from .board_art import BOARD_U, BOARD_V, BoardTexture, draw_print, make_board_texture
from .camera import GRID_CORNERS, Camera, sample_camera
from .config import SynthConfig
from .lighting import Light, gain_map, glare_map, sample_light
from .occluders import Arm, draw_arms
from .print_world import WORLD, sample_print
from .sensor import Sensor, apply_sensor, sample_sensor
from .table import TABLE_EXTENT, TableTexture, make_table_texture
from .tiles import TilePose, TileSprites, TileStyle, draw_shadow, draw_tile, sample_style

CELL_NAMES = [NAMES[i] for i in CELLS]
#: (u, v) of every cell's top-left corner, in reading order
CELL_ORIGINS = np.array([[row_col(i)[1], row_col(i)[0]] for i in CELLS], np.float64)
_S = (np.arange(5) + 0.5) / 5
CELL_SAMPLES = np.array([[x, y] for y in _S for x in _S])  # 25 points inside a unit cell


@dataclass(frozen=True)
class SceneSetup:
    """Everything that stays the same across the frames of one game (or one photo)."""

    board: bool
    camera: Camera
    light: Light
    style: TileStyle
    board_variant: int
    board_gain: np.ndarray
    table_kind: str
    table_variant: int
    table_angle: float
    table_offset: tuple[float, float]
    table_gain: np.ndarray
    sensor: Sensor


class Renderer:
    """Renders photos of one size; textures are cached per (seed, variant)."""

    def __init__(self, cfg: SynthConfig, seed: int, width: int, height: int,
                 board_art: Callable[[float], BoardTexture] | None = None):
        """``board_art``: makes the board texture at a given px per cell, for every
        photo (``scanned_board.scanned_board_texture``: the real print); by default
        each run draws ``cfg.board.textures_per_seed`` boards (``make_board_texture``)."""
        self.cfg, self.seed, self.width, self.height = cfg, int(seed), int(width), int(height)
        self.board_art = board_art
        self.ppc = float(np.clip(round(height / 15.0), 24, 96))
        self.table_ppu = float(np.clip(round(height / 80.0), 6, 16))
        self._boards: dict[int, tuple[BoardTexture, np.ndarray]] = {}
        self._tables: dict[tuple[str, int], TableTexture] = {}
        self._sprites: dict[TileStyle, TileSprites] = {}

    # -- caches ---------------------------------------------------------------------------
    def board_texture(self, k: int) -> tuple[BoardTexture, np.ndarray]:
        if self.board_art is not None:
            k = 0      # one given board for every photo
        if k not in self._boards:
            rng = np.random.default_rng([self.seed, 101, k])
            name = self.cfg.board.prints[k % len(self.cfg.board.prints)]
            if self.board_art is not None:
                tex = self.board_art(self.ppc)
            elif name == WORLD:  # a new print of the print world for this board
                tex = draw_print(rng, self.cfg.board, self.ppc, sample_print(rng))
            else:
                tex = make_board_texture(rng, self.cfg.board, self.ppc, name)
            self._boards[k] = (tex, tex.image.astype(np.float32))
        return self._boards[k]

    def table_texture(self, kind: str, k: int) -> TableTexture:
        if (kind, k) not in self._tables:
            rng = np.random.default_rng([self.seed, 202, self.cfg.table.kinds.index(kind), k])
            self._tables[(kind, k)] = make_table_texture(rng, kind, self.table_ppu)
        return self._tables[(kind, k)]

    def sprites(self, style: TileStyle) -> TileSprites:
        if style not in self._sprites:
            if len(self._sprites) > 8:
                self._sprites.clear()
            self._sprites[style] = TileSprites(style, self.ppc)
        return self._sprites[style]

    # -- sampling -------------------------------------------------------------------------
    def sample_setup(self, rng: np.random.Generator, board: bool = True,
                     quality: int | None = None) -> SceneSetup:
        cfg = self.cfg
        cam = sample_camera(rng, cfg.camera, self.width, self.height, board=board)
        weights = np.asarray(cfg.table.weights, np.float64)
        kind = cfg.table.kinds[int(rng.choice(len(cfg.table.kinds), p=weights / weights.sum()))]
        return SceneSetup(
            board=board, camera=cam, light=sample_light(rng, cfg.light),
            style=sample_style(rng, cfg.tiles),
            board_variant=int(rng.integers(cfg.board.textures_per_seed)),
            board_gain=rng.uniform(0.93, 1.07, 3).astype(np.float32),
            table_kind=kind, table_variant=int(rng.integers(2)),
            table_angle=float(rng.uniform(0, 360)),
            table_offset=(float(rng.uniform(-10, 10)), float(rng.uniform(-10, 10))),
            table_gain=rng.uniform(0.8, 1.2, 3).astype(np.float32),
            sensor=sample_sensor(rng, cfg.sensor, quality))

    # -- rendering ------------------------------------------------------------------------
    def _maps(self, cam: Camera) -> tuple[np.ndarray, int]:
        return cam.plane_map(4)

    def _upsample(self, coarse: np.ndarray, step: int) -> np.ndarray:
        gh, gw = coarse.shape[:2]
        big = cv2.resize(coarse, (gw * step, gh * step), interpolation=cv2.INTER_LINEAR)
        return big[:self.height, :self.width]

    def render(self, setup: SceneSetup, tiles: dict[str, TilePose], arms: list[Arm],
               rng: np.random.Generator, camera: Camera | None = None,
               exposure_scale: float = 1.0) -> tuple[np.ndarray, dict]:
        """A photo (BGR uint8) and its ground truth."""
        cam = camera or setup.camera
        w, h = self.width, self.height
        uv, step = cam.plane_map(4)
        light = setup.light

        # table, turned and shifted
        tex = self.table_texture(setup.table_kind, setup.table_variant)
        a = np.deg2rad(setup.table_angle)
        ca, sa = np.cos(a), np.sin(a)
        tu = (uv[..., 0] * ca - uv[..., 1] * sa + setup.table_offset[0] - tex.u0) * tex.ppu
        tv = (uv[..., 0] * sa + uv[..., 1] * ca + setup.table_offset[1] - tex.u0) * tex.ppu
        tmap = self._upsample(np.dstack([tu, tv]).astype(np.float32), step)
        img = cv2.remap(tex.image, tmap, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
        # light and shadows as one multiplicative gain, built at low resolution
        hw, hh = (w + 1) // 2, (h + 1) // 2
        shade = np.ones((uv.shape[0], uv.shape[1]), np.float32)

        truth: dict = {"board_found": setup.board}
        if setup.board:
            btex, bfloat = self.board_texture(setup.board_variant)
            canvas = bfloat * setup.board_gain
            self._draw_tiles(canvas, btex, tiles, setup, cam)
            bu = (uv[..., 0] - btex.u0) * btex.ppc
            bv = (uv[..., 1] - btex.v0) * btex.ppc
            bmap = self._upsample(np.dstack([bu, bv]).astype(np.float32), step)
            bh, bw = canvas.shape[:2]
            rgba = cv2.merge([*cv2.split(np.clip(canvas, 0, 255).astype(np.uint8)),
                              np.full((bh, bw), 255, np.uint8)])
            warped = cv2.remap(rgba, bmap, None, cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0)
            alpha = warped[..., 3].astype(np.float32) * (1 / 255.0)
            img = cv2.blendLinear(warped[..., :3], img, alpha, 1 - alpha)
            # soft board shadow on the table (outside the board, near the shifted rectangle)
            sd = np.array(light.shadow_dir) * (0.15 + light.shadow_len)
            u_, v_ = uv[..., 0], uv[..., 1]
            du = np.maximum(np.maximum(BOARD_U[0] + sd[0] - u_, u_ - BOARD_U[1] - sd[0]), 0)
            dv = np.maximum(np.maximum(BOARD_V[0] + sd[1] - v_, v_ - BOARD_V[1] - sd[1]), 0)
            on_board = ((u_ > BOARD_U[0]) & (u_ < BOARD_U[1]) & (v_ > BOARD_V[0])
                        & (v_ < BOARD_V[1]))
            shade *= np.where(on_board, 1.0, 1 - 0.45 * np.exp(-np.hypot(du, dv) / 0.25))
            truth.update(self._geometry_truth(cam, tiles))
            prints = self.cfg.board.prints
            # the board's print (a profile of calibration/prints/), or the given art's
            truth["print"] = ("given" if self.board_art is not None
                              else prints[setup.board_variant % len(prints)])
        else:
            alpha = None
            truth.update({"corners": None, "homography": None, "cells": {}, "rotations": {},
                          "tile_pose": {}, "centres": {}})

        gain = gain_map(light, hw, hh, exposure_scale)
        gain *= cv2.resize(self._upsample(shade, step)[::2, ::2], (hw, hh))[..., None]
        sprites = self.sprites(setup.style)
        colour, aalpha, ashadow = draw_arms(arms, w, h, sprites, light.shadow_dir,
                                            light.shadow_len)
        if arms:
            dark = float(np.mean(self.cfg.occluders.hand_shadow))
            # the arm is lit, not shadowed by itself
            gain *= (1 - dark * ashadow * (1 - aalpha))[..., None]
            af = cv2.resize(aalpha, (w, h), interpolation=cv2.INTER_LINEAR)
            cf = cv2.resize(colour, (w, h), interpolation=cv2.INTER_LINEAR)
            img = cv2.blendLinear(cf, img.astype(np.float32), af, 1 - af)
        img = cv2.multiply(img.astype(np.float32),
                           cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR))
        glare = glare_map(light, w, h)
        if glare is not None and alpha is not None:
            g = glare * (0.2 + 0.8 * alpha) * exposure_scale
            img = cv2.add(img, cv2.merge([g, g, g]))
        out = apply_sensor(img, setup.sensor, rng)

        hidden: list[str] = []
        partly: list[str] = []
        if setup.board and arms:
            hidden, partly = self._hidden(cam, aalpha)
        truth["hidden"] = hidden
        truth["partly_hidden"] = partly
        truth["arms"] = [arm.params() for arm in arms]
        truth["image_size"] = [w, h]
        truth["camera"] = cam.params(self.cfg.cell_mm)
        truth["light"] = light.params()
        truth["sensor"] = setup.sensor.params()
        truth["table"] = setup.table_kind
        truth["tile_style"] = {"colour_bgr": [round(c) for c in setup.style.colour],
                               "ceramic": setup.style.ceramic,
                               "size_cells": round(setup.style.size, 3),
                               "height_cells": round(setup.style.height, 3)}
        return out, truth

    def _draw_tiles(self, canvas: np.ndarray, btex: BoardTexture, tiles: dict[str, TilePose],
                    setup: SceneSetup, cam: Camera) -> None:
        if not tiles:
            return
        sprites = self.sprites(setup.style)
        ppc = btex.ppc
        hc = -float(cam.centre[2])
        th = setup.style.height
        ds = 2.0
        bh, bw = canvas.shape[:2]
        shadow = np.zeros((int(bh / ds) + 1, int(bw / ds) + 1), np.float32)
        light = setup.light
        sv = np.array(light.shadow_dir) * light.shadow_len * ppc
        scale = hc / (hc - th)
        order = sorted(tiles.items(), key=lambda kv: _cell_uv(kv[0])[1])
        placed = []
        for name, pose in order:
            u, v = _cell_uv(name)
            u += 0.5 + pose.du
            v += 0.5 + pose.dv
            shift = (np.array([u, v]) - cam.centre[:2]) * (th / (hc - th)) * ppc
            placed.append((pose, btex.to_px(u, v), (shift[0], shift[1])))
            draw_shadow(shadow, sprites, pose, btex.to_px(u, v), (sv[0], sv[1]), ds)
        sm = cv2.GaussianBlur(shadow, (0, 0), max(0.8, 0.06 * ppc / ds))
        sm = cv2.resize(sm, (bw, bh), interpolation=cv2.INTER_LINEAR)
        canvas *= (1 - light.shadow_dark * sm)[..., None]
        for pose, centre, shift in placed:
            draw_tile(canvas, sprites, pose, centre, shift, scale)

    def _geometry_truth(self, cam: Camera, tiles: dict[str, TilePose]) -> dict:
        corners = cam.project(GRID_CORNERS)
        g = np.array([[x, y] for y in range(16) for x in range(16)], np.float64)
        hom, _ = cv2.findHomography(g, cam.project(g), 0)
        names = sorted(tiles, key=reading_key)
        centres = cam.project(np.array([[_cell_uv(n)[0] + 0.5, _cell_uv(n)[1] + 0.5]
                                        for n in names])) if names else np.zeros((0, 2))
        return {
            "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in corners],
            "homography": [[round(float(x), 8) for x in row] for row in hom / hom[2, 2]],
            "cells": {n: tiles[n].value for n in names},
            "rotations": {n: tiles[n].quarter for n in names},
            "tile_pose": {n: [round(tiles[n].angle_deg, 2), round(tiles[n].du, 3),
                              round(tiles[n].dv, 3)] for n in names},
            "centres": {n: [round(float(p[0]), 2), round(float(p[1]), 2)]
                        for n, p in zip(names, centres, strict=True)},
        }

    def _hidden(self, cam: Camera, arm_alpha: np.ndarray) -> tuple[list[str], list[str]]:
        """Cells a hand or arm hides (at least ``hidden_fraction`` of the cell's 25
        sample points covered), and cells it covers only partly (some of the points,
        fewer than that: the cell counts as visible, its value is the truth)."""
        pts = (CELL_ORIGINS[:, None, :] + CELL_SAMPLES[None, :, :]).reshape(-1, 2)
        px = cam.project(pts) / 2.0
        ah, aw = arm_alpha.shape
        xi = np.clip(np.round(px[:, 0]).astype(int), 0, aw - 1)
        yi = np.clip(np.round(px[:, 1]).astype(int), 0, ah - 1)
        inside = (px[:, 0] >= 0) & (px[:, 0] < aw) & (px[:, 1] >= 0) & (px[:, 1] < ah)
        cover = ((arm_alpha[yi, xi] > 0.5) & inside).reshape(len(CELLS), -1).mean(axis=1)
        thr = self.cfg.occluders.hidden_fraction
        return ([CELL_NAMES[i] for i in np.nonzero(cover >= thr)[0]],
                [CELL_NAMES[i] for i in np.nonzero((cover > 0) & (cover < thr))[0]])


def _cell_uv(name: str) -> tuple[float, float]:
    col = ord(name[0]) - ord("A")
    row = int(name[1:]) - 1
    return float(col), float(row)


__all__ = ["Renderer", "SceneSetup", "TABLE_EXTENT"]
