"""The real board's print from the scan: its grid where grid units say, the grid fit
that made it, and the renderer drawing the same scenes on it."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from zatre_vision.synth.board_art import BOARD_U, BOARD_V
from zatre_vision.synth.config import SynthConfig
from zatre_vision.synth.scanned_board import (
    ScanError,
    ScanGrid,
    fit_scan_grid,
    load_scan,
    scan_corners,
    scanned_board_texture,
)
from zatre_vision.synth.scene import Renderer
from zatre_vision.synth.tiles import sample_pose
from zatre_vision.vision.geometry import GRID_CORNERS, GRID_EDGES

PPC = 40.0


@pytest.fixture(scope="module")
def texture():
    return scanned_board_texture(PPC)


def _line_brightness(grey: np.ndarray, u0: float, v0: float, u1: float, v1: float,
                     across: float = 0.0) -> float:
    """Median over a segment of the brightest pixel in 3 x 3 (grid units -> texture
    pixels), the segment moved ``across`` cells off the line."""
    vertical = u0 == u1
    vals = []
    for t in np.linspace(0.2, 0.8, 7):
        u = u0 + (u1 - u0) * t + (across if vertical else 0.0)
        v = v0 + (v1 - v0) * t + (0.0 if vertical else across)
        x, y = int(round((u - BOARD_U[0]) * PPC)), int(round((v - BOARD_V[0]) * PPC))
        vals.append(grey[y - 1:y + 2, x - 1:x + 2].max())
    return float(np.median(vals))


def test_the_texture_covers_the_cardboard(texture):
    h, w = texture.image.shape[:2]
    assert w == round((BOARD_U[1] - BOARD_U[0]) * PPC)
    assert h == round((BOARD_V[1] - BOARD_V[0]) * PPC)
    assert texture.to_px(0.0, 0.0) == pytest.approx((-BOARD_U[0] * PPC, -BOARD_V[0] * PPC))


def test_every_grid_line_of_the_scan_lies_on_its_grid_units(texture):
    grey = cv2.cvtColor(texture.image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    on = np.array([_line_brightness(grey, *e) for e in GRID_EDGES])
    # the darker side (the other may be a light cell)
    beside = np.array([min(_line_brightness(grey, *e, across=d) for d in (-0.15, 0.15))
                       for e in GRID_EDGES])
    assert np.mean(on > 120) > 0.97                       # the print's white lines
    assert np.mean(on > beside + 60) > 0.97               # ... exactly there, not beside


def test_the_gaps_outer_edges_are_not_printed(texture):
    """H1, H15, A8 and O8 do not exist: the real print has no line on their outer side
    (as the layout and the drawn boards say)."""
    grey = cv2.cvtColor(texture.image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    for edge in ((7, 0, 8, 0), (7, 15, 8, 15), (0, 7, 0, 8), (15, 7, 15, 8)):
        assert _line_brightness(grey, *edge) < 100, edge
    assert _line_brightness(grey, 7, 1, 8, 1) > 120       # H1 | H2: H2 exists


def test_fit_scan_grid_recovers_a_known_warp(texture):
    """The texture (grid known exactly) warped by a known homography, fitted from
    corners a fifth of a cell off: the fitted grid's corners land within 0.05 cell."""
    src = (GRID_CORNERS - [BOARD_U[0], BOARD_V[0]]) * PPC
    dst = src * 1.1 + [[30, 10], [-25, 40], [20, -15], [-10, 5]]
    hom = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
    h, w = texture.image.shape[:2]
    scan = cv2.warpPerspective(texture.image, hom, (int(w * 1.15), int(h * 1.15)))
    grey = cv2.cvtColor(scan, cv2.COLOR_BGR2GRAY)
    cell = PPC * 1.1
    start = dst + np.array([[0.2, -0.2], [-0.2, 0.2], [0.2, 0.2], [-0.2, -0.2]]) * cell
    grid, report = fit_scan_grid(grey, start)
    corners = scan_corners(grid, start)
    assert np.abs(corners - dst).max() < 0.05 * cell
    assert report["residual_cells_median"] < 0.02
    assert report["kept"] > 0.5 * report["samples"]


def test_the_stored_grid_file_names_its_corners():
    img, grid, corners = load_scan()
    assert img.ndim == 3 and min(img.shape[:2]) > 1000
    uv = grid.to_grid(corners)
    assert np.abs(uv - GRID_CORNERS).max() < 1e-6


def test_a_broken_grid_file_is_a_clear_error(tmp_path):
    with pytest.raises(ScanError, match="coefficients"):
        ScanGrid.from_dict({"degree": 3, "centre": [0, 0], "scale": 1.0,
                            "u_coef": [1.0, 2.0], "v_coef": [1.0, 2.0]})
    bad = tmp_path / "grid.json"
    bad.write_text(json.dumps({"corners": [[0, 0]]}))
    with pytest.raises(ScanError, match="grid"):
        load_scan(grid_path=bad)
    with pytest.raises(ScanError, match="cannot read"):
        load_scan(image_path=tmp_path / "missing.jpg")


def test_the_renderer_draws_the_same_scene_on_the_scanned_board():
    cfg = SynthConfig()
    photos = []
    for art in (None, scanned_board_texture):
        r = Renderer(cfg, 5, 320, 240, board_art=art)
        rng = np.random.default_rng([5, 1])
        setup = r.sample_setup(rng)
        tiles = {"H8": sample_pose(rng, cfg.tiles, 3)}
        photos.append(r.render(setup, tiles, [], rng))
    (drawn, truth_drawn), (scanned, truth_scanned) = photos
    assert truth_drawn["corners"] == truth_scanned["corners"]
    assert truth_drawn["cells"] == truth_scanned["cells"] == {"H8": 3}
    assert np.abs(drawn.astype(int) - scanned.astype(int)).mean() > 2   # other print
