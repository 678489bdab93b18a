"""The reader on the real board's print (the scan in synth/data), not the drawn boards
its models learned from: the flat scan itself, the scan as a tilted, turned photo
under uneven light, and a rendered scene with tiles and a hand on the real print."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from zatre_vision.synth.config import SynthConfig
from zatre_vision.synth.occluders import sample_arm, sample_look
from zatre_vision.synth.scanned_board import load_scan, scanned_board_texture
from zatre_vision.synth.scene import Renderer
from zatre_vision.synth.tiles import sample_pose
from zatre_vision.vision.geometry import CELL_NAMES
from zatre_vision.vision.location.find_board import corner_gap_cells


def _gap(found: list, truth: np.ndarray) -> float:
    cell = float(np.linalg.norm(truth[1] - truth[0])) / 15.0
    return corner_gap_cells(np.asarray(found, np.float64), truth, cell)


def test_the_flat_scan_of_the_real_board_is_found_and_read_empty(reader):
    img, _, corners = load_scan()
    res = reader.read(img)
    assert res.board_found
    # the scan fills the frame, with no table round it: the print-world board network
    # puts one corner 2.8 cells off there, and the classical search finds the board
    # with its top-right corner 0.2 cells off (OpenCV 5) or 0.55 (OpenCV 4.11, the Pi's
    # Bookworm); the network before it: under 0.15 (docs/known-limits.md). Every cell
    # is still read right, none left in doubt
    assert _gap(res.corners, corners) < 0.6
    assert res.cells == {} and res.uncertain == []


def _photo_of_the_scan(roll_deg: float, tilt: float) -> tuple[np.ndarray, np.ndarray]:
    """The scan on a plain table, turned by ``roll_deg`` and foreshortened (the far
    edge ``tilt`` times the near one), lit from one side; and its grid corners."""
    img, _, corners = load_scan()
    h, w = img.shape[:2]
    size = (1280, 960)
    a = np.deg2rad(roll_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    quad = (src - [w / 2, h / 2]) * 0.62
    quad[:2, 0] *= tilt                                   # far edge shorter
    dst = quad @ rot.T + [size[0] / 2, size[1] / 2]
    hom = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
    table = np.zeros((size[1], size[0], 3), np.uint8)
    table[:] = (70, 110, 150)                             # wood brown
    board = cv2.warpPerspective(img, hom, size)
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), hom, size) > 0
    photo = np.where(mask[..., None], board, table).astype(np.float32)
    light = np.linspace(0.55, 1.25, size[0], dtype=np.float32)[None, :, None]
    photo = np.clip(photo * light, 0, 255).astype(np.uint8)
    ok, jpeg = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    truth = cv2.perspectiveTransform(corners[None].astype(np.float64), hom)[0]
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR), truth


@pytest.mark.parametrize("roll_deg,tilt", [(0.0, 1.0), (30.0, 0.8), (-45.0, 0.75)])
def test_a_photo_of_the_real_board_turned_tilted_and_unevenly_lit(reader, roll_deg, tilt):
    photo, truth = _photo_of_the_scan(roll_deg, tilt)
    res = reader.read(photo)
    assert res.board_found
    assert _gap(res.corners, truth) < 0.3
    assert res.cells == {}


def test_tiles_and_a_hand_on_the_real_print(reader):
    """A rendered scene (tiles, an arm, camera, light) on the real print: every tile
    read is read right, and most are read."""
    cfg = SynthConfig()
    size = (960, 720)
    r = Renderer(cfg, 31, *size, board_art=scanned_board_texture)
    rng = np.random.default_rng([31, 7])
    setup = r.sample_setup(rng)
    names = [CELL_NAMES[i] for i in rng.choice(len(CELL_NAMES), 40, replace=False)]
    tiles = {n: sample_pose(rng, cfg.tiles, int(rng.integers(1, 7))) for n in names}
    cam = setup.camera
    target = cam.project(np.array([[3.5, 11.5]]))[0]
    arms = [sample_arm(rng, cfg.occluders, *size, tuple(target), cam.cell_size_px(3.5, 11.5),
                       1.0, None, side=3, look=sample_look(rng, cfg.occluders))]
    img, truth = r.render(setup, tiles, arms, rng)
    res = reader.read(img)
    assert res.board_found
    assert _gap(res.corners, np.array(truth["corners"])) < 0.3
    hidden = set(truth["hidden"])
    visible_tiles = {n: v for n, v in truth["cells"].items() if n not in hidden}
    assert {n: v for n, v in res.cells.items() if n not in hidden} == {
        n: v for n, v in visible_tiles.items() if n in res.cells}
    assert all(n in visible_tiles or n in hidden for n in res.cells)   # no tile invented
    assert len(set(res.cells) & set(visible_tiles)) >= 0.9 * len(visible_tiles)
