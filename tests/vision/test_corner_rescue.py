"""A corner the board network misplaces (under a hand): ``find_board.one_corner_off`` and
the proposers built on it (``proposers.CornerMoves``, ``proposers.Mirrored``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import zatre_vision.vision.location.find_board as fb
import zatre_vision.vision.location.proposers as pr
from zatre_vision.vision.location import BoardLocator, ProofSetup, expectations, locate_board
from zatre_vision.vision.location.board_net import BoardOutline
from zatre_vision.vision.location.find_board import corner_gap_cells, corner_moves, one_corner_off
from zatre_vision.vision.location.grid_fit import plain_model
from zatre_vision.vision.location.locate import LocateResult, to_grey
from zatre_vision.vision.location.print_proof import ProofConfig

OUTLINE = np.array([[100.0, 80.0], [700.0, 60.0], [760.0, 640.0], [90.0, 620.0]])


@pytest.mark.parametrize("reach", [1, 2, 3])
def test_corner_moves_move_one_corner_by_whole_cells_along_its_edges(reach):
    sets = corner_moves(OUTLINE, reach)
    per_corner = (2 * reach + 1) ** 2 - 1
    assert sets.shape == (4 * per_corner, 4, 2)
    seen = set()
    for moved in sets:
        changed = np.flatnonzero(np.abs(moved - OUTLINE).max(axis=1) > 1e-9)
        assert len(changed) == 1
        k = int(changed[0])
        along = (OUTLINE[(k + 1) % 4] - OUTLINE[k]) / 15
        across = (OUTLINE[(k - 1) % 4] - OUTLINE[k]) / 15
        a, b = np.linalg.solve(np.column_stack([along, across]), moved[k] - OUTLINE[k])
        assert abs(a - round(a)) < 1e-6 and abs(b - round(b)) < 1e-6
        assert max(abs(a), abs(b)) <= reach + 1e-9 and (round(a), round(b)) != (0, 0)
        seen.add((k, round(a), round(b)))
    assert len(seen) == len(sets)


def _truth_outline(photos, name):
    path, truth = photos[name]
    corners = np.asarray(truth["corners"], np.float64)
    return cv2.imread(str(path)), corners, float(np.linalg.norm(corners[1] - corners[0])) / 15


@pytest.mark.parametrize(("corner", "along", "across"), [(3, 2.0, -1.0), (1, -2.5, 1.5)])
def test_a_corner_cells_off_is_found_from_the_other_three(photos, corner, along, across):
    img, truth, cell = _truth_outline(photos, "hand")
    start = truth.copy()
    start[corner] += (along * (truth[(corner + 1) % 4] - truth[corner])
                      + across * (truth[(corner - 1) % 4] - truth[corner])) / 15
    fit = one_corner_off(to_grey(img), start)
    assert fit is not None and fb._good(fit)
    assert corner_gap_cells(fit.model.corners(), truth, cell) < 0.3


def test_no_board_gives_no_rescue(photos):
    img = cv2.imread(str(photos["none"][0]))
    assert one_corner_off(to_grey(img), OUTLINE) is None


class _Reading:
    quality = 0.0


def _proved(img, locator):
    """The board ``locate_board`` picks in ``img`` (each proposer's candidates proved
    against the prints in turn), read by a stand-in."""
    from zatre_vision.board_prints import load_prints

    prints = load_prints()
    grey = to_grey(img)
    return locate_board(img, grey, locator, lambda model: _Reading(),
                        ProofSetup(ProofConfig(), expectations(prints), prints))


@pytest.mark.parametrize(("confidence", "method"), [(0.95, "net"), (0.5, "none")])
def test_locator_rescues_a_sure_outline_with_one_corner_off(photos, monkeypatch,
                                                            confidence, method):
    """The network puts one corner three cells off and no fit from its corners finds
    the grid, nor does the classical search: when the network is sure of the board,
    the rescue finds it; when it is not, nothing is reported."""
    img, truth, cell = _truth_outline(photos, "some")
    start = truth.copy()
    start[2] += 3 * (truth[3] - truth[2]) / 15
    real_fit = fb.fit_from_corners
    tried = []

    def fit(grey, corners, full_polish=True):
        tried.append(np.array(corners))
        return None if np.allclose(corners, start) else real_fit(grey, corners, full_polish)

    locator = BoardLocator()
    monkeypatch.setattr(locator.finder, "find",
                        lambda image: BoardOutline(start, confidence))
    monkeypatch.setattr(fb, "fit_from_corners", fit)
    monkeypatch.setattr(pr, "locate", lambda grey: LocateResult(None, 0.0, 0, ()))
    found = locator.locate(img)
    assert found.method == method
    if method == "net":
        assert corner_gap_cells(found.result.model.corners(), truth, cell) < 0.3
        assert len(tried) == 1 + fb.CORNER_FITS
    else:
        assert not found.result.found and len(tried) == 1


@pytest.mark.parametrize("search_score", [0.62, 0.9])
def test_a_search_result_that_fails_the_proof_does_not_stop_the_rescue(photos, monkeypatch,
                                                                       search_score):
    """The classical search proposes a grid where there is no board (a corner of the
    table), faint or clear: the print proof does not take it, and a sure network's outline with
    that corner moved is still tried, its fit proved and picked. (Before the proposers,
    the clearer line contrast decided between the two, and a clear search result was
    taken as it stood.)"""
    img, truth, cell = _truth_outline(photos, "some")
    start = truth.copy()
    start[2] += 3 * (truth[3] - truth[2]) / 15
    h, w = img.shape[:2]
    off = plain_model(np.array([[0.0, 0.0], [0.2 * w, 0.0], [0.2 * w, 0.2 * h],
                                [0.0, 0.2 * h]]), w, h)
    real_fit = fb.fit_from_corners

    def fit(grey, corners, full_polish=True):
        if np.allclose(corners, start) or np.allclose(corners, off.corners()):
            return None
        return real_fit(grey, corners, full_polish)

    locator = BoardLocator()
    monkeypatch.setattr(locator.finder, "find", lambda image: BoardOutline(start, 0.95))
    monkeypatch.setattr(fb, "fit_from_corners", fit)
    monkeypatch.setattr(pr, "locate", lambda grey: LocateResult(
        off, search_score, 100, ((off, search_score),)))
    assert locator.locate(img).method == "classical"     # proposed first, unproved
    board = _proved(img, locator)
    assert board.found and board.source == "locate:net"
    assert corner_gap_cells(board.model.corners(), truth, cell) < 0.3


def test_mirrored_corners_map_back_onto_the_frame(photos):
    """The network's corners of the mirrored frame, mapped back, are the board's corners
    in the usual order (TL, TR, BR, BL), as near to the truth as the first look."""
    img, truth, cell = _truth_outline(photos, "some")
    locator = BoardLocator()
    first = locator.finder.find(img).corners
    mirrored = fb.mirrored_corners(locator.finder, img)
    assert mirrored is not None
    assert float(np.linalg.norm(mirrored - truth, axis=1).max()) / cell < 1.0
    assert corner_gap_cells(mirrored, first, cell) < 1.0
    # the same order as the truth: no roll of the labels is nearer
    gaps = [np.linalg.norm(np.roll(mirrored, k, 0) - truth, axis=1).max() for k in range(4)]
    assert int(np.argmin(gaps)) == 0


def test_the_mirrored_look_is_tried_when_the_first_outline_gives_no_fit(photos, monkeypatch):
    """A sure outline whose corners are all wrong (no single corner move mends it): the
    mirrored frame's outline is the second opinion, and the board is found from it."""
    img, truth, cell = _truth_outline(photos, "some")
    wrong = truth + np.array([[-3.0, -2.0], [4.0, -3.0], [3.0, 4.0], [-4.0, 3.0]]) * cell
    locator = BoardLocator()
    real_find = locator.finder.find
    looks = []

    def find(image):
        looks.append(image)
        return BoardOutline(wrong, 0.95) if len(looks) == 1 else real_find(image)

    monkeypatch.setattr(locator.finder, "find", find)
    monkeypatch.setattr(fb, "fit_from_corners",
                        lambda grey, corners, full_polish=True, real=fb.fit_from_corners:
                        None if np.allclose(corners, wrong) else real(grey, corners,
                                                                      full_polish))
    monkeypatch.setattr(pr, "locate", lambda grey: LocateResult(None, 0.0, 0, ()))
    found = locator.locate(img)
    assert len(looks) == 2 and np.array_equal(looks[1], img[:, ::-1])
    assert found.method == "net"
    assert corner_gap_cells(found.result.model.corners(), truth, cell) < 0.3


