"""Cell crops with labels, cut from photos of the synthetic renderer (in process).

Each photo comes from ``synth.photos.render_photo`` (simulated games, hands, light,
lens, JPEG). Crops are cut exactly like the reader cuts them, through the true
camera model (homography plus lens distortion from the truth) slightly jittered, so
the classifier learns to tolerate the locator's small errors. Labels: 0 empty, 1..6
pips, 7 occluded (a hand covers the cell, from the truth's ``hidden`` list). Each crop
also keeps the index of its cell (``CELL_NAMES`` order), from which the cell's printed
kind (light x2 cell or dark cell) is known.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..vision.geometry import CELL_NAMES
from ..vision.reading.cells import CROP, CROP_ORIGINS, crops, maps_from, normalise, rectify_board
from .chunks import chunk_jobs, concatenate, render_parts

OCCLUDED = 7
SIZES = ((960, 720), (1280, 960), (640, 480))
SIZE_WEIGHTS = (0.5, 0.3, 0.2)


@dataclass(frozen=True)
class DataSpec:
    seed: int
    photos: int
    wide: bool = False
    keep_empty: float = 0.3
    jitter_cells: float = 0.1
    #: marble boards drawn for the whole run (``BoardConfig.textures_per_seed``)
    textures: int = 3
    #: ``TileConfig.makers_probability`` and ``BoardConfig.prints``
    makers: float = 0.0
    prints: tuple[str, ...] = ("peri",)
    #: the renderer's ranges by name (``worlds.world_config``; ``wide`` overrides it)
    world: str = "default"

    def synth_config(self):
        from dataclasses import replace

        from ..synth.config import SynthConfig
        from .worlds import world_config

        cfg = SynthConfig.wide() if self.wide else world_config(self.world)
        return replace(cfg, board=replace(cfg.board, textures_per_seed=self.textures,
                                          prints=tuple(self.prints)),
                       tiles=replace(cfg.tiles, makers_probability=self.makers))


def truth_projector(truth: dict):
    """grid units -> image pixels, exactly as the renderer projected them (lens included).

    The truth's ``homography`` is a plane fit to already distorted points, so the camera
    is rebuilt from the truth's camera parameters instead.
    """
    from ..synth.camera import Camera, _pose

    cam = truth["camera"]
    w, h = truth["image_size"]
    rot = _pose(np.deg2rad(cam["tilt_deg"]), np.deg2rad(cam["azimuth_deg"]),
                np.deg2rad(cam["roll_deg"]))
    camera = Camera(int(w), int(h), float(cam["f_px"]), float(cam["cx"]), float(cam["cy"]),
                    float(cam["k1"]), float(cam["k2"]), rot,
                    np.asarray(cam["centre_grid"], np.float64), cam["lens"],
                    float(cam["tilt_deg"]), float(cam["azimuth_deg"]), float(cam["roll_deg"]))
    return camera.project


def jittered(project, rng: np.random.Generator, amount: float):
    """``project`` after a small random similarity of the grid (locator error)."""
    a = np.deg2rad(rng.normal(0, 0.3))
    s = 1 + rng.normal(0, 0.004)
    t = rng.normal(0, amount, 2)
    rot = s * np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])

    def fn(uv: np.ndarray) -> np.ndarray:
        return project((uv - 7.5) @ rot.T + 7.5 + t)

    return fn


def labels_of(truth: dict) -> np.ndarray:
    hidden = set(truth.get("hidden", []))
    cells = truth.get("cells", {})
    return np.array([OCCLUDED if n in hidden else int(cells.get(n, 0)) for n in CELL_NAMES],
                    np.int64)


def photo_crops(img: np.ndarray, truth: dict, rng: np.random.Generator,
                jitter_cells: float) -> tuple[np.ndarray, np.ndarray]:
    """Normalised crops (193, CROP, CROP) float32 and labels of one photo with a board."""
    proj = truth_projector(truth)
    maps = maps_from(jittered(proj, rng, jitter_cells))
    c = proj(np.array([[6.5, 7.5], [8.5, 7.5]]))
    cell_px = float(np.linalg.norm(c[1] - c[0]) / 2)
    board = normalise(rectify_board(img, maps, cell_px))
    origins = CROP_ORIGINS + rng.integers(-1, 2, CROP_ORIGINS.shape)
    return crops(board, origins).astype(np.float32), labels_of(truth)


def _work(args: tuple[DataSpec, int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from ..synth.photos import render_photo
    from ..synth.scene import Renderer

    spec, start, stop = args
    cv2.setNumThreads(1)
    cfg = spec.synth_config()
    renderers: dict[tuple[int, int], Renderer] = {}
    games: dict[tuple[int, int], dict] = {}
    xs, ys, cs = [], [], []
    for i in range(start, stop):
        rng = np.random.default_rng([spec.seed, 77, i])
        size = SIZES[int(rng.choice(len(SIZES), p=SIZE_WEIGHTS))]
        if size not in renderers:
            renderers[size] = Renderer(cfg, spec.seed, *size)
            games[size] = {}
        jpeg, truth = render_photo(renderers[size], cfg, spec.seed, i, games[size])
        if not truth.get("board_found"):
            continue
        img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        x, y = photo_crops(img, truth, rng, spec.jitter_cells)
        keep = (y != 0) | (rng.random(len(y)) < spec.keep_empty)
        xs.append((np.clip(x[keep], 0, 2) * 100).astype(np.uint8))
        ys.append(y[keep])
        cs.append(np.flatnonzero(keep).astype(np.uint8))
    if not xs:
        return np.zeros((0, CROP, CROP), np.uint8), np.zeros(0, np.int64), np.zeros(0, np.uint8)
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(cs)


def build(spec: DataSpec, workers: int = 2, chunk: int = 25, progress=None,
          folder: Path | None = None, loaded=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All crops (uint8, value = normalised * 100), their labels and their cells' indices
    (``CELL_NAMES`` order) for ``spec``; ``progress(photos)`` after each chunk. With
    ``folder``, each chunk of ``chunk`` photos is kept there and reused by a later run
    (``chunks.render_parts``: the same arrays as rendering it all in one go)."""
    jobs = chunk_jobs(spec, 0, spec.photos, chunk)
    return concatenate(render_parts(_work, jobs, workers, folder, progress, loaded))
