"""A photo streaked (or blurred) past its pips is held back from fewer doubtful cells
(``doubtful_frame_streaked`` instead of ``doubtful_frame``): there the network is sure of tiles
it cannot see. A streak is told by ``weakest_direction_sharpness`` of the crops, which
it flattens, while the mean |Laplacian| (``sharpness``) stays high along it."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from zatre_vision.vision.geometry import CELL_NAMES
from zatre_vision.vision.reading.cell_evidence import sharpness, weakest_direction_sharpness
from zatre_vision.vision.reading.cells import CROP, crops, model_maps, normalise, rectify_board

from .cell_probs import RULES, TILE, decided, frame_with_doubts, grained_dark_crops

N = len(CELL_NAMES)
STREAKED_BELOW = RULES.streaked_below


def _streaked() -> np.ndarray:
    """The same cells smeared flat along their rows, as a sideways streak does."""
    g = grained_dark_crops()
    return np.repeat(g.mean(axis=2, keepdims=True), CROP, axis=2)


def test_the_measures_tell_the_two_boards_apart():
    assert weakest_direction_sharpness(grained_dark_crops()) >= STREAKED_BELOW
    assert weakest_direction_sharpness(_streaked()) < STREAKED_BELOW


def test_a_streaked_frame_is_held_back_from_fewer_doubts(reader):
    cfg = reader.config
    n = cfg.doubtful_frame_streaked
    assert n < cfg.doubtful_frame
    streaked = decided(_streaked(), frame_with_doubts(n), cfg)
    assert streaked.doubtful_frame and streaked.cells == {}
    assert len(streaked.uncertain) == N
    # the same doubts on a sharp photo leave the sure tile read
    sharp = decided(grained_dark_crops(), frame_with_doubts(n), cfg)
    assert not sharp.doubtful_frame and sharp.cells == {CELL_NAMES[TILE]: 4}
    # and one doubt fewer on the streaked photo too
    fewer = decided(_streaked(), frame_with_doubts(n - 1), cfg)
    assert not fewer.doubtful_frame and fewer.cells == {CELL_NAMES[TILE]: 4}


@settings(max_examples=20, deadline=None)
@given(st.integers(0, RULES.doubtful_frame + 3), st.booleans())
def test_held_back_exactly_when_the_rule_says(doubtful, streak):
    res = decided(_streaked() if streak else grained_dark_crops(), frame_with_doubts(doubtful))
    bar = RULES.doubtful_frame_streaked if streak else RULES.doubtful_frame
    assert res.doubtful_frame == (doubtful >= bar)
    assert (res.cells == {}) == res.doubtful_frame


def test_a_streak_on_a_real_photo_shows_in_the_weakest_direction(photos, reader):
    """A sideways camera-shake streak over a rendered board: the old measure still calls
    the board sharp, the weakest direction does not."""
    path, _ = photos["full"]
    image = cv2.imread(str(path))
    model = reader.read(image).model
    streak = np.zeros((9, 9), np.float32)
    streak[4, :] = 1 / 9

    def board_and_crops(img):
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        board = normalise(rectify_board(grey, model_maps(model), model.cell_size_px()))
        return board, crops(board)

    board, cr = board_and_crops(image)
    assert weakest_direction_sharpness(cr) >= STREAKED_BELOW
    board, cr = board_and_crops(cv2.filter2D(image, -1, streak))
    assert weakest_direction_sharpness(cr) < STREAKED_BELOW
    assert sharpness(board) >= RULES.sharp_enough
