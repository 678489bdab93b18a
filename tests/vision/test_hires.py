"""Doubtful cells read again from the frame at its own resolution (vision/reading/hires.py), on
real rendered photos."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from zatre_vision.synth.config import LensConfig, SynthConfig
from zatre_vision.synth.scene import Renderer
from zatre_vision.synth.tiles import sample_pose
from zatre_vision.vision.geometry import CELL_NAMES
from zatre_vision.vision.reading.cells import crops, model_maps, normalise, rectify_board
from zatre_vision.vision.reading.classify import PipClassifier
from zatre_vision.vision.reading.hires import HiresReader


def _close_board(seed: int, size=(1280, 960)):
    """A photo whose grid fills most of the frame (about 50 px per cell at 1280 x 960),
    every cell with a tile, no hand; its truth; the true grid model."""
    cfg = SynthConfig()
    lens = LensConfig("no distortion", (50.0, 57.0), (0.0, 0.0), (0.0, 0.0))
    cfg = replace(cfg, camera=replace(cfg.camera, fill=(0.85, 0.9), tilt_deg=(0.0, 10.0),
                                      centre_offset=(-0.3, 0.3), lenses=(lens,),
                                      lens_weights=(1.0,)),
                  sensor=replace(cfg.sensor, defocus_probability=0.0,
                                 motion_probability=0.0))
    r = Renderer(cfg, 4343, *size)
    rng = np.random.default_rng([4343, seed])
    setup = r.sample_setup(rng)
    tiles = {n: sample_pose(rng, cfg.tiles, int(rng.integers(1, 7))) for n in CELL_NAMES}
    img, truth = r.render(setup, tiles, [], rng)
    from zatre_vision.training.dataset import truth_projector
    from zatre_vision.vision.geometry import GridModel

    proj = truth_projector(truth)
    uv = np.array([[0, 0], [15, 0], [15, 15], [0, 15], [7.5, 7.5], [3, 11], [12, 4],
                   [5, 5], [10, 10]], np.float64)
    import cv2

    hom, _ = cv2.findHomography(uv, proj(uv))
    model = GridModel(hom, 0.0, size[0], size[1])
    return img, truth, model


@pytest.fixture(scope="module")
def close_board():
    return _close_board(1)


def test_factor_follows_the_pixels_per_cell(close_board):
    img, _, model = close_board
    h = HiresReader()
    assert model.cell_size_px() > 40
    assert h.factor(model) >= 2
    assert h.factor(model.scaled(0.4)) == 0          # under 40 px per cell: nothing to gain


def test_hires_crops_line_up_with_the_readers_crops(close_board):
    img, _, model = close_board
    board = normalise(rectify_board(img, model_maps(model), model.cell_size_px()))
    std = crops(board)
    cells = np.arange(len(CELL_NAMES))
    raw = HiresReader().crops(img, model, cells, 2)
    scale = np.median(std.reshape(193, -1).mean(1) / raw.reshape(193, -1).mean(1))
    hi = raw * scale
    # the same pixels: best agreement with no shift, clearly worse one pixel off
    def diff(dx: int, dy: int) -> float:
        a = hi[:, 2:-2, 2:-2]
        b = np.roll(std, (dy, dx), axis=(1, 2))[:, 2:-2, 2:-2]
        return float(np.abs(a - b).mean())
    d0 = diff(0, 0)
    assert d0 < 0.06
    assert all(diff(dx, dy) > 1.5 * d0 for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))


def test_a_doubtful_board_read_at_high_resolution_comes_out_right(close_board):
    img, truth, model = close_board
    clf = PipClassifier()
    board = normalise(rectify_board(img, model_maps(model), model.cell_size_px()))
    cr = crops(board)
    # every cell doubted: the reading is the high-resolution one alone
    flat = np.full((193, 8), 1 / 8)
    h = HiresReader(weight=1.0)
    probs = h.reread(clf, img, model, 1.0, flat, cr)
    assert h.last_cells == 193 and h.last_factor >= 2
    want = np.array([truth["cells"].get(n, 0) for n in CELL_NAMES])
    assert (probs.argmax(axis=1) == want).mean() >= 0.97
    # a frame twice as large, read through a work image of half its size: the same
    import cv2

    big = cv2.resize(img, (2560, 1920), interpolation=cv2.INTER_CUBIC)
    probs2 = HiresReader(weight=1.0).reread(clf, big, model, 0.5, flat, cr)
    assert (probs2.argmax(axis=1) == want).mean() >= 0.97


def test_sure_cells_and_small_boards_are_left_alone(close_board):
    img, _, model = close_board
    clf = PipClassifier()
    sure = np.zeros((193, 8))
    sure[:, 0] = 1.0
    cr = np.ones((193, 24, 24), np.float32)
    h = HiresReader()
    assert h.reread(clf, img, model, 1.0, sure, cr) is sure and h.last_cells == 0
    small = model.scaled(0.4)
    flat = np.full((193, 8), 1 / 8)
    assert h.reread(clf, img, small, 1.0, flat, cr) is flat