def test_a_faint_fit_is_a_board_only_where_a_sure_network_put_it():
    """``proposers.accept``: a fit with clear lines stands on its own; a faint one needs
    a sure network outline with every corner within AGREE_CELLS (a cell) of its own."""
    from zatre_vision.vision.geometry import GridModel, homography_from_corners

    corners = np.array([[100.0, 100.0], [400.0, 100.0], [400.0, 400.0], [100.0, 400.0]])
    model = GridModel(homography_from_corners(corners), 0.0, 640, 480)
    cell = model.cell_size_px()

    def outline(dx_cells: float, confidence: float = 0.95) -> BoardOutline:
        return BoardOutline(corners + [dx_cells * cell, 0.0], confidence)

    accept = pr.accept
    faint = (fb.MIN_SCORE + fb.MIN_SCORE_AGREEING) / 2
    assert accept(fb.MIN_SCORE, model, outline(5.0, 0.1))          # clear lines: a board
    assert accept(faint, model, outline(0.9))                      # within a cell
    assert accept(faint, model, outline(pr.AGREE_CELLS - 0.01))
    assert not accept(faint, model, outline(pr.AGREE_CELLS + 0.05))
    assert not accept(faint, model, outline(0.2, pr.SURE_OUTLINE - 0.05))   # network unsure
    assert not accept(fb.MIN_SCORE_AGREEING - 0.01, model, outline(0.0))      # no lines
