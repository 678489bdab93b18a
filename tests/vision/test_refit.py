"""Fits that settle wrong are fitted again: a network fit bent at one quarter
(``Frame.net_fit``, ``find_board.settled_fit``, SETTLED_QUARTER) and the classical
search's fit (the shared ``pipeline.refine``'s ``line_refit``)."""

from __future__ import annotations

import cv2
import numpy as np

import zatre_vision.vision.location.find_board as fb
from zatre_vision.vision.location import Candidate, Frame, LocateFallbacks, refine
from zatre_vision.vision.location.board_net import BoardOutline
from zatre_vision.vision.location.find_board import corner_gap_cells
from zatre_vision.vision.location.grid_fit import FitResult, plain_model, shifted
from zatre_vision.vision.location.locate import to_grey


def _photo(photos, name="some"):
    path, truth = photos[name]
    corners = np.asarray(truth["corners"], np.float64)
    cell = float(np.linalg.norm(corners[1] - corners[0])) / 15
    return to_grey(cv2.imread(str(path))), corners, cell


def _true_model(grey, corners):
    fit = fb.fit_from_corners(grey, corners)
    assert fit is not None
    return fit.model


def test_a_search_result_a_cell_off_is_refitted_onto_the_grid(photos):
    grey, corners, cell = _photo(photos)
    off = shifted(_true_model(grey, corners), 1.0, 1.0)
    assert corner_gap_cells(off.corners(), corners, cell) > 1.0
    searched = Candidate(off, 0.3, "line_search")
    refit = refine(grey, searched, LocateFallbacks())
    assert refit.score > 0.3 and refit.proposer == "line_search"
    assert corner_gap_cells(refit.model.corners(), corners, cell) < 0.3
    assert refit.fit is not None and refit.fit.model is refit.model
    # switched off (the committed card), the search's grid is taken as it stands
    assert refine(grey, searched, LocateFallbacks().without("line_refit")) is searched


def test_a_search_result_with_clearer_lines_than_its_refit_is_kept(photos):
    grey, corners, _ = _photo(photos)
    model = _true_model(grey, corners)
    searched = Candidate(model, 0.99, "line_search")
    assert refine(grey, searched, LocateFallbacks()) is searched


class _Finder:
    """A board network that sees ``outline``."""

    def __init__(self, outline: BoardOutline):
        self.outline = outline

    def find(self, image):
        return self.outline


def _net_fit(outline: BoardOutline) -> FitResult | None:
    """The network's fit (``Frame.net_fit``) from ``outline`` in a blank frame."""
    blank = np.zeros((600, 800), np.uint8)
    return Frame(blank, blank, _Finder(outline)).net_fit


def _fake_fit(score: float, quarters: tuple[float, ...], tag: float) -> FitResult:
    model = plain_model(np.array([[0, 0], [150, 0], [150, 150], [0, 150]]) + tag, 800, 600)
    return FitResult(model, score, quarters, (0, 0))


def test_a_good_fit_with_a_weak_quarter_is_fitted_again_from_its_corners(monkeypatch):
    """Fit 1 is good (score 0.8, worst quarter 0.55) but not settled; fit 2 from its
    corners is settled and ends the search; no third fit."""
    fits = [_fake_fit(0.8, (0.9, 0.9, 0.9, 0.55), 1.0), _fake_fit(0.85, (0.8, 0.8, 0.8, 0.8), 2.0),
            _fake_fit(0.9, (0.9,) * 4, 3.0)]
    starts = []

    def fake_fit(grey, corners, full_polish=True):
        starts.append(np.asarray(corners))
        return fits[len(starts) - 1]

    monkeypatch.setattr(fb, "fit_from_corners", fake_fit)
    outline = BoardOutline(np.array([[0, 0], [150, 0], [150, 150], [0, 150]], float), 0.95)
    best = _net_fit(outline)
    assert best is fits[1]
    assert len(starts) == 2
    assert np.allclose(starts[1], fits[0].model.corners())


def test_refitting_stops_when_it_no_longer_helps(monkeypatch):
    fits = [_fake_fit(0.8, (0.9, 0.9, 0.9, 0.55), 1.0), _fake_fit(0.7, (0.6,) * 4, 2.0),
            _fake_fit(0.95, (0.95,) * 4, 3.0)]
    calls = []

    def fake_fit(grey, corners, full_polish=True):
        calls.append(1)
        return fits[len(calls) - 1]

    monkeypatch.setattr(fb, "fit_from_corners", fake_fit)
    outline = BoardOutline(np.array([[0, 0], [150, 0], [150, 150], [0, 150]], float), 0.95)
    best = _net_fit(outline)
    assert best is fits[0] and len(calls) == 2
