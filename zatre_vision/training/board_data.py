"""Training pairs for the board finder: small photos and where the grid is in them.

Photos come from ``synth.photos.render_photo`` rendered directly at ``RENDER_SIZE``
(the renderer scales blur and noise with the frame), then reduced to the network's
input exactly as the reader reduces a camera frame (``vision.location.net_input``).
Targets, at half the input resolution:

- ``mask``: the fraction of each pixel inside the outer outline of the 15 x 15 grid,
  hands and tiles included (the network learns to see the board through an arm);
- ``corners``: a Gaussian bump (sigma ``CORNER_SIGMA`` px) on each of the four outer
  grid corners, whether visible or not.

The outline follows the lens distortion of the truth camera, so a wide lens's bent
edges are taught as they appear.

The renderer's ranges are the spec's ``world`` (``worlds.py``): ``make models`` asks for
the widened one the pip classifier learns from (other makers' tiles, hands, the grid at
the frame's edge, real-room light and lenses).

The boards show every training print (``calibration/prints/``, the profiles not held
out; ``board_prints``), each on ``TEXTURES_PER_PRINT`` drawn boards, unless the spec
names its prints: a new edition's profile joins the next training run by itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..board_prints import load_prints, training_print_names
from ..synth.print_world import WORLD
from ..vision.location import INPUT_H, INPUT_W, OUT_STRIDE, net_input
from .chunks import chunk_jobs, concatenate, render_parts
from .dataset import truth_projector

RENDER_SIZE = (448, 336)
CORNER_SIGMA = 1.2
#: the outline is drawn this many times finer, then averaged down (soft edges)
SUPER = 4
#: drawn boards per print in one run (board variant k shows print k mod the prints)
TEXTURES_PER_PRINT = 2


@dataclass(frozen=True)
class BoardDataSpec:
    seed: int
    photos: int
    wide: bool = False
    #: the prints the boards show; None: every training print's profile. "world"
    #: (``synth.print_world.WORLD``): a new print of the print world on each board
    prints: tuple[str, ...] | None = None
    #: the renderer's ranges by name (``worlds.world_config``; ``wide`` overrides it)
    world: str = "default"

    def print_names(self) -> tuple[str, ...]:
        """The prints drawn, in order (held-out prints are refused)."""
        profiles = load_prints()
        names = tuple(self.prints) if self.prints is not None else training_print_names(profiles)
        bad = [n for n in names if n != WORLD and (n not in profiles or profiles[n].held_out)]
        if not names or bad:
            raise ValueError(f"board data: unknown or held-out print(s) {bad or names!r} "
                             f"(training prints: {', '.join(training_print_names(profiles))})")
        return names


def synth_config(spec: BoardDataSpec):
    """The renderer's settings for ``spec``: its ranges, with its prints."""
    from dataclasses import replace

    from ..synth.config import SynthConfig
    from .worlds import world_config

    cfg = SynthConfig.wide() if spec.wide else world_config(spec.world)
    names = spec.print_names()
    return replace(cfg, board=replace(cfg.board, prints=names, textures_per_seed=max(
        cfg.board.textures_per_seed, TEXTURES_PER_PRINT * len(names))))


def outline_px(truth: dict, per_side: int = 32) -> np.ndarray:
    """Image points (4 * per_side, 2) along the outer grid outline, clockwise from TL."""
    project = truth_projector(truth)
    t = np.linspace(0.0, 15.0, per_side, endpoint=False)
    z = np.zeros_like(t)
    uv = np.concatenate([np.stack([t, z], 1), np.stack([z + 15, t], 1),
                         np.stack([15 - t, z + 15], 1), np.stack([z, 15 - t], 1)])
    return project(uv)


def targets(truth: dict, scale: float, pad: tuple[float, float]) -> np.ndarray:
    """(2, H/OUT_STRIDE, W/OUT_STRIDE) float32: grid mask and corner heat map.

    ``scale`` and ``pad`` are those ``net_input`` applied to the photo.
    """
    oh, ow = INPUT_H // OUT_STRIDE, INPUT_W // OUT_STRIDE
    out = np.zeros((2, oh, ow), np.float32)
    if not truth.get("board_found"):
        return out
    # pixel-edge coordinates (a pixel spans [i, i + 1)) scale by plain multiplication
    f = scale / OUT_STRIDE
    offset = np.array(pad) / OUT_STRIDE
    poly = (outline_px(truth) + 0.5) * f + offset
    big = np.zeros((oh * SUPER, ow * SUPER), np.uint8)
    pts = np.round((poly * SUPER - 0.5) * 16).astype(np.int32)  # 4 fractional bits
    cv2.fillPoly(big, [pts], 255, lineType=cv2.LINE_AA, shift=4)
    out[0] = cv2.resize(big, (ow, oh), interpolation=cv2.INTER_AREA) / 255.0
    corners = (np.asarray(truth["corners"], np.float64) + 0.5) * f + offset
    yy, xx = np.mgrid[0:oh, 0:ow].astype(np.float64)
    heat = np.zeros((oh, ow))
    for cx, cy in corners - 0.5:
        heat = np.maximum(heat, np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2)
                                       / (2 * CORNER_SIGMA ** 2)))
    out[1] = heat
    return out


def _work(args: tuple[BoardDataSpec, int, int]) -> tuple[np.ndarray, np.ndarray]:
    from ..synth.photos import render_photo
    from ..synth.scene import Renderer

    spec, start, stop = args
    cv2.setNumThreads(1)
    cfg = synth_config(spec)
    renderer = Renderer(cfg, spec.seed, *RENDER_SIZE)
    games: dict = {}
    xs, ys, cs = [], [], []
    for i in range(start, stop):
        jpeg, truth = render_photo(renderer, cfg, spec.seed, i, games)
        img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        x, scale, pad = net_input(img)
        xs.append(x)
        ys.append(targets(truth, scale, pad))
        cs.append(np.asarray(truth["corners"], np.float32) if truth.get("board_found")
                  else np.full((4, 2), np.nan, np.float32))
    return np.stack(xs), np.stack(ys), np.stack(cs)


def _work_stored(args: tuple[BoardDataSpec, int, int]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``_work`` with the targets as they are kept (float16)."""
    x, y, c = _work(args)
    return x, y.astype(np.float16), c


def build(spec: BoardDataSpec, workers: int = 2, chunk: int = 50, progress=None,
          folder: Path | None = None, loaded=None
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inputs (N, 3, H, W) uint8, targets (N, 2, H/2, W/2) float16 and the true grid
    corners (N, 4, 2) in rendered-frame pixels (NaN without a board) for ``spec``. With
    ``folder``, each chunk of ``chunk`` photos is kept there and reused by a later run
    (``chunks.render_parts``)."""
    jobs = chunk_jobs(spec, 1, spec.photos + 1, chunk)
    return concatenate(render_parts(_work_stored, jobs, workers, folder, progress, loaded))
