"""The border check: a fit whole cells off, hanging over a bright table, is moved back
onto the board; a right fit, or one with a sleeve over one side, is left alone."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from zatre_vision.vision.location.border import (
    BRIGHT,
    border_brightness,
    dark_all_round,
    shifts_along_one_axis,
    shifts_towards_board,
)
from zatre_vision.vision.location.find_board import onto_the_board
from zatre_vision.vision.location.grid_fit import FitResult, score_model, shifted


def test_shifts_point_away_from_the_bright_sides():
    # top and left bright: the board lies further down and right
    s = shifts_towards_board((1.0, 0.2, 0.9, 0.15))
    assert s and all(du > 0 and dv > 0 for du, dv in s)
    s = shifts_towards_board((0.1, 0.95, 0.2, 0.8))
    assert s and all(du < 0 and dv < 0 for du, dv in s)
    assert len(s) == len(set(s)) == 16


@pytest.mark.parametrize("sides", [
    (0.1, 0.15, 0.2, 0.12),      # dark all round: a right fit
    (0.95, 0.1, 0.15, 0.12),     # one bright side: a sleeve over the border
    (1.0, 0.9, 1.0, 0.1),        # top and bottom both bright: no clear way to go
    (0.65, 0.55, 0.9, 0.1),      # top hardly brighter than bottom
])
def test_no_shift_without_two_clearly_bright_adjacent_sides(sides):
    assert shifts_towards_board(sides) == []


@pytest.fixture(scope="module")
def on_white_table(photos, reader):
    """The 'some' photo with everything beyond the board's border painted like a white
    table, and the reader's (right) fit."""
    path, truth = photos["some"]
    img = cv2.imread(str(path))
    res = reader.read(img)
    model = res.model
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    outline = model.to_image(np.array([[-0.9, -0.9], [15.9, -0.9], [15.9, 15.9], [-0.9, 15.9]]))
    mask = np.zeros_like(grey)
    cv2.fillPoly(mask, [np.round(outline).astype(np.int32)], 255)
    table = np.where(mask > 0, grey, np.uint8(235))
    return table, model, truth, res


def _corner_error_cells(model, truth) -> float:
    err = np.linalg.norm(model.corners() - np.array(truth["corners"]), axis=1).max()
    return float(err / model.cell_size_px())


def test_a_right_fit_has_dark_border_and_is_kept(on_white_table):
    grey, model, _truth, res = on_white_table
    assert dark_all_round(border_brightness(grey, model))
    fit = FitResult(model, res.locate_score, (0.8,) * 4, (0, 0))
    assert onto_the_board(grey, fit) is fit


def test_a_fit_cells_off_over_the_table_is_moved_back_onto_the_board(on_white_table):
    grey, model, truth, _ = on_white_table
    off = shifted(model, -2, -3)          # hangs over the table at top and left
    sides = border_brightness(grey, off)
    assert sides[0] > BRIGHT and sides[2] > BRIGHT
    mended = onto_the_board(grey, FitResult(off, 0.8, (0.8,) * 4, (0, 0)))
    assert _corner_error_cells(mended.model, truth) < 0.3
    assert dark_all_round(border_brightness(grey, mended.model))


def test_a_sleeve_over_one_side_does_not_move_a_right_fit(on_white_table):
    grey, model, _truth, res = on_white_table
    sleeve = grey.copy()
    band = model.to_image(np.array([[-1.0, -0.8], [16.0, -0.8], [16.0, 1.5], [-1.0, 1.5]]))
    cv2.fillPoly(sleeve, [np.round(band).astype(np.int32)], 220)
    assert max(border_brightness(sleeve, model)) > BRIGHT
    fit = FitResult(model, res.locate_score, (0.8,) * 4, (0, 0))
    assert onto_the_board(sleeve, fit) is fit


def test_one_bright_side_shifts_along_its_axis_only():
    # left bright, right dark, top and bottom dark: the board lies further right
    s = shifts_along_one_axis((0.2, 0.3, 1.0, 0.15))
    assert s and all(du > 0 and dv == 0 for du, dv in s)
    s = shifts_along_one_axis((0.1, 0.9, 0.2, 0.25))
    assert s and all(du == 0 and dv < 0 for du, dv in s)
    assert len(s) == len(set(s))


@pytest.mark.parametrize("sides", [
    (0.1, 0.15, 0.2, 0.12),      # dark all round
    (1.0, 0.2, 0.9, 0.15),       # two adjacent sides: shifts_towards_board's case
    (0.9, 0.95, 1.0, 0.1),       # the other axis bright on both sides
    (0.65, 0.55, 0.2, 0.1),      # top hardly brighter than bottom
])
def test_no_one_axis_shift_unless_exactly_one_axis_is_off(sides):
    assert shifts_along_one_axis(sides) == []


def test_a_fit_cells_off_over_the_table_on_one_side_is_moved_back(on_white_table):
    grey, model, truth, _ = on_white_table
    off = shifted(model, -2, 0)           # the left arms hang over the table
    sides = border_brightness(grey, off)
    assert sides[2] > BRIGHT and max(sides[0], sides[1], sides[3]) <= BRIGHT
    fit = FitResult(off, *score_model(grey, off), (0, 0))
    mended = onto_the_board(grey, fit)
    assert mended.score > fit.score
    assert _corner_error_cells(mended.model, truth) < 0.3
    assert _corner_error_cells(off, truth) > 1.5


def test_a_sleeve_over_one_side_does_not_move_a_right_fit_along_that_axis(on_white_table):
    grey, model, _truth, _ = on_white_table
    sleeve = grey.copy()
    band = model.to_image(np.array([[-1.0, -1.0], [1.2, -1.0], [1.2, 16.0], [-1.0, 16.0]]))
    cv2.fillPoly(sleeve, [np.round(band).astype(np.int32)], 225)
    assert shifts_along_one_axis(border_brightness(sleeve, model))
    fit = FitResult(model, *score_model(sleeve, model), (0, 0))
    assert onto_the_board(sleeve, fit) is fit


def test_a_one_axis_refit_is_taken_only_with_clearer_lines(on_white_table):
    # a sleeve over one side looks like table to the border check: a grid moved along
    # that axis must have clearer lines than the fit, or the fit stands
    grey, model, _truth, _ = on_white_table
    off = shifted(model, -2, 0)
    fit = FitResult(off, 0.99, (0.99,) * 4, (0, 0))
    assert onto_the_board(grey, fit) is fit
