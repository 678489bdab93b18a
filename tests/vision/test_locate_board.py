"""``location.locate_board``, the one entry point of board location: one frame in,
candidate fits and where they came from out, through the package's public names only."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from zatre_vision.vision.location import (
    BoardFits,
    BoardLocator,
    GridModel,
    locate_board,
    make_calibration,
)
from zatre_vision.vision.reader import work_image

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def frame() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The hand photo as the reader works on it, its grey copy, and the true corners
    in work pixels."""
    image = cv2.imread(str(DATA / "hand-7001-67.jpg"), cv2.IMREAD_COLOR)
    truth = json.loads((DATA / "hand-7001-67.json").read_text())
    work, f = work_image(image)
    return work, cv2.cvtColor(work, cv2.COLOR_BGR2GRAY), np.array(truth["corners"]) * f


@pytest.fixture(scope="module")
def locator() -> BoardLocator:
    return BoardLocator()


def test_the_search_finds_the_board_and_says_how(frame, locator):
    work, grey, corners = frame
    fits = locate_board(work, grey, locator)
    assert isinstance(fits, BoardFits)
    assert fits.source in ("locate:net", "locate:texture", "locate:classical")
    model, score = fits.candidates[0]
    assert isinstance(model, GridModel) and score > 0.35
    cell = np.linalg.norm(corners[1] - corners[0]) / 15
    assert np.abs(model.corners() - corners).max() < 0.5 * cell
    assert [s for _, s in fits.candidates] == sorted((s for _, s in fits.candidates),
                                                     reverse=True)


def test_a_calibration_that_still_fits_is_taken_as_it_stands(frame, locator):
    work, grey, _ = frame
    model, _ = locate_board(work, grey, locator).candidates[0]
    calibration = make_calibration(work, model)
    fits = locate_board(work, grey, locator, calibration=calibration)
    assert fits.source == "calibration" and len(fits.candidates) == 1
    h, w = work.shape[:2]
    np.testing.assert_allclose(fits.candidates[0][0].corners(),
                               calibration.model_for(w, h).corners())
    # a blank frame: the board has moved, and the search finds none
    blank = np.full_like(work, 90)
    moved = locate_board(blank, cv2.cvtColor(blank, cv2.COLOR_BGR2GRAY), locator,
                         calibration=calibration)
    assert moved.source.startswith("locate:") and moved.candidates == []
